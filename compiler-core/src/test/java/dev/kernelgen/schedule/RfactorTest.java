package dev.kernelgen.schedule;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.OpSchedules;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code rfactor}: a reduction's partial results side by side over a data-parallel axis, then
 * combined. Checked against the oracle on every CPU backend and on the GPU interpreter, ragged and
 * symbolic extents included.
 */
class RfactorTest {
  /** The sum of each row of an [rows, cols] matrix. */
  private static Tensor rowSum(Object rows, Object cols) {
    Tensor a = placeholder("A", FLOAT32, rows, cols);
    IterVar k = reduceAxis(cols, "k");
    return compute("RowSum", shape(rows), i -> TE.sum(a.at(i, k.var()), k));
  }

  private static IterVar k(Schedule s, Tensor t) {
    return s.stage(t).reduceAxis(0);
  }

  @Test
  void aRaggedSumFactoredAndVectorizedMatchesTheOracle() {
    for (int cols : new int[] {1003, 1024, 5}) {
      Tensor out = rowSum(3, cols);
      Schedule s = Schedule.create(out);
      Tensor rf = s.rfactor(out, k(s, out), 16);
      // The partial sums' axis innermost and vectorized: no reduction carried across lanes.
      Stage st = s.stage(rf);
      st.reorder(st.axis(0), st.reduceAxis(0), st.axis(1));
      st.vectorize(st.axis(1));
      Check.check(s, Map.of());
      assertThat(rf.shape()).hasSize(2);
    }
  }

  @Test
  void theFactoredAxisRunsInParallelOnC() {
    Tensor out = rowSum(1, 100_000);
    Schedule s = Schedule.create(out);
    Tensor rf = s.rfactor(out, k(s, out), 8);
    s.stage(rf).reorder(s.stage(rf).axis(1), s.stage(rf).axis(0));
    s.stage(rf).parallel(s.stage(rf).axis(1));
    Check.check(
        s, OpSchedules.args(s), Map.of(), java.util.EnumSet.of(Check.Backend.C), 1e-3, 1e-3);
    String c =
        CCodegen.generate(List.of(Lower.lower(s, "rs", OpSchedules.args(s), Target.C, null)), "m");
    assertThat(c).contains("#pragma omp parallel for");
  }

  @Test
  void contiguousPartsInParallelWithTheirChunksInLanesMatchTheOracle() {
    Var n = new Var("n");
    for (Object cols : new Object[] {1003, 1024, 3, n}) {
      Tensor out = rowSum(2, cols);
      Schedule s = Schedule.create(out);
      Tensor rf = s.rfactorParts(out, k(s, out), 4);
      Stage st = s.stage(rf);
      st.parallel(st.fuse(st.axis(0), st.axis(1)));
      st.vectorizeReduction(st.reduceAxis(0));
      assertThat(s.trace().toString()).contains("s[RowSum].rfactor_parts(k, 4)");
      Schedule fresh = Schedule.create(out);
      Trace.replay(s.trace().steps(), fresh);
      for (long c : cols == n ? new long[] {1, 5, 4099} : new long[] {0}) {
        Map<Var, Long> dims = cols == n ? Map.of(n, c) : Map.of();
        Check.check(s, dims);
        Check.check(fresh, dims);
      }
    }
  }

  @Test
  void aMaxOverASymbolicExtentMatchesTheOracle() {
    Var n = new Var("n");
    Tensor a = placeholder("A", FLOAT32, 4, n);
    IterVar k = reduceAxis(n, "k");
    Tensor out = compute("RowMax", shape(4), i -> TE.max(a.at(i, k.var()), k));
    Schedule s = Schedule.create(out);
    s.rfactor(out, k(s, out), 4);
    for (long cols : new long[] {1, 7, 64}) {
      Check.check(s, Map.of(n, cols));
    }
  }

  @Test
  void aReductionWithTwoAxesKeepsTheOtherInThePartialResults() {
    Tensor a = placeholder("A", FLOAT32, 6, 9, 13);
    IterVar i = reduceAxis(9, "i");
    IterVar j = reduceAxis(13, "j");
    Tensor out = compute("Plane", shape(6), b -> TE.sum(a.at(b, i.var(), j.var()), i, j));
    Schedule s = Schedule.create(out);
    s.rfactor(out, s.stage(out).reduceAxis(1), 4);
    Check.check(s, Map.of());
  }

  @Test
  void theFactoredPartialsBoundToThreadsMatchTheOracleOnTheGpuInterpreter() {
    Tensor out = rowSum(5, 777);
    Schedule s = Schedule.create(out);
    Tensor rf = s.rfactor(out, k(s, out), 32);
    Stage st = s.stage(rf);
    st.bind(st.axis(0), "blockIdx.x");
    st.bind(st.axis(1), "threadIdx.x");
    s.stage(out).bind(s.stage(out).axis(0), "blockIdx.x");
    GpuCheck.check(s, Map.of());
  }

  @Test
  void theTraceReplaysOnAFreshSchedule() {
    Tensor out = rowSum(3, 50);
    Schedule s = Schedule.create(out);
    Tensor rf = s.rfactor(out, k(s, out), 8);
    s.stage(rf).vectorize(s.stage(rf).axis(1));
    assertThat(s.trace().toString()).contains("s[RowSum].rfactor(k, 8)");
    Schedule fresh = Schedule.create(out);
    Trace.replay(s.trace().steps(), fresh);
    assertThat(fresh.trace().toString()).isEqualTo(s.trace().toString());
    Check.check(fresh, Map.of());
  }

  @Test
  void mistakesAreUserErrors() {
    Tensor out = rowSum(3, 50);
    Schedule s = Schedule.create(out);
    Tensor a = s.inputs().get(0);
    assertThatThrownBy(() -> s.rfactor(a, k(s, out), 4))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("not a reduction");
    assertThatThrownBy(() -> s.rfactor(out, k(s, out), 1))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("at least 2");
    assertThatThrownBy(() -> s.rfactor(out, s.stage(out).axis(0), 4))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("not one of its reduce axes");
    s.stage(out).split(s.stage(out).axis(0), 2);
    assertThatThrownBy(() -> s.rfactor(out, k(s, out), 4))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("before its loops are split");
  }
}
