package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link Nn#layerNorm}: against a plain Java computation, then scheduled against the oracle. */
class LayerNormTest {
  @Test
  void oracleMatchesTheDefinition() {
    Tensor x = placeholder("X", FLOAT32, 3, 10);
    Tensor g = placeholder("G", FLOAT32, 10);
    Tensor b = placeholder("B", FLOAT32, 10);
    Tensor out = Topi.layerNorm(x, g, b, 1, 1e-5);
    NDArray xv = NDArray.random(DType.FLOAT32, 1, 3, 10);
    NDArray gv = NDArray.random(DType.FLOAT32, 2, 10);
    NDArray bv = NDArray.random(DType.FLOAT32, 3, 10);
    NDArray y =
        TensorInterpreter.evaluate(java.util.List.of(out), Map.of(x, xv, g, gv, b, bv), Map.of())
            .get(out);
    for (int i = 0; i < 3; i++) {
      double mean = 0;
      for (int j = 0; j < 10; j++) {
        mean += xv.getDouble(i * 10 + j);
      }
      mean /= 10;
      double var = 0;
      for (int j = 0; j < 10; j++) {
        double d = xv.getDouble(i * 10 + j) - mean;
        var += d * d;
      }
      var /= 10;
      for (int j = 0; j < 10; j++) {
        double want =
            (xv.getDouble(i * 10 + j) - mean) / Math.sqrt(var + 1e-5) * gv.getDouble(j)
                + bv.getDouble(j);
        org.assertj.core.api.Assertions.assertThat(y.getDouble(i * 10 + j))
            .isCloseTo(want, org.assertj.core.api.Assertions.within(1e-4));
      }
    }
  }

  @Test
  void lastTwoAxesAndSymbolicRows() {
    Var n = new Var("n", DType.INT32);
    Tensor x = placeholder("X", FLOAT32, n, 5, 7);
    Tensor g = placeholder("G", FLOAT32, 5, 7);
    Tensor b = placeholder("B", FLOAT32, 5, 7);
    Tensor out = Topi.layerNorm(x, g, b, 2, 1e-5);
    Check.check(Schedule.create(out), Map.of(n, 3L));
    Check.check(Fusion.schedule(Target.C, java.util.List.of(out)), Map.of(n, 3L));
  }

  @Test
  void overAllAxes() {
    Tensor x = placeholder("X", FLOAT32, 4, 6);
    Tensor out = Topi.layerNorm(x, x, x, 2, 1e-3);
    Check.check(Schedule.create(out), Map.of());
  }

  @Test
  void wrongParameterShapeIsNamed() {
    Tensor x = placeholder("X", FLOAT32, 4, 6);
    Tensor g = placeholder("G", FLOAT32, 4, 6);
    assertThatThrownBy(() -> Topi.layerNorm(x, g, g, 1, 1e-5))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("'G' must have the shape of the last 1 axes");
  }
}
