package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.Store;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link HoistInvariants}: costly loop-invariant expressions computed once, before the loop. */
class HoistInvariantsTest {
  /** A batch norm's shape: {@code (A[c, x] - M[c]) / sqrt(V[c] * V[c] + 1)} over [c, x]. */
  private static Tensor normalize(Object c, Object x) {
    Tensor a = placeholder("A", FLOAT32, c, x);
    Tensor m = placeholder("M", FLOAT32, c);
    Tensor v = placeholder("V", FLOAT32, c);
    return compute(
        "B",
        shape(c, x),
        (i, j) -> a.at(i, j).sub(m.at(i)).div(sqrt(v.at(i).mul(v.at(i)).add(1.0f))));
  }

  @Test
  void aSquareRootOfAPerChannelValueIsTakenOncePerChannel() {
    Tensor b = normalize(5, 13);
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    sb.parallel(sb.axis(0));
    sb.vectorize(sb.axis(1));
    String ir = PassIrTest.dumps(s, Target.C).get("hoist_invariants");
    assertThat(ir).as("the IR after hoist_invariants").isNotNull();
    // The let sits between the channel loop and the vectorized loop, which reads it.
    assertThat(ir.indexOf("let inv = sqrt(")).isPositive().isLessThan(ir.indexOf("vectorized"));
    assertThat(ir.substring(ir.indexOf("vectorized"))).doesNotContain("sqrt(").contains("/ inv");
    Check.check(s, Map.of());
  }

  @Test
  void nothingMovesOutOfASelectBranchOrALoopOfSymbolicLength() {
    // Under a select the loop evaluates the square root on some iterations only.
    Tensor a = placeholder("A", FLOAT32, 4, 9);
    Tensor v = placeholder("V", FLOAT32, 4);
    Tensor b =
        compute(
            "B", shape(4, 9), (i, j) -> select(j.gt(2), sqrt(v.at(i).mul(v.at(i))), a.at(i, j)));
    assertThat(PassIrTest.dumps(Schedule.create(b), Target.C))
        .doesNotContainKey("hoist_invariants");
    Check.check(Schedule.create(b), Map.of());
    // A loop of symbolic length may run no iteration: its loads are not evaluated ahead.
    Var n = var("n");
    Tensor c = normalize(3, n);
    assertThat(PassIrTest.dumps(Schedule.create(c), Target.C))
        .doesNotContainKey("hoist_invariants");
    Check.check(Schedule.create(c), Map.of(n, 7L));
  }

  @Test
  void aBufferTheLoopWritesIsNotReadAhead() {
    // for i in [0, 8): B[i] = A[0] / B[0]: B[0] changes in the first iteration.
    Buffer a = new Buffer("A", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(8)));
    Buffer b = new Buffer("B", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(8)));
    Var i = new Var("i", INT32);
    Stmt loop =
        new For(
            i,
            IntImm.of(0),
            IntImm.of(8),
            ForKind.SERIAL,
            null,
            List.of(),
            new Store(
                b, i, new Load(FLOAT32, a, IntImm.of(0)).div(new Load(FLOAT32, b, IntImm.of(0)))));
    assertThat(HoistInvariants.run(loop)).isSameAs(loop);
  }
}
