package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.OpSchedules;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Elementwise stages whose reads divide the output's columns by a constant, in phases on C. */
class CpuColumnPhasesTest {
  private static Tensor ph(String name, Object... shape) {
    return TE.placeholder(name, FLOAT32, shape);
  }

  /** Nearest-neighbour upsampling by {@code f} of [2, 3, h, w]. */
  static Tensor upsample(int h, int w, int f) {
    Tensor x = ph("X", 2, 3, h, w);
    return TE.compute(
        "Up",
        TE.shape(2, 3, h * f, w * f),
        (n, c, i, j) -> x.at(n, c, i.floordiv(f), j.floordiv(f)));
  }

  /** Depth to space by 2 of [1, 8, h, w]. */
  static Tensor pixelShuffle(int h, int w) {
    Tensor x = ph("P", 1, 8, h, w);
    return TE.compute(
        "Shuffled",
        TE.shape(1, 2, 2 * h, 2 * w),
        (n, c, i, j) ->
            x.at(
                n,
                c.mul(4).add(i.floormod(2).mul(2)).add(j.floormod(2)),
                i.floordiv(2),
                j.floordiv(2)));
  }

  private static String c(Tensor out) {
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    return CCodegen.generate(
        List.of(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null)), "m");
  }

  static Stream<Object[]> cases() {
    return Stream.of(
        new Object[] {"upsample 2x of 7x9", upsample(7, 9, 2), 2},
        new Object[] {"upsample 3x of 5x11", upsample(5, 11, 3), 3},
        new Object[] {"pixel shuffle of 6x13", pixelShuffle(6, 13), 2});
  }

  /** The phases are taken, unrolled (no division by the column left), and match the oracle. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void phasesMatchTheOracle(String name, Tensor out, int k) {
    String src = c(out);
    assertThat(src).doesNotContain("#pragma omp simd").doesNotContain("l / " + k);
    assertThat(src).contains("l_outer * " + k + ")");
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 0, 0);
    Schedule java = AutoScheduler.untuned(Target.JAVA, List.of(out));
    Check.check(java, OpSchedules.args(java), Map.of(), EnumSet.of(Check.Backend.JAVA), 0, 0);
  }

  /**
   * Columns not a multiple of the divisor, or reads contiguous along them: vectorized as before.
   */
  @Test
  void otherColumnsStayVectorized() {
    Tensor x = ph("R", 2, 3, 8, 9);
    Tensor ragged =
        TE.compute("Half", TE.shape(2, 3, 8, 17), (n, c, i, j) -> x.at(n, c, i, j.floordiv(2)));
    assertThat(c(ragged)).contains("#pragma omp simd");
    Tensor plain = TE.compute("Copy", TE.shape(2, 3, 8, 9), (n, c, i, j) -> x.at(n, c, i, j));
    assertThat(c(plain)).contains("#pragma omp simd");
  }
}
