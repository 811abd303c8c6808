package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Reduction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The row normalisations of {@link OpsGpuBench}: softmax ({@link Reduction#softmax}) and layer norm
 * ({@link Nn#layerNorm}, epsilon 1e-5, with a scale and a shift) over the last axis of [4096, 4096]
 * and [16384, 1024], named {@code <op>_<rows>x<cols>_auto}. They have no template: their default
 * schedule is the auto-scheduler's untuned pick. {@code bench/ops_torch.py} times the same names.
 */
final class RowNormCases {
  private RowNormCases() {}

  static final double EPS = 1e-5;

  static List<OpsGpuBench.Case> cases() {
    List<OpsGpuBench.Case> cs = new ArrayList<>();
    for (int[] shape : new int[][] {{4096, 4096}, {16384, 1024}}) {
      int rows = shape[0];
      int cols = shape[1];
      String size = rows + "x" + cols;
      Tensor x = placeholder("X", FLOAT32, rows, cols);
      cs.add(
          new OpsGpuBench.Case(
              "softmax_" + size + "_auto",
              OperatorDef.of(List.of(x), Reduction.softmax(x, 1)),
              0,
              (in, flat) -> softmax(in.get(0), cols, flat)));
      Tensor g = placeholder("Gamma", FLOAT32, cols);
      Tensor b = placeholder("Beta", FLOAT32, cols);
      cs.add(
          new OpsGpuBench.Case(
              "layer_norm_" + size + "_auto",
              OperatorDef.of(List.of(x, g, b), Nn.layerNorm(x, g, b, 1, EPS)),
              0,
              (in, flat) -> layerNorm(in.get(0), in.get(1), in.get(2), cols, flat)));
    }
    return cs;
  }

  /**
   * The knob settings {@code --row-configs} times for case {@code c}: a block per row of 32 to 1024
   * threads, rows staged in shared memory or not, and a thread per row.
   */
  static List<Map<String, Integer>> configs(OpsGpuBench.Case c) {
    String anchor = c.op().output().name();
    List<Map<String, Integer>> out = new ArrayList<>();
    for (int threads : new int[] {32, 64, 128, 256, 512, 1024}) {
      for (int stage : new int[] {1, 0}) {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put(anchor + ".threads_per_row", threads);
        m.put(anchor + ".stage_rows", stage);
        out.add(m);
      }
    }
    out.add(Map.of(anchor + ".threads_per_row", 1, anchor + ".stage_rows", 0));
    return out;
  }

  /** Softmax of element {@code flat} along its row, in float64. */
  static double softmax(float[] v, int cols, long flat) {
    int r = (int) (flat / cols);
    double max = Double.NEGATIVE_INFINITY;
    for (int c = 0; c < cols; c++) {
      max = Math.max(max, v[r * cols + c]);
    }
    double sum = 0;
    for (int c = 0; c < cols; c++) {
      sum += Math.exp(v[r * cols + c] - max);
    }
    return Math.exp(v[(int) flat] - max) / sum;
  }

  /** Layer norm of element {@code flat} over its row, in float64. */
  static double layerNorm(float[] v, float[] gamma, float[] beta, int cols, long flat) {
    int r = (int) (flat / cols);
    int c = (int) (flat % cols);
    double mean = 0;
    for (int k = 0; k < cols; k++) {
      mean += v[r * cols + k];
    }
    mean /= cols;
    double var = 0;
    for (int k = 0; k < cols; k++) {
      double d = v[r * cols + k] - mean;
      var += d * d;
    }
    var /= cols;
    return (v[(int) flat] - mean) / Math.sqrt(var + EPS) * gamma[c] + beta[c];
  }
}
