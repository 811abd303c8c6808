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

  /**
   * A triangle: a prefix sum written as a masked reduction, its reduction outside the row ({@code
   * k} outer, {@code j} inner, vectorized) as the C pick orders it. The mask is the reduction's
   * condition ({@code TE.reduce}), and {@code k <= j} bounds {@code j} from below: the row's loop
   * starts at {@code k} and holds no branch (a user's [256,1024] prefix sum in C: 83-88 ms with the
   * branch, 4.4-4.5 ms without, 2-core Zen 4).
   */
  @org.junit.jupiter.api.Test
  void aTrianglesMaskBoundsTheInnerLoopFromBelow() {
    Tensor x = placeholder("X", FLOAT32, 3, 37);
    var k = reduceAxis(37, "k");
    Tensor y =
        compute(
            "Prefix", shape(3, 37), (i, j) -> sum(select(k.var().le(j), x.at(i, k.var()), 0.0), k));
    Schedule s = Schedule.create(y);
    Stage sy = s.stage(y);
    sy.reorder(sy.axis(0), sy.reduceAxis(0), sy.axis(1));
    sy.vectorize(sy.axis(1));
    String ir = Lower.lower(s, "f", Target.C).body().show();
    String row = ir.substring(ir.indexOf("vectorized"));
    assertThat(row).doesNotContain("if (").doesNotContain("select(");
    assertThat(ir).contains("max(k");
    Check.check(s, Map.of());
  }
}
