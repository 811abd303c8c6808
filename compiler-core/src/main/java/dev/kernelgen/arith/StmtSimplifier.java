package dev.kernelgen.arith;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Not;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Accumulations;
import dev.kernelgen.tir.Evaluate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Simplifies a statement tree: every expression with the bounds of the loop and let variables in
 * scope, guards proved true or false resolved, single-iteration loops replaced by their body, and
 * no-op statements dropped.
 */
final class StmtSimplifier extends StmtMutator {
  private final Map<Var, ConstIntBound> bounds = new HashMap<>();
  private final ExprSimplifier exprs = new ExprSimplifier(bounds);

  @Override
  public Expr mutate(Expr e) {
    Expr r = exprs.mutate(e);
    return r.equals(e) ? e : r;
  }

  @Override
  public Stmt mutate(Stmt s) {
    return switch (s) {
      case For f -> loop(f);
      case LetStmt l -> let(l);
      case IfThenElse i -> ifThenElse(i);
      case Seq q -> seq(q);
      case Store st -> {
        Stmt m = mutateStmtChildren(st);
        yield m instanceof Store ms && addsNothing(ms) ? Evaluate.nop() : m;
      }
      default -> mutateStmtChildren(s);
    };
  }

  /**
   * {@code b[i] = b[i] + 0}: a reduction's step where a select gave its identity (a window's
   * padding, resolved at a border by {@code PartitionLoops}). A float's sign of zero aside (-0 + 0
   * is +0), it stores what is there.
   */
  private static boolean addsNothing(Store st) {
    return st.value() instanceof Binary b && b.op() == BinOp.ADD && isZero(Accumulations.value(st));
  }

  private static boolean isZero(Expr e) {
    return (e instanceof FloatImm f && f.value() == 0) || (e instanceof IntImm i && i.value() == 0);
  }

  private static boolean isNop(Stmt s) {
    return s instanceof Evaluate e && e.isNop();
  }

  /** Thread and virtual-thread loops define the launch geometry: they stay even when trivial. */
  private static boolean removable(ForKind kind) {
    return switch (kind) {
      case SERIAL, UNROLLED, VECTORIZED, PARALLEL -> true;
      case THREAD_BINDING, VTHREAD -> false;
    };
  }

  private Stmt loop(For f) {
    Expr min = mutate(f.min());
    Expr extent = mutate(f.extent());
    if (removable(f.kind()) && extent instanceof IntImm n) {
      if (n.value() <= 0) {
        return Evaluate.nop();
      }
      if (n.value() == 1) {
        // One iteration: the loop variable is its min. A constant or variable min is substituted;
        // anything else is computed once by a let.
        if (min instanceof IntImm || min instanceof Var) {
          return mutate(StmtMutator.substituteVars(f.body(), Map.of(f.loopVar(), min)));
        }
        return mutate(new LetStmt(f.loopVar(), min, f.body()));
      }
    }
    ConstIntBound bm = exprs.bound(min);
    ConstIntBound be = exprs.bound(extent);
    ConstIntBound loopBound =
        new ConstIntBound(
            bm.min(), ConstIntBound.addSat(bm.max(), ConstIntBound.addSat(be.max(), -1)));
    Stmt body = withBound(f.loopVar(), loopBound, () -> mutate(f.body()));
    if (isNop(body) && removable(f.kind())) {
      return Evaluate.nop();
    }
    return min == f.min() && extent == f.extent() && body == f.body()
        ? f
        : new For(f.loopVar(), min, extent, f.kind(), f.threadTag(), f.pragmas(), body);
  }

  private Stmt let(LetStmt l) {
    Expr value = mutate(l.value());
    Stmt body = withBound(l.var(), exprs.bound(value), () -> mutate(l.body()));
    if (isNop(body)) {
      return body;
    }
    return value == l.value() && body == l.body() ? l : new LetStmt(l.var(), value, body);
  }

  private Stmt ifThenElse(IfThenElse i) {
    Expr cond = mutate(i.condition());
    if (cond instanceof IntImm c) {
      if (c.value() != 0) {
        return mutate(i.thenCase());
      }
      return i.elseCase() == null ? Evaluate.nop() : mutate(i.elseCase());
    }
    Stmt thenCase = assuming(cond, () -> mutate(i.thenCase()));
    Stmt elseCase =
        i.elseCase() == null
            ? null
            : assuming(exprs.mutate(Not.of(cond)), () -> mutate(i.elseCase()));
    if (elseCase != null && isNop(elseCase)) {
      elseCase = null;
    }
    if (isNop(thenCase)) {
      if (elseCase == null) {
        return thenCase;
      }
      return IfThenElse.of(exprs.mutate(Not.of(cond)), elseCase);
    }
    return cond == i.condition() && thenCase == i.thenCase() && elseCase == i.elseCase()
        ? i
        : new IfThenElse(cond, thenCase, elseCase);
  }

  private Stmt seq(Seq q) {
    List<Stmt> out = new ArrayList<>();
    boolean changed = false;
    for (Stmt s : q.stmts()) {
      Stmt m = mutate(s);
      changed |= m != s;
      if (isNop(m)) {
        changed = true;
      } else {
        out.add(m);
      }
    }
    if (!changed) {
      return q;
    }
    return out.isEmpty() ? Evaluate.nop() : Seq.of(out);
  }

  private <T> T withBound(Var v, ConstIntBound b, Supplier<T> body) {
    ConstIntBound prev = bounds.put(v, b);
    try {
      return body.get();
    } finally {
      if (prev == null) {
        bounds.remove(v);
      } else {
        bounds.put(v, prev);
      }
    }
  }

  /**
   * Runs {@code body} knowing that {@code cond} holds: comparisons of a variable with an expression
   * of known bounds, joined by {@code &&}, narrow that variable's bound.
   */
  private <T> T assuming(Expr cond, Supplier<T> body) {
    if (cond instanceof Binary b && b.op() == BinOp.AND) {
      return assuming(b.a(), () -> assuming(b.b(), body));
    }
    if (cond instanceof Binary b && b.op().isComparison() && b.a().dtype().isInt()) {
      if (b.a() instanceof Var v) {
        return narrowed(v, b.op(), exprs.bound(b.b()), body);
      }
      if (b.b() instanceof Var v) {
        return narrowed(v, b.op().swapped(), exprs.bound(b.a()), body);
      }
    }
    return body.get();
  }

  /** Runs {@code body} knowing {@code v op x} for some {@code x} within {@code other}. */
  private <T> T narrowed(Var v, BinOp op, ConstIntBound other, Supplier<T> body) {
    ConstIntBound cur = exprs.bound(v);
    long lo = cur.min();
    long hi = cur.max();
    switch (op) {
      case LT -> hi = Math.min(hi, ConstIntBound.addSat(other.max(), -1));
      case LE -> hi = Math.min(hi, other.max());
      case GT -> lo = Math.max(lo, ConstIntBound.addSat(other.min(), 1));
      case GE -> lo = Math.max(lo, other.min());
      case EQ -> {
        lo = Math.max(lo, other.min());
        hi = Math.min(hi, other.max());
      }
      default -> {
        return body.get();
      }
    }
    if (lo > hi) {
      // The condition contradicts the bounds: the code is dead; leave it as it is.
      return body.get();
    }
    return withBound(v, new ConstIntBound(lo, hi), body);
  }
}
