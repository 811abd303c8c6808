package dev.kernelgen.lower;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Loop coalescing over a row pitch (C): a serial loop over {@code H} rows around a vectorized loop
 * over {@code W < P} columns, where every buffer the body reads or writes is laid out in rows of
 * the same pitch {@code P}, becomes one vectorized loop over the {@code (H - 1) * P + W} positions
 * from the first row's start to the last row's end. The {@code P - W} positions between two rows
 * are computed too (from whatever the reads find there) and stored to columns that nothing reads. A
 * row of 21 columns runs as one vector of 16 and a scalar remainder of 5 at AVX-512 (8, 8 and 5 at
 * AVX2) and a plane of 21 such rows as 30 whole vectors: the seed's 3x3 depthwise convolution over
 * [1,256,21,21], its plane summed at the padded input's pitch (23) by {@link
 * dev.kernelgen.topi.DepthwiseSchedules#cpu}, ran 50-60 us by rows and 35-37 us coalesced, on a
 * 2-core Zen 4 (AVX-512). (The Java target has the same idea in its printer, {@link
 * dev.kernelgen.codegen.JavaRowFlatten}, for rows computed per output row into a row buffer.)
 *
 * <p>Applies where the row loop is serial from 0 over a constant extent above 1, the column loop is
 * vectorized from 0 over a constant extent, its body only stores (no loops, branches or lets),
 * every index in it moves by 1 along the column and by {@code P} along the row (or, for a read, by
 * neither: a value broadcast over the rows), and the loop variables appear in indices only. The
 * columns past {@code W} are written only where that is safe: the stored buffers are allocated in
 * the kernel, each store starts at column 0 of its row, and every read of a stored buffer anywhere
 * in the kernel stays within the columns every such loop computes. Reads never leave the range the
 * rows read before: the loop ends at the last row's end.
 */
final class CoalescePitchedRows {
  private CoalescePitchedRows() {}

  /** A row loop that may be coalesced: its pitch, its width and the buffers it stores. */
  private record Candidate(long pitch, long width, Set<Buffer> stored) {}

