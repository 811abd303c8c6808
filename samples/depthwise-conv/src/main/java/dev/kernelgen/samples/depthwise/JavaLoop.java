package dev.kernelgen.samples.depthwise;

import dev.kernelgen.runtime.HostTensor;

/** The operators as plain Java loops: the reference the kernels are checked against. */
final class JavaLoop {
  private JavaLoop() {}

  /** 3x3 depthwise convolution, stride 1, zero padding 1, of a 1 x C x H x W input. */
  static float[] depthwise(HostTensor input, HostTensor filter) {
    int c = (int) input.dim(1);
    int h = (int) input.dim(2);
    int w = (int) input.dim(3);
    float[] in = input.toFloatArray();
    float[] f = filter.toFloatArray();
    float[] out = new float[c * h * w];
    for (int ch = 0; ch < c; ch++) {
      for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++) {
          float s = 0;
          for (int di = 0; di < 3; di++) {
            for (int dj = 0; dj < 3; dj++) {
              int y = i + di - 1;
              int x = j + dj - 1;
              if (y >= 0 && y < h && x >= 0 && x < w) {
                s += in[(ch * h + y) * w + x] * f[ch * 9 + di * 3 + dj];
              }
            }
          }
          out[(ch * h + i) * w + j] = s;
        }
      }
    }
    return out;
  }

  /** {@code max(x * scale[c] + shift[c], 0)} per channel. */
  static float[] scaleShiftRelu(
      float[] x, HostTensor scale, HostTensor shift, int channels, int plane) {
    float[] s = scale.toFloatArray();
    float[] b = shift.toFloatArray();
    float[] out = new float[x.length];
    for (int ch = 0; ch < channels; ch++) {
      for (int p = 0; p < plane; p++) {
        int i = ch * plane + p;
        out[i] = Math.max(x[i] * s[ch] + b[ch], 0f);
      }
    }
    return out;
  }
}
