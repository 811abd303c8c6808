package dev.kernelgen.arith;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;

/**
 * The min and max rules of {@link ExprSimplifier}: constant folding, the operand that the bounds
 * prove smaller or larger, nested constants merged, a constant operand second; and the bound of a
 * sum tightened through its min and max terms ({@link #relaxedBound}), which both these rules and
 * the comparisons use.
 */
final class MinMaxRules {
  private final ExprSimplifier simplifier;

  MinMaxRules(ExprSimplifier simplifier) {
    this.simplifier = simplifier;
  }

  Expr minMax(BinOp op, Expr a, Expr b) {
    boolean isMin = op == BinOp.MIN;
    if (a instanceof IntImm x && b instanceof IntImm y) {
      return ConstantFolding.foldInt(op, x, y);
    }
    if (a instanceof IntImm) {
      // A constant operand second, so that min(64, x) and min(x, 64) are one term of a sum, and
      // the rule for nested constants below sees max(2, max(x, 0)) as max(max(x, 0), 2).
      Expr t = a;
      a = b;
      b = t;
    }
    if (a.equals(b)) {
      return a;
    }
    try {
      ConstIntBound d = relaxedBound(simplifier.linear(a, true).minus(simplifier.linear(b, true)));
      if (d.max() <= 0) {
        return isMin ? a : b;
      }
      if (d.min() >= 0) {
        return isMin ? b : a;
      }
    } catch (ArithmeticException overflow) {
      // Undecided.
    }
    // min(min(x, c1), c2) = min(x, min(c1, c2)).
    if (b instanceof IntImm c2
        && a instanceof Binary inner
        && inner.op() == op
        && inner.b() instanceof IntImm c1) {
      return Binary.of(op, inner.a(), ConstantFolding.foldInt(op, c1, c2));
    }
    return Binary.of(op, a, b);
  }

  /** How many min/max terms {@link #relaxedBound} replaces, one after the other, at most. */
  private static final int RELAX_DEPTH = 2;

  /**
   * The bound of {@code d}, tightened where it holds min or max terms. Since {@code min(p, q) <= p}
   * and {@code max(p, q) >= p}, an upper bound of {@code d} may replace a term {@code k*min(p, q)}
   * ({@code k > 0}) or {@code k*max(p, q)} ({@code k < 0}) by the same multiple of either operand,
   * and a lower bound the other two; the operand's own terms may then cancel others of the sum: the
   * extent {@code min(x, 64) - max(min(x, 64), 0)} of an empty loop that partitioning left is at
   * most 0, which the term-by-term bound cannot see.
   */
  ConstIntBound relaxedBound(LinearForm d) {
    ConstIntBound b = d.bound(simplifier.analyzer());
    boolean any = false;
    for (Expr t : d.terms.keySet()) {
      any |= t instanceof Binary m && (m.op() == BinOp.MIN || m.op() == BinOp.MAX);
    }
    if (!any) {
      return b;
    }
    long hi = relaxed(d, true, RELAX_DEPTH, b.max());
    long lo = relaxed(d, false, RELAX_DEPTH, b.min());
    return lo > hi ? b : new ConstIntBound(lo, hi);
  }

  private long relaxed(LinearForm d, boolean upper, int depth, long best) {
    for (var t : d.terms.entrySet()) {
      long k = t.getValue();
      if (!(t.getKey() instanceof Binary m)
          || (m.op() != BinOp.MIN && m.op() != BinOp.MAX)
          || ((k > 0) == (m.op() == BinOp.MIN)) != upper) {
        continue;
      }
      for (Expr operand : new Expr[] {m.a(), m.b()}) {
        LinearForm r = d.copy();
        r.terms.remove(m);
        r.addScaled(simplifier.linear(operand, true), k);
        ConstIntBound rb = r.bound(simplifier.analyzer());
        best = upper ? Math.min(best, rb.max()) : Math.max(best, rb.min());
        if (depth > 1) {
          best = relaxed(r, upper, depth - 1, best);
        }
      }
    }
    return best;
  }
}
