package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.INT32;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupSharedLoads}: a window's unrolled multiply-adds into several rows' sums ordered by
 * the input vector they read, every dependence kept. (Against the oracle and timed: {@code
 * autosched.CpuRowWindowTest}, the seed's 5x5 depthwise.)
 */
class GroupSharedLoadsTest {
  private final Var l = new Var("l", INT32);
  private final Buffer in = new Buffer("In", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(64)));
  private final Buffer w = new Buffer("W", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(4)));
  private final Buffer acc = new Buffer("Acc", FLOAT32, MemoryScope.LOCAL, List.of(IntImm.of(32)));

  /** {@code Acc[l + 16 r] += In[l + 8 (r + di) + dj] * W[2 di + dj]}. */
  private Store tap(int r, int di, int dj) {
    Expr sum = new Load(FLOAT32, acc, l.add(16 * r));
    Expr x = new Load(FLOAT32, in, l.add(8 * (r + di) + dj));
    return new Store(
        acc, l.add(16 * r), sum.add(x.mul(new Load(FLOAT32, w, IntImm.of(2 * di + dj)))));
  }

  private Stmt loop(List<Stmt> body) {
    return new For(
        l, IntImm.of(0), IntImm.of(16), ForKind.VECTORIZED, null, List.of(), Seq.of(body));
  }

  /** Two rows' sums of a 2x2 window, in the schedule's order (window row, column, output row). */
  private List<Stmt> twoRows() {
    List<Stmt> body = new ArrayList<>();
    body.add(new Store(acc, l, FloatImm.f32(0)));
    body.add(new Store(acc, l.add(16), FloatImm.f32(0)));
    for (int di = 0; di < 2; di++) {
      for (int dj = 0; dj < 2; dj++) {
        for (int r = 0; r < 2; r++) {
          body.add(tap(r, di, dj));
        }
      }
    }
    return body;
  }

  @Test
  void eachInputVectorsUsesFollowEachOther() {
    List<Stmt> body = twoRows();
    For out = (For) GroupSharedLoads.run(loop(body));
    List<Stmt> got = ((Seq) out.body()).stmts();
    // The sums' initial values first; then In[l], In[l+1], In[l+8] (row 0, tap 2; row 1, tap 0),
    // In[l+9] likewise, In[l+16], In[l+17]. Each sum's own order is the schedule's.
    assertThat(got)
        .containsExactly(
            body.get(0),
            body.get(1),
            tap(0, 0, 0),
            tap(0, 0, 1),
            tap(1, 0, 0),
            tap(0, 1, 0),
            tap(1, 0, 1),
            tap(0, 1, 1),
            tap(1, 1, 0),
            tap(1, 1, 1));
  }

  @Test
  void nothingMovesPastAStatementItDependsOn() {
    // After the second row's first tap, the sums are read back through a symbolic index (Acc[l *
    // 2]: any element): the first row's second tap (In[l + 1]) may not move before that read.
    List<Stmt> body = twoRows();
    Buffer out = new Buffer("Out", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(16)));
    body.add(4, new Store(out, l, new Load(FLOAT32, acc, l.mul(2))));
    assertThat(body.get(5)).isEqualTo(tap(0, 0, 1));
    Stmt s = loop(body);
    assertThat(GroupSharedLoads.run(s)).isSameAs(s);
    // Already in order, or a loop that is not vectorized: unchanged.
    Stmt serial = For.serial(l, IntImm.of(0), IntImm.of(16), Seq.of(twoRows()));
    assertThat(GroupSharedLoads.run(serial)).isSameAs(serial);
    Stmt sorted = GroupSharedLoads.run(loop(twoRows()));
    assertThat(GroupSharedLoads.run(sorted)).isSameAs(sorted);
  }
}
