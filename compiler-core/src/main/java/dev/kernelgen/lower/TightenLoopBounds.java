package dev.kernelgen.lower;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Folds guards on a loop's own variable into its bounds: {@code for v in [0, 8) { if (8*o + v < 21)
 * body }} becomes {@code for v in [0, min(8, 21 - 8*o)) body}, and {@code for o in [0, 49) { if
 * (2*o + p < 97) body }} {@code for o in [0, min(49, floordiv(98 - p, 2))) body}. Split tails and
 * regions that overhang a tensor leave such guards just inside the innermost loop they depend on;
 * without them the loop body is branch-free, which is what lets the C compiler vectorize it. Loops
 * bound to GPU threads keep their guards (the thread exists either way).
 */
final class TightenLoopBounds extends StmtMutator {
  static Stmt run(Stmt s) {
    return new TightenLoopBounds().mutate(s);
  }

  @Override
  public Stmt mutate(Stmt s) {
    Stmt m = mutateStmtChildren(s);
    if (!(m instanceof For f)
        || !(f.body() instanceof IfThenElse guard)
        || guard.elseCase() != null
        || f.kind() == ForKind.THREAD_BINDING
        || f.kind() == ForKind.VTHREAD) {
      return m;
    }
    Var v = f.loopVar();
    Expr lo = f.min();
    Expr hi = Simplifier.simplify(f.min().add(f.extent()));
    List<Expr> kept = new ArrayList<>();
    boolean changed = false;
    for (Expr c : TE.conjuncts(guard.condition())) {
      Bound b = bound(c, v, true);
      if (b == null) {
        kept.add(c);
      } else if (b.upper()) {
        hi = Simplifier.simplify(hi.min(b.value()));
        changed = true;
      } else {
        lo = Simplifier.simplify(lo.max(b.value()));
        changed = true;
      }
    }
    if (!changed) {
      return m;
    }
    Stmt body = guard.thenCase();
    if (!kept.isEmpty()) {
      Expr cond = kept.get(0);
      for (int k = 1; k < kept.size(); k++) {
        cond = cond.and(kept.get(k));
      }
      body = IfThenElse.of(cond, body);
    }
    Expr extent = Simplifier.simplify(hi.sub(lo).max(IntImm.like(hi, 0)));
    if (extent instanceof IntImm e && e.value() == 0) {
      // The guard never holds in the loop (a partition's tail past the end of a row).
      return dev.kernelgen.tir.Evaluate.nop();
    }
    return new For(v, lo, extent, f.kind(), f.threadTag(), f.pragmas(), body);
  }

  /** {@code v < value} (upper, exclusive) or {@code v >= value} (lower, inclusive). */
  record Bound(boolean upper, Expr value) {}

  /**
   * The bound {@code c} puts on {@code v}, when {@code c} is linear in it with coefficient 1 or -1
   * or, where {@code scaled}, with any positive constant coefficient.
   */
  static Bound bound(Expr c, Var v, boolean scaled) {
    if (!(c instanceof Binary b) || !b.a().dtype().isInt() || !FreeVars.uses(c, v)) {
      return null;
    }
    // Bring every comparison to "d < 0" or "d >= 0" with d = lhs - rhs (+ 1 for <=, > forms).
    Expr d;
    boolean upper;
    switch (b.op()) {
      case LT -> {
        d = b.a().sub(b.b());
        upper = true;
      }
      case LE -> {
        d = b.a().sub(b.b()).sub(1);
        upper = true;
      }
      case GT -> {
        d = b.b().sub(b.a());
        upper = true;
      }
      case GE -> {
        d = b.a().sub(b.b());
        upper = false;
      }
      default -> {
        return null;
      }
    }
    Expr rest = Simplifier.simplify(Substitute.apply(d, Map.of(v, IntImm.like(v, 0))));
    if (FreeVars.uses(rest, v)) {
      return null;
    }
    // Linear with coefficient 1: d == v + rest exactly.
    Expr check = Simplifier.simplify(d.sub(v).sub(rest));
    if (check instanceof IntImm z && z.value() == 0) {
      // upper: v + rest < 0  <=>  v < -rest;  lower: v + rest >= 0  <=>  v >= -rest.
      Expr value = Simplifier.simplify(IntImm.like(rest, 0).sub(rest));
      return new Bound(upper, value);
    }
    // Linear with coefficient -1 (a triangle: `k <= j` bounds j from below): -v + rest < 0  <=>  v
    // >= rest + 1;  -v + rest >= 0  <=>  v < rest + 1.
    Expr negated = Simplifier.simplify(d.add(v).sub(rest));
    if (negated instanceof IntImm z && z.value() == 0) {
      return new Bound(!upper, Simplifier.simplify(rest.add(IntImm.like(rest, 1))));
    }
    // Linear with a positive constant coefficient k (a loop split by k with its inner part
    // outside: `k * o + p < 97`): k v + rest < 0  <=>  v < ceil(-rest / k), and k v + rest >= 0
    // <=>  v >= ceil(-rest / k).
    Expr k = Simplifier.simplify(Substitute.apply(d, Map.of(v, IntImm.like(v, 1))).sub(rest));
    if (!scaled || !(k instanceof IntImm kk) || kk.value() < 2) {
      return null;
    }
    Expr linear = Simplifier.simplify(d.sub(v.mul(k)).sub(rest));
    if (!(linear instanceof IntImm z && z.value() == 0)) {
      return null;
    }
    Expr value =
        Simplifier.simplify(
            IntImm.like(rest, 0).sub(rest).add(IntImm.like(rest, kk.value() - 1)).floordiv(k));
    return new Bound(upper, value);
  }
}
