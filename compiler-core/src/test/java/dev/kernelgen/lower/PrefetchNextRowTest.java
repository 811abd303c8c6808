package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Reduction;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A softmax's exponentials, computed from the cache, prefetch the next row's lines from memory on
 * C; rows of partial lines, and the other targets, are left alone; every variant equals the oracle.
 */
class PrefetchNextRowTest {
  private static String lowered(Schedule s, Target t) {
    return Lower.lower(s, "k", OpSchedules.args(s), t, null).toString();
  }

  @Test
  void theExpLoopOfASoftmaxPrefetchesTheNextRowLineByLine() {
    Tensor out = Reduction.softmax(placeholder("X", FLOAT32, 9, 128), 1);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    String c =
        CCodegen.generate(List.of(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null)), "m");
    // 128 floats: 8 lines of 16, each starting with the prefetch of row i + 1's line.
    assertThat(c).containsOnlyOnce("__builtin_prefetch(&X[");
    assertThat(c).contains("j_line < 8").contains("j_lane < 16").contains("if ((i + 1) < 9) {");
    Check.check(
        s,
        OpSchedules.args(s),
        Map.of(),
        EnumSet.of(Check.Backend.IR, Check.Backend.C, Check.Backend.JAVA),
        1e-5,
        1e-5);
  }

  @Test
  void aRowOfPartialLinesAndOtherTargetsAreLeftAlone() {
    Tensor out = Reduction.softmax(placeholder("X", FLOAT32, 5, 40), 1);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    assertThat(lowered(s, Target.C)).doesNotContain("_line");
    Tensor wide = Reduction.softmax(placeholder("X", FLOAT32, 5, 128), 1);
    Schedule j = AutoScheduler.untuned(Target.JAVA, List.of(wide));
    assertThat(lowered(j, Target.JAVA)).doesNotContain("_line");
    Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 1e-5, 1e-5);
  }

  /**
   * A reduction over the row (a log-sum-exp's sum of exponentials) keeps its one vector loop, so
   * that its accumulator is summed across lanes once per row, not once per line; the next row's
   * lines are prefetched before it.
   */
  @Test
  void aRowReductionIsNotCutIntoLines() {
    Tensor x = placeholder("X", FLOAT32, 9, 128);
    IterVar k = TE.reduceAxis(128, "k");
    IterVar k2 = TE.reduceAxis(128, "k2");
    Tensor m = TE.compute("RowMax", TE.shape(9), i -> TE.max(x.at(i, k.var()), k));
    Tensor out =
        TE.compute(
            "LogSumExp",
            TE.shape(9),
            i -> m.at(i).add(TE.log(TE.sum(TE.exp(x.at(i, k2.var()).sub(m.at(i))), k2))));
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    String c =
        CCodegen.generate(List.of(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null)), "m");
    assertThat(c).contains("__builtin_prefetch(&X[").contains("k2_line < 8");
    assertThat(c).doesNotContain("k2_lane");
    Check.check(
        s,
        OpSchedules.args(s),
        Map.of(),
        EnumSet.of(Check.Backend.IR, Check.Backend.C, Check.Backend.JAVA),
        1e-5,
        1e-5);
  }
}
