package dev.kernelgen.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hand-encoded ONNX models of the operator benchmark compute what their names say. */
class OpsOnnxModelsTest {
  private static float[] random(int n, long seed) {
    Random r = new Random(seed);
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = r.nextFloat() * 2 - 1;
    }
    return a;
  }

  @Test
  void matmul() throws Exception {
    int m = 5;
    int k = 7;
    int n = 3;
    float[] a = random(m * k, 1);
    float[] b = random(k * n, 2);
    try (OrtRunner ort =
        new OrtRunner(OpsOnnxModels.matmul(m, k, n, b), new long[] {m, k}, new long[] {m, n})) {
      float[] y = ort.run(a);
      for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
          double s = 0;
          for (int q = 0; q < k; q++) {
            s += a[i * k + q] * b[q * n + j];
          }
          assertThat((double) y[i * n + j]).isCloseTo(s, within(1e-5));
        }
      }
    }
  }

  @Test
  void softmaxOverRows() throws Exception {
    int rows = 4;
    int cols = 9;
    float[] x = random(rows * cols, 3);
    long[] shape = {rows, cols};
    try (OrtRunner ort = new OrtRunner(OpsOnnxModels.softmax(rows, cols), shape, shape)) {
      float[] y = ort.run(x);
      for (int i = 0; i < rows; i++) {
        double sum = 0;
        for (int j = 0; j < cols; j++) {
          sum += Math.exp(x[i * cols + j]);
        }
        for (int j = 0; j < cols; j++) {
          assertThat((double) y[i * cols + j])
              .isCloseTo(Math.exp(x[i * cols + j]) / sum, within(1e-6));
        }
      }
    }
  }

  @Test
  void conv3x3SamePadding() throws Exception {
    int c = 3;
    int h = 6;
    int w = 5;
    int f = 2;
    float[] x = random(c * h * w, 4);
    float[] filter = random(f * c * 9, 5);
    try (OrtRunner ort =
        new OrtRunner(
            OpsOnnxModels.conv3x3(1, c, h, w, f, filter),
            new long[] {1, c, h, w},
            new long[] {1, f, h, w})) {
      float[] y = ort.run(x);
      for (int o = 0; o < f; o++) {
        for (int i = 0; i < h; i++) {
          for (int j = 0; j < w; j++) {
            double s = 0;
            for (int ch = 0; ch < c; ch++) {
              for (int di = 0; di < 3; di++) {
                for (int dj = 0; dj < 3; dj++) {
                  int ii = i + di - 1;
                  int jj = j + dj - 1;
                  if (ii >= 0 && ii < h && jj >= 0 && jj < w) {
                    s += x[(ch * h + ii) * w + jj] * filter[((o * c + ch) * 3 + di) * 3 + dj];
                  }
                }
              }
            }
            assertThat((double) y[(o * h + i) * w + j]).isCloseTo(s, within(1e-5));
          }
        }
      }
    }
  }

  @Test
  void convBatchNormSwishIsTheSamplesOperator() throws Exception {
    var d = new dev.kernelgen.samples.convbnswish.ConvBnSwishLoop.Dims(2, 3, 7, 5, 4);
    float[] x = random(d.n() * d.c() * d.h() * d.w(), 6);
    float[] weight = random(d.k() * d.c() * 9, 7);
    float[] gamma = random(d.k(), 8);
    float[] beta = random(d.k(), 9);
    float[] mean = random(d.k(), 10);
    float[] variance = random(d.k(), 11);
    for (int i = 0; i < variance.length; i++) {
      variance[i] = 1.1f + variance[i]; // positive, as a running variance
    }
    try (OrtRunner ort =
        new OrtRunner(
            OpsOnnxModels.convBnSwish(
                d.n(), d.c(), d.h(), d.w(), d.k(), weight, gamma, beta, mean, variance),
            d.input(),
            d.output())) {
      float[] y = ort.run(x);
      assertThat(y).hasSize((int) d.outputCount());
      for (int i = 0; i < y.length; i++) {
        double want =
            dev.kernelgen.samples.convbnswish.ConvBnSwishLoop.at(
                d, x, weight, gamma, beta, mean, variance, i);
        assertThat((double) y[i]).isCloseTo(want, within(1e-5));
      }
    }
  }
}
