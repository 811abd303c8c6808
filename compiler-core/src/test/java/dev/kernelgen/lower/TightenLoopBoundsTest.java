package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link TightenLoopBounds} and {@link PartitionLoops} on guards linear in the loop variable with a
 * coefficient above 1: a padded row's loop split by k with its inner part outside (the copy of a
 * row stored as k phases) tests {@code k * o + p} against the row's ends, and the loop over {@code
 * o} is left without a branch. A loop of at most {@link PartitionLoops#SHORT_LOOP} iterations keeps
 * its select (gcc unrolls it whole).
 */
class TightenLoopBoundsTest {
  @ParameterizedTest(name = "{0} columns in phases of {1}")
  @CsvSource({"97, 2", "61, 3", "100, 3", "131, 4"})
  void aLoopOverOnePhaseOfAPaddedRowHasNoBranch(int width, int k) {
    Tensor a = placeholder("A", FLOAT32, 5, width - 1);
    Tensor padded =
        compute("Padded", shape(5, width), (i, j) -> select(j.lt(width - 1), a.at(i, j), 0.0f));
    Tensor b = compute("B", shape(5, width), (i, j) -> padded.at(i, j).mul(2.0f));
    Schedule s = Schedule.create(b);
    Stage sp = s.stage(padded);
    sp.computeAt(s.stage(b), s.stage(b).axis(0));
    Stage.Split split = sp.split(sp.axis(1), k);
    sp.reorder(split.inner(), split.outer());
    String ir = Lower.lower(s, "f", Target.C).body().show();
    try {
      java.nio.file.Files.writeString(java.nio.file.Path.of("/tmp/tlb-" + k + ".txt"), ir);
    } catch (Exception e) {
    }
    int first = ir.indexOf("for j.outer in");
    String copy = ir.substring(first, ir.indexOf("for j", first + 5));
    assertThat(copy)
        .as("the first loop over a phase: no guard, no select")
        .doesNotContain("if (")
        .doesNotContain("select(")
        .contains("floordiv(");
    Check.check(s, Map.of());
  }

  @org.junit.jupiter.api.Test
  void aShortLoopOverOnePhaseKeepsItsSelect() {
    Tensor a = placeholder("A", FLOAT32, 5, 28);
    Tensor padded = compute("Padded", shape(5, 29), (i, j) -> select(j.lt(28), a.at(i, j), 0.0f));
    Tensor b = compute("B", shape(5, 29), (i, j) -> padded.at(i, j).mul(2.0f));
    Schedule s = Schedule.create(b);
    Stage sp = s.stage(padded);
    sp.computeAt(s.stage(b), s.stage(b).axis(0));
    Stage.Split split = sp.split(sp.axis(1), 2);
    sp.reorder(split.inner(), split.outer());
    String ir = Lower.lower(s, "f", Target.C).body().show();
    assertThat(ir).as("15 iterations: one loop, its select kept").contains("select(");
    Check.check(s, Map.of());
  }
}
