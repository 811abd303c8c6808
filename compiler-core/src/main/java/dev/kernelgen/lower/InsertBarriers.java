package dev.kernelgen.lower;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Inserts a barrier wherever shared memory written by some threads of a block is then read (or
 * overwritten) by others, and nowhere else: between the statements of a sequence, when a later one
 * reads a shared buffer an earlier one wrote (read after write) or writes one an earlier one read
 * (write after read); and at the end of a serial loop's body that reads a shared buffer the next
 * iteration writes, where that body is a cooperative phase structure already (it holds a barrier),
 * so that the loop runs uniformly across the block.
 */
final class InsertBarriers extends StmtMutator {
  static Stmt run(Stmt s) {
    return new InsertBarriers().mutate(new HoistSharedAllocations().mutate(s));
  }

  /**
   * Widens the scope of shared allocations over the statements before them in a sequence: {@code
   * [a, allocate X {b}]} becomes {@code allocate X {[a, b]}}, so that stages which fill several
   * shared buffers one after the other form one sequence and need one barrier, not one each.
   */
  private static final class HoistSharedAllocations extends StmtMutator {
    @Override
    public Stmt mutate(Stmt s) {
      Stmt m = mutateStmtChildren(s);
      if (m instanceof Seq q
          && q.stmts().getLast() instanceof Allocate a
          && a.buffer().scope() == MemoryScope.SHARED) {
        List<Stmt> inner = new ArrayList<>(q.stmts().subList(0, q.stmts().size() - 1));
        inner.add(a.body());
        return new Allocate(a.buffer(), a.size(), mutate(Seq.of(inner)));
      }
      return m;
    }
  }

  @Override
  public Stmt mutate(Stmt s) {
    Stmt m = mutateStmtChildren(s);
    if (m instanceof Seq q) {
      List<Stmt> out = new ArrayList<>();
      Set<Buffer> written = new HashSet<>();
      Set<Buffer> read = new HashSet<>();
      for (Stmt st : q.stmts()) {
        Access a = Access.of(st);
        boolean raw = a.reads.stream().anyMatch(written::contains);
        boolean war = a.writes.stream().anyMatch(read::contains);
        if ((raw || war) && !(st instanceof Barrier)) {
          out.add(new Barrier(MemoryScope.SHARED));
          written.clear();
          read.clear();
        }
        if (st instanceof Barrier) {
          written.clear();
          read.clear();
        }
        out.add(st);
        written.addAll(a.writes);
        read.addAll(a.reads);
      }
      return out.size() == q.stmts().size() ? q : Seq.of(out);
    }
    if (m instanceof For f && (f.kind() == ForKind.SERIAL || f.kind() == ForKind.UNROLLED)) {
      Access a = Access.of(f.body());
      if (a.barrier
          && a.reads.stream().anyMatch(a.writes::contains)
          && !endsWithBarrier(f.body())) {
        return f.withBody(Seq.of(f.body(), new Barrier(MemoryScope.SHARED)));
      }
    }
    return m;
  }

  private static boolean endsWithBarrier(Stmt s) {
    return s instanceof Barrier
        || s instanceof Seq q && !q.stmts().isEmpty() && q.stmts().getLast() instanceof Barrier;
  }

  /** The shared buffers a statement reads and writes. */
  private record Access(Set<Buffer> reads, Set<Buffer> writes, boolean barrier) {
    static Access of(Stmt s) {
      Set<Buffer> reads = new HashSet<>();
      Set<Buffer> writes = new HashSet<>();
      boolean[] barrier = {false};
      new StmtVisitor() {
        @Override
        public void visit(Stmt st) {
          barrier[0] |= st instanceof Barrier;
          if (st instanceof Store store && store.buffer().scope() == MemoryScope.SHARED) {
            writes.add(store.buffer());
          }
          super.visit(st);
        }

        @Override
        public void visit(Expr e) {
          if (e instanceof Load l && l.buffer().scope() == MemoryScope.SHARED) {
            reads.add(l.buffer());
          }
          super.visit(e);
        }
      }.visit(s);
      return new Access(reads, writes, barrier[0]);
    }
  }
}
