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
import dev.kernelgen.topi.Pooling;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Short reduce axes that walk one contiguous run are reduced as one loop, in vector lanes. */
class ContiguousReductionTest {
  private static String c(Schedule s) {
    return CCodegen.generate(
        List.of(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null)), "m");
  }

  /**
   * A global average pool over 7x7 planes sums each plane as one vectorized loop of 49 (over 14x14
   * in the floor table: 120 us as a scalar chain per plane, 13-14 us so, 2-core Zen 4); equal to
   * the oracle in C and Java.
   */
  @Test
  void aSmallPlaneIsSummedAsOneVectorLoop() {
    Tensor out = Pooling.globalAvgPool(TE.placeholder("X", FLOAT32, 2, 5, 7, 7));
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    assertThat(c(s)).containsPattern("for \\(int32_t \\w+_fused = 0; \\w+_fused < 49;");
    assertThat(c(s)).contains("#pragma omp simd reduction(+:");
    Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 1e-5, 1e-5);
    Schedule j = AutoScheduler.untuned(Target.JAVA, List.of(out));
    Check.check(j, OpSchedules.args(j), Map.of(), EnumSet.of(Check.Backend.JAVA), 1e-5, 1e-5);
  }

  /** A window over a plane's rows and a column each (not one run) keeps its loops. */
  @Test
  void aStridedWindowKeepsItsLoops() {
    Tensor x = TE.placeholder("Y", FLOAT32, 2, 5, 9, 9);
    var r = TE.reduceAxis(3, "r");
    var q = TE.reduceAxis(3, "q");
    Tensor out =
        TE.compute(
            "Corners",
            TE.shape(2, 5),
            (n, c) -> TE.sum(x.at(n, c, r.var().mul(4), q.var().mul(4)), r, q));
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    assertThat(c(s)).doesNotContain("_fused < 9;");
    Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 1e-5, 1e-5);
  }
}
