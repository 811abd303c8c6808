package dev.kernelgen.bench;

/**
 * Depthwise convolution as straightforward single-threaded Java loops: the "plain Java loop"
 * baseline, and the reference that other implementations are checked against.
 */
public final class JavaLoops {
  private JavaLoops() {}

  /** This class as a {@link DepthwiseImpl} of {@code w}. */
  public static DepthwiseImpl of(Workload w, boolean fused) {
    return fused
        ? (in, filter, scale, shift, out) -> fused(w, in, filter, scale, shift, out)
        : (in, filter, scale, shift, out) -> depthwise(w, in, filter, out);
  }

  /**
   * {@code out[n][c*m+q][y][x] = sum over (i, j) of padded in[n][c][..][..] * filter[c][q][i][j]}.
   */
  public static void depthwise(Workload w, float[] in, float[] filter, float[] out) {
    compute(w, in, filter, null, null, out);
  }

  /** {@link #depthwise}, then {@code max(0, v * scale[oc] + shift[oc])} per output channel. */
  public static void fused(
      Workload w, float[] in, float[] filter, float[] scale, float[] shift, float[] out) {
    if (scale == null || shift == null) {
      throw new IllegalArgumentException("fused depthwise needs scale and shift");
    }
    compute(w, in, filter, scale, shift, out);
  }

  private static void compute(
      Workload w, float[] in, float[] filter, float[] scale, float[] shift, float[] out) {
    check("input", in, w.inputSize());
    check("filter", filter, w.filterSize());
    check("output", out, w.outputSize());
    int k = w.kernel();
    int m = w.multiplier();
    int oc = w.outChannels();
    for (int n = 0; n < w.n(); n++) {
      for (int c = 0; c < w.c(); c++) {
        int inBase = (n * w.c() + c) * w.h() * w.w();
        for (int q = 0; q < m; q++) {
          int o = c * m + q;
          int fBase = o * k * k;
          int outBase = (n * oc + o) * w.outH() * w.outW();
          for (int y = 0; y < w.outH(); y++) {
            for (int x = 0; x < w.outW(); x++) {
              float sum = 0f;
              for (int i = 0; i < k; i++) {
                int iy = y * w.stride() - w.padTop() + i;
                if (iy < 0 || iy >= w.h()) {
                  continue;
                }
                for (int j = 0; j < k; j++) {
                  int ix = x * w.stride() - w.padLeft() + j;
                  if (ix >= 0 && ix < w.w()) {
                    sum += in[inBase + iy * w.w() + ix] * filter[fBase + i * k + j];
                  }
                }
              }
              if (scale != null) {
                sum = Math.max(0f, sum * scale[o] + shift[o]);
              }
              out[outBase + y * w.outW() + x] = sum;
            }
          }
        }
      }
    }
  }

  private static void check(String what, float[] array, int expected) {
    if (array.length != expected) {
      throw new IllegalArgumentException(
          what + " has " + array.length + " elements, the workload needs " + expected);
    }
  }
}
