package dev.kernelgen.lower;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Accumulations;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The next row's first reduction inside this row's loop, on CPUs. Where a parallel loop over rows
 * starts each row with a vectorized reduction of the row of an input into one element (a softmax's
 * maximum) and later runs a vectorized loop of the same length (its exponentials), the rows are
 * taken in tasks of consecutive rows, and each row computes the next row's reduction in that later
 * loop (a task's last row its own again, unused): the next row's loads from memory overlap this
 * row's arithmetic in one instruction stream, where the reduction's own pass waited on memory alone
 * (a prefetch of the next row did not close the gap). A reduction right after that loop over what
 * it stored (the exponentials' sum) joins the same loop, so that the row is not read again. A
 * softmax over [16384, 1024] on 2 Zen 4 cores, AVX-512: 3.6-4.2 ms before, 3.06-3.10 ms after (ONNX
 * Runtime 3.6-4.3 ms).
 *
 * <p>Applies where the first reduction reads only inputs of the kernel (memory the loop does not
 * write) and nothing else in the row writes the reduced element. Each row's reductions run over the
 * same elements as before; a sum's lanes may be combined in another order.
 */
final class NextRowReduction {
  /**
   * This row, the next and the loop's row buffer must fit the L1 data cache together (32 KB on
   * common x86 cores): over rows of 4096 floats the fused loop was slower (a softmax [4096, 4096]
   * 3.8 -> 5.4 ms on 2 Zen 4 cores), this row's values coming back from L2.
   */
  static final long L1_BYTES = 32 * 1024;

  /** The parallel tasks the rows are cut into, at least: enough for the cores, few prologues. */
  static final int TASKS = 64;

  private NextRowReduction() {}

  static Stmt run(Stmt s) {
    return new StmtMutator() {
      @Override
      public Stmt mutate(Stmt st) {
        if (st instanceof For f && f.kind() == ForKind.PARALLEL) {
          Stmt t = rewrite(f);
          if (t != null) {
            return t;
          }
        }
        return mutateStmtChildren(st);
      }
    }.mutate(s);
  }

  private static Stmt rewrite(For p) {
    if (!(p.min() instanceof IntImm lo && lo.value() == 0)
        || !(p.extent() instanceof IntImm rowsImm)
        || rowsImm.value() < 2
        || !(p.body() instanceof Allocate a)
        || a.buffer().scope() != MemoryScope.LOCAL
        || !(a.size() instanceof IntImm one && one.value() == 1)) {
      return null;
    }
    Buffer m = a.buffer();
    List<Stmt> body = a.body() instanceof Seq q ? q.stmts() : List.of(a.body());
    if (body.size() < 3
        || !(body.get(0) instanceof Store init)
        || init.buffer() != m
        || !isZero(init.index())
        || !readsOnly(init.value(), List.of())
        || !(body.get(1) instanceof For red)
        || red.kind() != ForKind.VECTORIZED
        || !red.pragmas().isEmpty()
        || !isZero(red.min())
        || !(red.extent() instanceof IntImm len)) {
      return null;
    }
    Var row = p.loopVar();
    Expr value = accumulated(red, m);
    if (value == null
        || !FreeVars.of(value).contains(row)
        || !readsOnly(value, StmtVisitor.storedBuffers(p.body()))) {
      return null;
    }
    BinOp op = ((Binary) ((Store) red.body()).value()).op();
    Stmt rest = Seq.of(body.subList(2, body.size()));
    if (StmtVisitor.storedBuffers(rest).contains(m)) {
      return null;
    }
    Buffer next = new Buffer(m.name() + "_next", m.dtype(), MemoryScope.LOCAL, m.shape());
    Var task = new Var(row.name() + "_task", row.dtype());
    Var inTask = new Var(row.name() + "_row", row.dtype());
    long rows = rowsImm.value();
    long perTask = Math.max(1, (rows + TASKS - 1) / TASKS);
    if (perTask < 2 || 3 * len.value() * m.dtype().bytes() > L1_BYTES) {
      return null; // a row a task: no next row to overlap; or rows the cache does not hold
    }
    long tasks = (rows + perTask - 1) / perTask;
    Expr first = task.mul(perTask);
    Expr taskRows =
        rows % perTask == 0
            ? IntImm.of(row.dtype(), perTask)
            : Simplifier.simplify(
                IntImm.of(row.dtype(), rows).sub(first).min(IntImm.of(row.dtype(), perTask)));
    Stmt nextInit = new Store(next, IntImm.of(0), init.value());
    // A task's last row reduces itself again (its result unused) rather than branch to a loop
    // without the next row: a branch in the row loop made gcc keep a scalar copy of the fused
    // loop, run for some rows (16x slower each; 3.3 -> 3.6 ms on the softmax above).
    Expr nextRowIndex = first.add(Simplifier.simplify(inTask.add(1).min(taskRows.sub(1))));
    Fuser fuser =
        new Fuser(
            len.value(),
            (j) ->
                accumulate(
                    next, op, Substitute.apply(value, Map.of(row, nextRowIndex, red.loopVar(), j))),
            nextInit);
    Stmt newRest = fuser.mutate(rest);
    if (!fuser.done) {
      return null;
    }
    Stmt perRow =
        new Allocate(
            m, a.size(), Seq.of(new Store(m, IntImm.of(0), Load.of(next, IntImm.of(0))), newRest));
    perRow = StmtMutator.substituteVars(perRow, Map.of(row, first.add(inTask)));
    Var r0 = new Var(red.loopVar().name() + "_first", red.loopVar().dtype());
    Stmt prologue =
        Seq.of(
            nextInit,
            new For(
                r0,
                red.min(),
                len,
                ForKind.VECTORIZED,
                null,
                List.of(),
                accumulate(
                    next, op, Substitute.apply(value, Map.of(row, first, red.loopVar(), r0)))));
    Stmt taskBody =
        new Allocate(
            next,
            IntImm.of(1),
            Seq.of(
                prologue,
                new For(
                    inTask,
                    IntImm.of(row.dtype(), 0),
                    taskRows,
                    ForKind.SERIAL,
                    null,
                    List.of(),
                    perRow)));
    return new For(
        task,
        IntImm.of(row.dtype(), 0),
        IntImm.of(row.dtype(), tasks),
        ForKind.PARALLEL,
        null,
        p.pragmas(),
        taskBody);
  }

  /**
   * Finds the row's first vectorized loop of {@code len} iterations (through the allocations and
   * lets around it) and runs it with the next row's reduction, and with the reduction that follows
   * it over what it stored.
   */
  private static final class Fuser extends StmtMutator {
    private final long len;
    private final java.util.function.Function<Var, Stmt> nextRow;
    private final Stmt nextInit;
    boolean done;

    Fuser(long len, java.util.function.Function<Var, Stmt> nextRow, Stmt nextInit) {
      this.len = len;
      this.nextRow = nextRow;
      this.nextInit = nextInit;
    }

    @Override
    public Stmt mutate(Stmt st) {
      if (done) {
        return st;
      }
      if (st instanceof Seq q) {
        List<Stmt> ss = q.stmts();
        for (int k = 0; k < ss.size(); k++) {
          if (candidate(ss.get(k))) {
            For g = (For) ss.get(k);
            done = true;
            Stmt after = Seq.of(ss.subList(k + 1, ss.size()));
            List<Stmt> out = new ArrayList<>(ss.subList(0, k));
            out.add(withFollowingSum(g, after));
            return Seq.of(out);
          }
          Stmt m = mutate(ss.get(k));
          if (done) {
            List<Stmt> out = new ArrayList<>(ss);
            out.set(k, m);
            return Seq.of(out);
          }
        }
        return st;
      }
      if (candidate(st)) {
        done = true;
        return withFollowingSum((For) st, null);
      }
      if (st instanceof Allocate || st instanceof LetStmt) {
        return mutateStmtChildren(st);
      }
      return st;
    }

    private boolean candidate(Stmt st) {
      return st instanceof For g
          && g.kind() == ForKind.VECTORIZED
          && g.pragmas().isEmpty()
          && isZero(g.min())
          && g.extent() instanceof IntImm e
          && e.value() == len
          && g.body() instanceof Store s
          && s.buffer().scope() == MemoryScope.LOCAL
          && FreeVars.of(s.index()).contains(g.loopVar());
    }

    /**
     * {@code g} with the next row's reduction; where {@code after} is an allocation of one element
     * that starts with its initial value and a vectorized reduction over exactly what {@code g}
     * stored, that reduction joins {@code g}'s loop too.
     */
    private Stmt withFollowingSum(For g, Stmt after) {
      Var j = g.loopVar();
      Store store = (Store) g.body();
      if (after instanceof Allocate s
          && s.size() instanceof IntImm one
          && one.value() == 1
          && s.body() instanceof Seq q
          && q.stmts().size() >= 2
          && q.stmts().get(0) instanceof Store sInit
          && sInit.buffer() == s.buffer()
          && readsOnly(sInit.value(), List.of())
          && q.stmts().get(1) instanceof For sum
          && sum.kind() == ForKind.VECTORIZED
          && sum.pragmas().isEmpty()
          && isZero(sum.min())
          && sum.extent().equals(g.extent())) {
        Expr v = accumulated(sum, s.buffer());
        Expr mine =
            Load.of(store.buffer(), Substitute.apply(store.index(), Map.of(j, sum.loopVar())));
        if (v != null && v.equals(mine)) {
          BinOp sop = ((Binary) ((Store) sum.body()).value()).op();
          Stmt loop =
              new For(
                  j,
                  g.min(),
                  g.extent(),
                  g.kind(),
                  null,
                  List.of(),
                  Seq.of(
                      store,
                      accumulate(s.buffer(), sop, Load.of(store.buffer(), store.index())),
                      nextRow.apply(j)));
          List<Stmt> tail = new ArrayList<>(List.of(sInit, nextInit, loop));
          tail.addAll(q.stmts().subList(2, q.stmts().size()));
          return new Allocate(s.buffer(), s.size(), Seq.of(tail));
        }
      }
      Stmt loop =
          new For(
              j, g.min(), g.extent(), g.kind(), null, List.of(), Seq.of(store, nextRow.apply(j)));
      return Seq.of(nextInit, loop, after);
    }
  }

  private static Stmt accumulate(Buffer b, BinOp op, Expr v) {
    return new Store(b, IntImm.of(0), new Binary(op, Load.of(b, IntImm.of(0)), v));
  }

  /** The value {@code f} accumulates into element 0 of {@code into} (see {@link Accumulations}). */
  private static Expr accumulated(For f, Buffer into) {
    Store st = Accumulations.of(f);
    return st != null && st.buffer() == into && isZero(st.index()) ? Accumulations.value(st) : null;
  }

  private static boolean isZero(Expr e) {
    return e instanceof IntImm i && i.value() == 0;
  }

  /** Whether {@code e} reads only global memory, none of it among {@code written}. */
  private static boolean readsOnly(Expr e, java.util.Collection<Buffer> written) {
    boolean[] ok = {true};
    new StmtVisitor() {
      @Override
      public void visit(Expr x) {
        if (x instanceof Load l
            && (l.buffer().scope() != MemoryScope.GLOBAL || written.contains(l.buffer()))) {
          ok[0] = false;
        }
        super.visit(x);
      }
    }.visit(e);
    return ok[0];
  }
}
