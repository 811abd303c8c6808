package dev.kernelgen.arith;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Not;

/**
 * The simplifier's boolean rules: {@code &&} and {@code ||} with constants and complements,
 * negation (integer comparisons invert exactly), and the truth of a comparison decided by the bound
 * of a difference.
 */
final class LogicRules {
  private LogicRules() {}

  static Expr logic(BinOp op, Expr a, Expr b) {
    boolean isAnd = op == BinOp.AND;
    // For &&, true is the identity and false absorbs; for || the reverse.
    if (a instanceof IntImm x) {
      return (x.value() != 0) == isAnd ? b : x;
    }
    if (b instanceof IntImm y) {
      return (y.value() != 0) == isAnd ? a : y;
    }
    if (a.equals(b)) {
      return a;
    }
    if (a.equals(not(b)) || b.equals(not(a))) {
      return IntImm.ofBool(!isAnd);
    }
    return Binary.of(op, a, b);
  }

  static Expr not(Expr a) {
    if (a instanceof IntImm x) {
      return IntImm.ofBool(x.value() == 0);
    }
    if (a instanceof Not n) {
      return n.a();
    }
    // Integer comparisons invert exactly (floats would not, because of NaN).
    if (a instanceof Binary b && b.op().isComparison() && !b.a().dtype().isFloat()) {
      BinOp inv =
          switch (b.op()) {
            case EQ -> BinOp.NE;
            case NE -> BinOp.EQ;
            case LT -> BinOp.GE;
            case LE -> BinOp.GT;
            case GT -> BinOp.LE;
            case GE -> BinOp.LT;
            default -> throw new AssertionError(b.op());
          };
      return Binary.of(inv, b.a(), b.b());
    }
    return Not.of(a);
  }

  /** The truth of {@code d op 0} for every {@code d} in the bound, or null if it varies. */
  static Boolean decide(BinOp op, ConstIntBound d) {
    boolean neg = d.max() < 0;
    boolean nonPos = d.max() <= 0;
    boolean pos = d.min() > 0;
    boolean nonNeg = d.min() >= 0;
    return switch (op) {
      case LT -> neg ? Boolean.TRUE : nonNeg ? Boolean.FALSE : null;
      case LE -> nonPos ? Boolean.TRUE : pos ? Boolean.FALSE : null;
      case GT -> pos ? Boolean.TRUE : nonPos ? Boolean.FALSE : null;
      case GE -> nonNeg ? Boolean.TRUE : neg ? Boolean.FALSE : null;
      case EQ ->
          d.min() == 0 && d.max() == 0 ? Boolean.TRUE : !d.contains(0) ? Boolean.FALSE : null;
      case NE ->
          d.min() == 0 && d.max() == 0 ? Boolean.FALSE : !d.contains(0) ? Boolean.TRUE : null;
      default -> throw new AssertionError(op);
    };
  }
}
