package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Winograd#conv2dNchw}: the direct convolution's result in the oracle, on ragged planes and
 * asymmetric padding, then the auto-scheduler's untuned picks on every target against the oracle.
 */
class WinogradTest {
  private static final Padding SAME = new Padding(1, 1, 1, 1);
  private static final Padding UNEVEN = new Padding(0, 2, 1, 0);

  @Test
  void equalsTheDirectConvolution() {
    for (int m : new int[] {2, 4}) {
      for (Padding p : List.of(SAME, UNEVEN, Padding.valid())) {
        // 7 x 9 leaves ragged last tiles for both tile sizes and every padding.
        Tensor x = placeholder("X", FLOAT32, 2, 3, 7, 9);
        Tensor w = placeholder("W", FLOAT32, 5, 3, 3, 3);
        Tensor direct = Conv.conv2dNchw(x, w, 1, 1, p, 1);
        Tensor wino = Winograd.conv2dNchw(x, w, p, m);
        assertThat(wino.shape()).isEqualTo(direct.shape());
        NDArray xv = NDArray.random(DType.FLOAT32, 11, 2, 3, 7, 9);
        NDArray wv = NDArray.random(DType.FLOAT32, 12, 5, 3, 3, 3);
        NDArray want =
            TensorInterpreter.evaluate(List.of(direct), Map.of(x, xv, w, wv), Map.of()).get(direct);
        NDArray got =
            TensorInterpreter.evaluate(List.of(wino), Map.of(x, xv, w, wv), Map.of()).get(wino);
        for (long i = 0; i < want.size(); i++) {
          assertThat(got.getDouble(i))
              .as("F(%dx%d, 3x3), padding %s, element %d", m, m, p, i)
              .isCloseTo(want.getDouble(i), org.assertj.core.api.Assertions.within(1e-4));
        }
      }
    }
  }

  @Test
  void untunedPicksMatchTheOracleOnCpus() {
    Var n = new Var("n", DType.INT32);
    for (int m : new int[] {2, 4}) {
      Tensor x = placeholder("X", FLOAT32, n, 6, 11, 13);
      Tensor w = placeholder("W", FLOAT32, 7, 6, 3, 3);
      List<Tensor> out = List.of(Winograd.conv2dNchw(x, w, SAME, m));
      // The C pick runs as C and loop IR; the Java pick as Java.
      Check.check(
          AutoScheduler.untuned(Target.C, out),
          List.of(x, w, out.get(0)),
          Map.of(n, 2L),
          java.util.EnumSet.of(Check.Backend.C, Check.Backend.IR),
          1e-4,
          1e-4);
      Check.check(
          AutoScheduler.untuned(Target.JAVA, out),
          List.of(x, w, out.get(0)),
          Map.of(n, 3L),
          java.util.EnumSet.of(Check.Backend.JAVA),
          1e-4,
          1e-4);
    }
  }

  @Test
  void symbolicPlanes() {
    // The tile grid counted from symbolic dims: F(2x2)'s C pick on a ragged 7x9 plane. (F(4x4)'s
    // symbolic kernel builds too, but gcc takes about 30 s over it: not in the default tier.)
    Var n = new Var("n", DType.INT32);
    Var h = new Var("h", DType.INT32);
    Var w = new Var("w", DType.INT32);
    Tensor x = placeholder("X", FLOAT32, n, 3, h, w);
    Tensor f = placeholder("W", FLOAT32, 4, 3, 3, 3);
    List<Tensor> out = List.of(Winograd.conv2dNchw(x, f, UNEVEN, 2));
    Check.check(
        AutoScheduler.untuned(Target.C, out),
        List.of(x, f, out.get(0)),
        Map.of(n, 2L, h, 7L, w, 9L),
        java.util.EnumSet.of(Check.Backend.C, Check.Backend.IR),
        1e-4,
        1e-4);
  }

  @Test
  void untunedPicksMatchTheOracleOnGpus() {
    // Each tile size on one GPU target (the two lower alike; the loop-IR interpreter is slow).
    for (int m : new int[] {2, 4}) {
      Tensor x = placeholder("X", FLOAT32, 1, 4, 9, 10);
      Tensor w = placeholder("W", FLOAT32, 3, 4, 3, 3);
      List<Tensor> out = List.of(Winograd.conv2dNchw(x, w, SAME, m));
      GpuCheck.check(AutoScheduler.untuned(m == 2 ? Target.CUDA : Target.OPENCL, out), Map.of());
    }
  }

  @Test
  void whatItCannotComputeIsNamed() {
    Tensor x = placeholder("X", FLOAT32, 1, 4, 9, 10);
    Tensor w5 = placeholder("W", FLOAT32, 3, 4, 5, 5);
    assertThatThrownBy(() -> Winograd.conv2dNchw(x, w5, SAME, 2))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("filter 'W' must be 3x3, is 5x5");
    Tensor w = placeholder("W", FLOAT32, 3, 4, 3, 3);
    assertThatThrownBy(() -> Winograd.conv2dNchw(x, w, SAME, 3))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("tile size must be 2 or 4, got 3");
    Tensor tiny = placeholder("T", FLOAT32, 1, 4, 1, 10);
    assertThatThrownBy(() -> Winograd.conv2dNchw(tiny, w, Padding.valid(), 2))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("'T' (1x10) padded by")
        .hasMessageContaining("is smaller than the 3x3 filter");
    Tensor other = placeholder("O", FLOAT32, 1, 5, 9, 10);
    assertThatThrownBy(() -> Winograd.conv2dNchw(other, w, SAME, 2)).isInstanceOf(UserError.class);
    Tensor ints = placeholder("I", DType.INT32, 1, 4, 9, 10);
    assertThatThrownBy(() -> Winograd.conv2dNchw(ints, w, SAME, 2))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("must be floating point");
  }
}
