package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Reduction;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * On C, a row's first reduction (a softmax's maximum) of the next row runs inside this row's
 * exponentials' loop, with their sum; rows in tasks of consecutive rows; every variant equals the
 * oracle, ragged rows and tasks included.
 */
class NextRowReductionTest {
  private static String c(Schedule s) {
    return CCodegen.generate(
        List.of(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null)), "m");
  }

  @Test
  void aSoftmaxReducesTheNextRowInsideThisRowsExponentials() {
    // 130 rows: tasks of 3 (the last of 1), rows of 37 (no whole vector count).
    Tensor out = Reduction.softmax(placeholder("X", FLOAT32, 130, 37), 1);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    String src = c(s);
    assertThat(src).contains("i_task < 44").contains("float SoftmaxMax_next[1]");
    // One loop: this row's exponentials, their sum and the next row's maximum.
    assertThat(src).containsOnlyOnce("reduction(+:acc_1) reduction(max:acc_2)");
    String fused = src.substring(src.indexOf("reduction(+:acc_1) reduction(max:acc_2)"));
    fused = fused.substring(0, fused.indexOf("}"));
    // The next row, or in a task's last row the row itself (no branch to a loop without it).
    assertThat(fused).contains("kg_exp_f32(").contains("kg_min_i32(i_row + 1, ");
    assertThat(src).doesNotContain("if ((i_row + 1) <");
    Check.check(
        s,
        OpSchedules.args(s),
        Map.of(),
        EnumSet.of(Check.Backend.IR, Check.Backend.C, Check.Backend.JAVA),
        1e-5,
        1e-5);
  }

  @Test
  void largeOutputsStreamedAreFencedOnceATaskNotOnceARow() {
    // 32 MB of output and more: streaming stores. 8200 rows: tasks of 129 rows, the last of 73.
    Tensor out = Reduction.softmax(placeholder("X", FLOAT32, 8200, 1024), 1);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    String src = c(s);
    assertThat(src).contains("kg_stream_f32(").contains("i_task < 64");
    assertThat(src).containsOnlyOnce("_mm_sfence();");
    String task = src.substring(src.indexOf("for (int32_t i_task"));
    assertThat(task.indexOf("_mm_sfence();")).isGreaterThan(task.lastIndexOf("kg_stream_f32("));
    Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 1e-5, 1e-5);
  }

  @Test
  void fewRowsOtherTargetsAndOtherRowsAreLeftAlone() {
    // 64 rows or fewer: a row a task, nothing to overlap.
    Schedule few =
        AutoScheduler.untuned(
            Target.C, List.of(Reduction.softmax(placeholder("X", FLOAT32, 64, 128), 1)));
    assertThat(c(few)).doesNotContain("_next");
    Tensor wide = Reduction.softmax(placeholder("X", FLOAT32, 200, 128), 1);
    Schedule j = AutoScheduler.untuned(Target.JAVA, List.of(wide));
    assertThat(Lower.lower(j, "k", OpSchedules.args(j), Target.JAVA, null).toString())
        .doesNotContain("_next");
    // A layer norm: its first reduction (the mean) also reads only the input.
    Tensor x = placeholder("X", FLOAT32, 129, 40);
    Tensor ln =
        Nn.layerNorm(x, placeholder("G", FLOAT32, 40), placeholder("B", FLOAT32, 40), 1, 1e-5);
    Schedule l = AutoScheduler.untuned(Target.C, List.of(ln));
    Check.check(
        l,
        OpSchedules.args(l),
        Map.of(),
        EnumSet.of(Check.Backend.IR, Check.Backend.C),
        1e-4,
        1e-4);
    Check.check(
        AutoScheduler.untuned(Target.C, List.of(wide)),
        OpSchedules.args(AutoScheduler.untuned(Target.C, List.of(wide))),
        Map.of(),
        EnumSet.of(Check.Backend.C),
        1e-5,
        1e-5);
  }
}
