package dev.kernelgen.samples.convbnswish;

/**
 * The operator as a plain Java loop, summing in double: the reference for shapes too large for the
 * tensor-expression interpreter (the sample's tests check this loop against the interpreter first).
 * Arrays are dense NCHW ({@code x}), KCRS ({@code weight}) and per output channel.
 */
public final class ConvBnSwishLoop {
  private ConvBnSwishLoop() {}

  /** Batch norm's epsilon, as the spec's. */
  public static final double EPS = 1e-5;

  /**
   * The dims: input {@code [n, c, h, w]}, weight {@code [k, c, 3, 3]}, output {@code [n, k, h, w]}.
   */
  public record Dims(int n, int c, int h, int w, int k) {
    public long[] input() {
      return new long[] {n, c, h, w};
    }

    public long[] weight() {
      return new long[] {k, c, 3, 3};
    }

    public long[] output() {
      return new long[] {n, k, h, w};
    }

    public long outputCount() {
      return (long) n * k * h * w;
    }

    @Override
    public String toString() {
      return "[" + n + "," + c + "," + h + "," + w + "]x" + k;
    }
  }

  /** The whole output. */
  public static float[] run(
      Dims d,
      float[] x,
      float[] weight,
      float[] gamma,
      float[] beta,
      float[] mean,
      float[] variance) {
    float[] out = new float[Math.toIntExact(d.outputCount())];
    for (int flat = 0; flat < out.length; flat++) {
      out[flat] = (float) at(d, x, weight, gamma, beta, mean, variance, flat);
    }
    return out;
  }

  /** Output element {@code flat} (NCHW order), in double. */
  public static double at(
      Dims d,
      float[] x,
      float[] weight,
      float[] gamma,
      float[] beta,
      float[] mean,
      float[] variance,
      long flat) {
    int j = (int) (flat % d.w());
    int i = (int) (flat / d.w() % d.h());
    int f = (int) (flat / ((long) d.w() * d.h()) % d.k());
    int b = (int) (flat / ((long) d.w() * d.h() * d.k()));
    double s = 0;
    for (int ch = 0; ch < d.c(); ch++) {
      for (int di = 0; di < 3; di++) {
        int y = i + di - 1;
        if (y < 0 || y >= d.h()) {
          continue;
        }
        for (int dj = 0; dj < 3; dj++) {
          int xx = j + dj - 1;
          if (xx >= 0 && xx < d.w()) {
            s +=
                (double) x[((b * d.c() + ch) * d.h() + y) * d.w() + xx]
                    * weight[((f * d.c() + ch) * 3 + di) * 3 + dj];
          }
        }
      }
    }
    double bn = (s - mean[f]) * gamma[f] / Math.sqrt(variance[f] + EPS) + beta[f];
    return bn / (1 + Math.exp(-bn));
  }
}
