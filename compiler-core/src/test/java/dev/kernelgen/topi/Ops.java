package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.shape;

import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The operator library's cases on ragged shapes: each is a named graph (outputs) with the values of
 * its symbolic dims. Shared by the CPU checks here and the CUDA compile test.
 */
public record Ops(String name, List<Tensor> outputs, Map<Var, Long> dims) {
  @Override
  public String toString() {
    return name;
  }

  static Ops of(String name, Tensor out) {
    return new Ops(name, List.of(out), Map.of());
  }

  public static List<Ops> all() {
    List<Ops> c = new ArrayList<>();
    // Elementwise with broadcasting.
    Tensor a = placeholder("A", FLOAT32, 3, 7, 13);
    Tensor row = placeholder("Row", FLOAT32, 13);
    Tensor col = placeholder("Col", FLOAT32, 7, 1);
    c.add(of("add_broadcast_row", Elementwise.add(a, row)));
    c.add(of("sub_broadcast_col", Elementwise.sub(a, col)));
    c.add(of("mul_broadcast_both", Elementwise.mul(col, row)));
    Tensor pos = placeholder("Pos", FLOAT32, 3, 7, 13);
    c.add(of("div", Elementwise.div(a, Elementwise.addScalar(Elementwise.mul(pos, pos), 1.5))));
    c.add(of("relu", Elementwise.relu(a)));
    c.add(of("relu6", Elementwise.relu6(Elementwise.scale(a, 8))));
    c.add(of("sigmoid", Elementwise.sigmoid(a)));
    c.add(of("tanh", Elementwise.tanh(a)));
    Tensor x4 = placeholder("X", FLOAT32, 2, 5, 7, 9);
    Tensor sc = placeholder("Scale", FLOAT32, 5);
    Tensor sh = placeholder("Shift", FLOAT32, 5);
    c.add(of("scale_shift", Elementwise.scaleShift(x4, sc, sh, 1)));
    Tensor g = placeholder("Gamma", FLOAT32, 5);
    Tensor b = placeholder("Beta", FLOAT32, 5);
    Tensor m = placeholder("Mean", FLOAT32, 5);
    Tensor v = placeholder("Var", FLOAT32, 5);
    Tensor vpos = Elementwise.mul(v, v);
    c.add(of("batch_norm", Elementwise.batchNormInference(x4, g, b, m, vpos, 1e-5, 1)));
    // Symbolic dims.
    Var n = new Var("n", dev.kernelgen.te.DType.INT32);
    Tensor xs = placeholder("Xs", FLOAT32, n, 11);
    Tensor bs = placeholder("Bias", FLOAT32, 11);
    c.add(
        new Ops(
            "add_relu_symbolic",
            List.of(Elementwise.relu(Elementwise.add(xs, bs))),
            Map.of(n, 6L)));
    // Reductions.
    c.add(of("sum_axis1", Reduction.sum(a, false, 1)));
    c.add(of("sum_all", Reduction.sum(a, false)));
    c.add(of("max_axes02_keep", Reduction.max(a, true, 0, 2)));
    c.add(of("mean_last", Reduction.mean(a, false, -1)));
    c.add(of("softmax_last", Reduction.softmax(a, 2)));
    c.add(of("softmax_middle", Reduction.softmax(a, 1)));
    c.add(of("log_softmax", Reduction.logSoftmax(a, -1)));
    Tensor x2 = placeholder("X2", FLOAT32, 9, 37);
    c.add(of("softmax_lanes_ragged", Reduction.softmaxLanes(x2, 8)));
    // Linear algebra.
    Tensor ma = placeholder("MA", FLOAT32, 13, 17);
    Tensor mb = placeholder("MB", FLOAT32, 17, 11);
    c.add(of("matmul", Linalg.matmul(ma, mb)));
    Tensor w = placeholder("W", FLOAT32, 11, 17);
    c.add(of("dense", Linalg.dense(ma, w)));
    Tensor ba = placeholder("BA", FLOAT32, 3, 9, 5);
    Tensor bb = placeholder("BB", FLOAT32, 3, 5, 7);
    c.add(of("batch_matmul", Linalg.batchMatmul(ba, bb)));
    // Convolutions.
    Tensor in = placeholder("Input", FLOAT32, 2, 3, 11, 9);
    Tensor f = placeholder("Filter", FLOAT32, 4, 3, 3, 3);
    c.add(of("conv2d_same", Conv.conv2dNchw(in, f, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 1), 1)));
    c.add(of("conv2d_stride2_valid", Conv.conv2dNchw(in, f, 2, 2, Padding.valid(), 1)));
    c.add(of("conv2d_dilated", Conv.conv2dNchw(in, f, 1, 1, new Padding(2, 1, 2, 1), 2)));
    Tensor nhwc = placeholder("InputNhwc", FLOAT32, 2, 11, 9, 3);
    Tensor fd = placeholder("FilterHwcm", FLOAT32, 3, 3, 3, 2);
    c.add(
        of(
            "depthwise_nhwc_same_m2",
            Conv.depthwiseConv2dNhwc(nhwc, fd, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 1), 1)));
    c.add(
        of(
            "depthwise_nhwc_stride2_dil2",
            Conv.depthwiseConv2dNhwc(nhwc, fd, 2, 2, Padding.same(11, 9, 3, 3, 2, 2, 2), 2)));
    Tensor fn = placeholder("FilterNchw", FLOAT32, 3, 1, 3, 3);
    c.add(
        of(
            "depthwise_nchw_dilated",
            Nn.depthwiseConv2dNchw(in, fn, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 2), 2)));
    // Pooling.
    c.add(
        of(
            "max_pool_3s2_same",
            Pooling.maxPool2d(in, 3, 3, 2, 2, Padding.same(11, 9, 3, 3, 2, 2, 1))));
    c.add(of("avg_pool_2s2", Pooling.avgPool2d(in, 2, 2, 2, 2, Padding.valid(), true)));
    c.add(
        of(
            "avg_pool_3s1_pad_exclude",
            Pooling.avgPool2d(in, 3, 3, 1, 1, new Padding(1, 1, 1, 1), false)));
    c.add(of("global_max_pool", Pooling.globalMaxPool(in)));
    c.add(of("global_avg_pool", Pooling.globalAvgPool(in)));
    // Data movement.
    c.add(of("reshape", Transform.reshape(a, shape(13, 21))));
    c.add(of("transpose", Transform.transpose(a, 2, 0, 1)));
    c.add(of("pad", Transform.pad(a, new int[] {0, 2, 1}, new int[] {1, 0, 3}, 0.5)));
    c.add(of("nchw_to_nhwc", Transform.nchwToNhwc(in)));
    c.add(of("nhwc_to_nchw", Transform.nhwcToNchw(nhwc)));
    c.add(
        of(
            "layout_roundtrip_relu",
            Elementwise.relu(Transform.nhwcToNchw(Transform.nchwToNhwc(in)))));
    return c;
  }
}
