package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.pow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.OpSchedules;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Powers by constant multiples of 1/4 become products and square roots in every target's kernel,
 * equal to the oracle's {@code pow} (negative bases with integer exponents included); other
 * exponents keep the call.
 */
class ExpandPowTest {
  private static final double[] EXPANDED = {
    2, 3, 4, -1, -2, 0.5, -0.5, 0.25, 0.75, 1.5, -1.25, 2.75
  };

  private static Schedule power(double y, boolean positive) {
    Tensor x = placeholder("X", FLOAT32, 37, 19);
    Tensor out =
        compute(
            "P",
            x.shape(),
            (i, j) -> {
              var base = positive ? TE.abs(x.at(i, j)).add(0.125) : x.at(i, j).add(0.0625);
              return pow(base, FloatImm.f32(y));
            });
    Schedule s = Schedule.create(List.of(out));
    s.stage(out).parallel(s.stage(out).axis(0));
    return s;
  }

  private static String c(Schedule s) {
    return CCodegen.generate(
        List.of(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null)), "m");
  }

  @Test
  void quarterPowersAreProductsAndSquareRootsEqualToPow() {
    for (double y : EXPANDED) {
      boolean integer = y == Math.rint(y);
      Schedule s = power(y, !integer);
      assertThat(c(s)).as("x^%s", y).doesNotContain("powf(");
      Check.check(
          s,
          OpSchedules.args(s),
          Map.of(),
          EnumSet.of(Check.Backend.IR, Check.Backend.C, Check.Backend.JAVA),
          1e-6,
          1e-6);
    }
  }

  @Test
  void otherExponentsKeepTheCall() {
    for (double y : new double[] {0.3, 5, -4.5, 1.0 / 3}) {
      assertThat(c(power(y, true))).as("x^%s", y).contains("powf(");
    }
    assertThat(ExpandPow.expand(FloatImm.f32(2), 0)).isNull();
  }
}
