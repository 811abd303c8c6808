package dev.kernelgen.arith;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;

/**
 * The simplifier's constant folding: casts, integer operations (null where the result would
 * overflow its dtype or divide by zero, so that the node stays) and floating-point operations with
 * the identities that are exact for every value.
 */
final class ConstantFolding {
  private ConstantFolding() {}

  static Expr cast(DType to, Expr v) {
    DType from = v.dtype();
    if (from == to) {
      return v;
    }
    if (v instanceof IntImm i) {
      long x = i.value();
      return switch (to) {
        case BOOL -> IntImm.ofBool(x != 0);
        case INT32 -> IntImm.of(to, (int) x); // wraps, as the conversion does at run time
        case INT64 -> IntImm.of(to, x);
        case FLOAT32 -> new FloatImm(to, (float) x);
        case FLOAT64 -> new FloatImm(to, (double) x);
      };
    }
    if (v instanceof FloatImm f) {
      double x = f.value();
      switch (to) {
        case FLOAT32 -> {
          return new FloatImm(to, (float) x);
        }
        case FLOAT64 -> {
          return new FloatImm(to, x);
        }
        case BOOL -> {
          return IntImm.ofBool(x != 0);
        }
        default -> {
          // Truncation toward zero, folded only where C and Java agree (the value fits).
          ConstIntBound range = BoundAnalyzer.ofDType(to);
          double tr = x < 0 ? Math.ceil(x) : Math.floor(x);
          if (!Double.isNaN(x) && tr >= range.min() && tr < (double) range.max()) {
            return IntImm.of(to, (long) tr);
          }
        }
      }
    }
    return Cast.of(to, v);
  }

  /** The folded integer operation, or null when it overflows its dtype or divides by zero. */
  static Expr foldInt(BinOp op, Expr a, Expr b) {
    if (!(a instanceof IntImm x && b instanceof IntImm y)) {
      return null;
    }
    long p = x.value();
    long q = y.value();
    if ((op == BinOp.FLOOR_DIV || op == BinOp.FLOOR_MOD) && q == 0) {
      return null;
    }
    long r;
    try {
      r =
          switch (op) {
            case ADD -> Math.addExact(p, q);
            case SUB -> Math.subtractExact(p, q);
            case MUL -> Math.multiplyExact(p, q);
            case FLOOR_DIV -> Math.floorDivExact(p, q);
            case FLOOR_MOD -> Math.floorMod(p, q);
            case MIN -> Math.min(p, q);
            case MAX -> Math.max(p, q);
            default -> throw new AssertionError(op);
          };
    } catch (ArithmeticException overflow) {
      return null;
    }
    if (x.dtype() == DType.INT32 && r != (int) r) {
      return null;
    }
    return IntImm.of(x.dtype(), r);
  }

  static Expr floatOp(BinOp op, Expr a, Expr b) {
    if (a instanceof FloatImm x && b instanceof FloatImm y) {
      double p = x.value();
      double q = y.value();
      if (op.isComparison()) {
        return IntImm.ofBool(
            switch (op) {
              case EQ -> p == q;
              case NE -> p != q;
              case LT -> p < q;
              case LE -> p <= q;
              case GT -> p > q;
              case GE -> p >= q;
              default -> throw new AssertionError(op);
            });
      }
      double r =
          switch (op) {
            case ADD -> p + q;
            case SUB -> p - q;
            case MUL -> p * q;
            case DIV -> p / q;
            case MIN -> Math.min(p, q);
            case MAX -> Math.max(p, q);
            default -> throw new AssertionError(op);
          };
      // float32 arithmetic rounds each result to float.
      return new FloatImm(x.dtype(), x.dtype() == DType.FLOAT32 ? (float) r : r);
    }
    // Identities that are exact for every value, signed zeros and NaN included.
    if ((op == BinOp.MUL || op == BinOp.DIV) && b instanceof FloatImm y && y.value() == 1.0) {
      return a;
    }
    if (op == BinOp.MUL && a instanceof FloatImm x && x.value() == 1.0) {
      return b;
    }
    return Binary.of(op, a, b);
  }

  static boolean decide(BinOp op, long x, long y) {
    return switch (op) {
      case EQ -> x == y;
      case NE -> x != y;
      case LT -> x < y;
      case LE -> x <= y;
      case GT -> x > y;
      case GE -> x >= y;
      default -> throw new AssertionError(op);
    };
  }
}