  static Stmt run(Stmt s) {
    Set<Buffer> local = Collections.newSetFromMap(new IdentityHashMap<>());
    Map<For, Candidate> candidates = new IdentityHashMap<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt st) {
        if (st instanceof Allocate a) {
          local.add(a.buffer());
        }
        if (st instanceof For f) {
          Candidate c = candidate(f);
          if (c != null) {
            candidates.put(f, c);
          }
        }
        super.visit(st);
      }
    }.visit(s);
    // The columns each buffer's coalesced loops leave valid: reads must stay below them.
    Map<Buffer, Long> validColumns = new IdentityHashMap<>();
    for (Candidate c : candidates.values()) {
      for (Buffer b : c.stored()) {
        validColumns.merge(b, c.width(), Math::min);
      }
    }
    Set<Buffer> unsafe = unsafeBuffers(s, local, validColumns, candidates);
    return new StmtMutator() {
      @Override
      public Stmt mutate(Stmt st) {
        if (st instanceof For f && candidates.containsKey(f)) {
          Candidate c = candidates.get(f);
          if (c.stored().stream().noneMatch(unsafe::contains)) {
            Stmt out = coalesce(f, c);
            if (out != null) {
              return out;
            }
          }
        }
        return mutateStmtChildren(st);
      }
    }.mutate(s);
  }

  /** {@code f} as a row loop to coalesce, or null. */
  private static Candidate candidate(For f) {
    if (f.kind() != ForKind.SERIAL
        || !isZero(f.min())
        || !(f.extent() instanceof IntImm rows)
        || rows.value() < 2
        || !(f.body() instanceof For inner)
        || inner.kind() != ForKind.VECTORIZED
        || !isZero(inner.min())
        || !(inner.extent() instanceof IntImm cols)
        || Store.sequence(inner.body()) == null) {
      return null;
    }
    Var row = f.loopVar();
    Var col = inner.loopVar();
    long[] pitch = {-1};
    boolean[] ok = {true};
    Set<Buffer> stored = Collections.newSetFromMap(new IdentityHashMap<>());
    new StmtVisitor() {
      @Override
      public void visit(Stmt st) {
        if (st instanceof Store store) {
          stored.add(store.buffer());
          ok[0] &= pitched(store.index());
          // Each row's stores start at its column 0, so that the positions between rows are the
          // columns past the width.
          Expr start = Substitute.apply(store.index(), Map.of(row, zero(row), col, zero(col)));
          ok[0] &=
              Simplifier.simplify(start) instanceof IntImm c
                  && pitch[0] > 0
                  && Math.floorMod(c.value(), pitch[0]) == 0;
        }
        super.visit(st);
      }

      @Override
      public void visit(Expr e) {
        if (e instanceof Load l) {
          ok[0] &= invariant(l.index()) || pitched(l.index());
        }
        super.visit(e);
      }

      private boolean invariant(Expr index) {
        return !FreeVars.uses(index, row) && !FreeVars.uses(index, col);
      }

      private boolean pitched(Expr index) {
        Long alongCol = Simplifier.step(index, col);
        Long alongRow = Simplifier.step(index, row);
        if (alongCol == null || alongCol != 1 || alongRow == null) {
          return false;
        }
        if (pitch[0] < 0) {
          pitch[0] = alongRow;
        }
        return alongRow == pitch[0];
      }
    }.visit(inner.body());
    long span = (rows.value() - 1) * pitch[0] + cols.value();
    if (!ok[0]
        || pitch[0] <= cols.value()
        || (col.dtype() == DType.INT32 && span > Integer.MAX_VALUE)) {
      return null;
    }
    return new Candidate(pitch[0], cols.value(), stored);
  }

  /**
   * The buffers whose columns past a coalesced loop's width must not be written: not allocated in
   * the kernel, or read somewhere at a column that may lie past it.
   */
  private static Set<Buffer> unsafeBuffers(
      Stmt s, Set<Buffer> local, Map<Buffer, Long> validColumns, Map<For, Candidate> candidates) {
    Set<Buffer> unsafe = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Buffer b : validColumns.keySet()) {
      if (!local.contains(b)) {
        unsafe.add(b);
      }
    }
    Map<Buffer, Long> pitchOf = new IdentityHashMap<>();
    for (Candidate c : candidates.values()) {
      for (Buffer b : c.stored()) {
        if (pitchOf.containsKey(b) && pitchOf.get(b) != c.pitch()) {
          unsafe.add(b);
        }
        pitchOf.put(b, c.pitch());
      }
    }
    Deque<For> loops = new ArrayDeque<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt st) {
        if (st instanceof For f) {
          loops.push(f);
          super.visit(st);
          loops.pop();
          return;
        }
        super.visit(st);
      }

      @Override
      public void visit(Expr e) {
        if (e instanceof Load l && validColumns.containsKey(l.buffer())) {
          Buffer b = l.buffer();
          if (!readsWithin(l.index(), pitchOf.get(b), validColumns.get(b), loops)) {
            unsafe.add(b);
          }
        }
        super.visit(e);
      }
    }.visit(s);
    return unsafe;
  }

  /**
   * Whether {@code index}, under the enclosing {@code loops}, reads only columns below {@code
   * width} of rows of {@code pitch}: it moves by a multiple of the pitch along every loop but at
   * most one, along which it moves by 1 over a constant range.
   */
  private static boolean readsWithin(Expr index, long pitch, long width, Deque<For> loops) {
    Map<Var, Expr> atZero = new HashMap<>();
    For along = null;
    Set<Var> free = FreeVars.of(index);
    for (For f : loops) {
      Var v = f.loopVar();
      if (!free.contains(v)) {
        continue;
      }
      atZero.put(v, zero(v));
      Long d = Simplifier.step(index, v);
      if (d == null) {
        return false;
      }
      if (Math.floorMod(d, pitch) == 0) {
        continue;
      }
      if (d != 1 || along != null) {
        return false;
      }
      along = f;
    }
    for (Var v : free) {
      if (!atZero.containsKey(v)) {
        return false; // a variable bound elsewhere (a let): its column is unknown
      }
    }
    if (!(Simplifier.simplify(Substitute.apply(index, atZero)) instanceof IntImm base)) {
      return false;
    }
    long first = base.value();
    long count = 1;
    if (along != null) {
      if (!(along.min() instanceof IntImm mn) || !(along.extent() instanceof IntImm ext)) {
        return false;
      }
      first += mn.value();
      count = ext.value();
    }
    long column = Math.floorMod(first, pitch);
    return column + count <= width;
  }

  /** The loop nest {@code f} (rows around columns) as one vectorized loop over the positions. */
  private static Stmt coalesce(For f, Candidate c) {
    For inner = (For) f.body();
    Var row = f.loopVar();
    Var col = inner.loopVar();
    Var pos = new Var(row.name() + "_" + col.name() + "_pitched", col.dtype());
    long span = (((IntImm) f.extent()).value() - 1) * c.pitch() + c.width();
    Map<Var, Expr> toPos = Map.of(row, zero(row), col, pos);
    Stmt body =
        new StmtMutator() {
          @Override
          public Expr mutate(Expr e) {
            if (e instanceof Load l) {
              return Load.of(l.buffer(), Simplifier.simplify(Substitute.apply(l.index(), toPos)));
            }
            return mutateChildren(e);
          }

          @Override
          public Stmt mutate(Stmt st) {
            if (st instanceof Store store) {
              return new Store(
                  store.buffer(),
                  Simplifier.simplify(Substitute.apply(store.index(), toPos)),
                  mutate(store.value()));
            }
            return mutateStmtChildren(st);
          }
        }.mutate(inner.body());
    boolean[] leftover = {false};
    new StmtVisitor() {
      @Override
      public void visit(Expr e) {
        leftover[0] |= e.equals(row) || e.equals(col);
        super.visit(e);
      }
    }.visit(body);
    if (leftover[0]) {
      return null; // a loop variable outside an index (a value computed from the column)
    }
    return new For(
        pos,
        IntImm.like(col, 0),
        IntImm.like(col, span),
        ForKind.VECTORIZED,
        null,
        inner.pragmas(),
        body);
  }

  private static boolean isZero(Expr e) {
    return e instanceof IntImm i && i.value() == 0;
  }

  private static Expr zero(Var v) {
    return IntImm.like(v, 0);
  }
}
