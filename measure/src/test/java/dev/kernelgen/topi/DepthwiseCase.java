package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.te.Tensor;

/**
 * The tensors of a depthwise workload as the tests write it (N, C, H, W, kernel, multiplier,
 * stride, SAME or VALID): the convolution and the fused convolution + scale_shift + relu. A copy of
 * compiler-core's test record of the same name, for the measure tests of topi's spaces.
 */
record DepthwiseCase(
    Tensor in, Tensor filter, Tensor scale, Tensor shift, Tensor conv, Tensor fused) {
  static DepthwiseCase of(int n, int c, int h, int w, int k, int m, int stride, String pad) {
    Tensor in = placeholder("Input", FLOAT32, n, c, h, w);
    Tensor f = placeholder("Filter", FLOAT32, c, m, k, k);
    Tensor scale = placeholder("Scale", FLOAT32, c * m);
    Tensor shift = placeholder("Shift", FLOAT32, c * m);
    Padding p = Padding.of(pad, h, w, k, k, stride, stride, 1);
    Tensor conv = Nn.depthwiseConv2dNchw(in, f, stride, stride, p, 1);
    return new DepthwiseCase(in, f, scale, shift, conv, Nn.relu(Nn.scaleShift(conv, scale, shift)));
  }
}
