package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Reduction;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The row normalisations of the GPU operator benchmark: their host references equal the oracle,
 * their default schedule is the auto-scheduler's block per row, and every setting that {@code
 * --row-configs} times is a point of their space that lowers.
 */
class RowNormCasesTest {
  @Test
  void referencesEqualTheOracle() {
    int rows = 3;
    int cols = 7;
    Tensor x = placeholder("X", FLOAT32, rows, cols);
    Tensor g = placeholder("G", FLOAT32, cols);
    Tensor b = placeholder("B", FLOAT32, cols);
    NDArray xv = NDArray.random(FLOAT32, 1, rows, cols);
    NDArray gv = NDArray.random(FLOAT32, 2, cols);
    NDArray bv = NDArray.random(FLOAT32, 3, cols);
    NDArray sm = TensorInterpreter.evaluate(Reduction.softmax(x, 1), Map.of(x, xv), Map.of());
    NDArray ln =
        TensorInterpreter.evaluate(
            Nn.layerNorm(x, g, b, 1, RowNormCases.EPS), Map.of(x, xv, g, gv, b, bv), Map.of());
    float[] xf = floats(xv);
    for (int k = 0; k < rows * cols; k++) {
      assertThat(RowNormCases.softmax(xf, cols, k)).isCloseTo(sm.getDouble(k), within());
      assertThat(RowNormCases.layerNorm(xf, floats(gv), floats(bv), cols, k))
          .isCloseTo(ln.getDouble(k), within());
    }
  }

  @Test
  void everyTimedSettingLowersAndTheDefaultIsABlockPerRow() {
    for (OpsGpuBench.Case c : RowNormCases.cases()) {
      Schedule d = DefaultSchedules.forTarget(Target.CUDA, c.op(), Knobs.defaults());
      assertThat(d.trace().toString()).as(c.name()).contains("threadIdx.x").contains("cache_read");
      if (!c.name().startsWith("softmax_16384")) {
        continue; // one shape is enough to check the settings lower
      }
      for (Map<String, Integer> config : RowNormCases.configs(c)) {
        Schedule s = DefaultSchedules.forTarget(Target.CUDA, c.op(), Knobs.configured(config));
        assertThat(Lower.lower(s, "k", c.op().args(), Target.CUDA, null)).isNotNull();
      }
    }
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-5);
  }

  private static float[] floats(NDArray a) {
    float[] out = new float[(int) a.size()];
    for (int k = 0; k < out.length; k++) {
      out[k] = (float) a.getDouble(k);
    }
    return out;
  }
}
