package dev.kernelgen.arith;

import static dev.kernelgen.arith.ConstIntBound.NEG_INF;
import static dev.kernelgen.arith.ConstIntBound.POS_INF;
import static dev.kernelgen.arith.ConstIntBound.floorDivSat;
import static dev.kernelgen.arith.ConstIntBound.isInf;

import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import java.util.Map;

/**
 * Constant interval analysis (TVM's ConstIntBoundAnalyzer): bounds every integer node from the
 * bounds of its operands, structurally, without simplifying first.
 */
final class BoundAnalyzer {
  private static final ConstIntBound BOOL = new ConstIntBound(0, 1);

  private final Map<Var, ConstIntBound> bounds;

  BoundAnalyzer(Map<Var, ConstIntBound> bounds) {
    this.bounds = bounds;
  }

  /** The values a dtype can hold; floats are unbounded. */
  static ConstIntBound ofDType(DType t) {
    return switch (t) {
      case BOOL -> BOOL;
      case INT32 -> new ConstIntBound(Integer.MIN_VALUE, Integer.MAX_VALUE);
      case INT64, FLOAT32, FLOAT64 -> ConstIntBound.EVERYTHING;
    };
  }

  ConstIntBound bound(Expr e) {
    return switch (e) {
      case IntImm i -> ConstIntBound.point(i.value());
      case Var v -> {
        ConstIntBound b = bounds.get(v);
        yield b != null ? b : v.dtype().isBool() ? BOOL : ConstIntBound.EVERYTHING;
      }
      case Binary b -> binary(b);
      case Select s -> {
        if (s.cond() instanceof IntImm c) {
          yield bound(c.value() != 0 ? s.trueValue() : s.falseValue());
        }
        yield bound(s.trueValue()).union(bound(s.falseValue()));
      }
      case Cast c -> cast(c);
      default -> e.dtype().isBool() ? BOOL : ConstIntBound.EVERYTHING;
    };
  }

  private ConstIntBound binary(Binary b) {
    if (b.dtype().isBool()) {
      return BOOL;
    }
    if (!b.dtype().isInt()) {
      return ConstIntBound.EVERYTHING;
    }
    ConstIntBound x = bound(b.a());
    ConstIntBound y = bound(b.b());
    return switch (b.op()) {
      case ADD -> x.add(y);
      case SUB -> x.sub(y);
      case MUL -> x.mul(y);
      case FLOOR_DIV -> floorDiv(x, y);
      case FLOOR_MOD -> floorMod(x, y);
      case MIN -> new ConstIntBound(Math.min(x.min(), y.min()), Math.min(x.max(), y.max()));
      case MAX -> new ConstIntBound(Math.max(x.min(), y.min()), Math.max(x.max(), y.max()));
      default -> ConstIntBound.EVERYTHING;
    };
  }

  static ConstIntBound floorDiv(ConstIntBound x, ConstIntBound y) {
    if (y.min() > 0) {
      // Monotone in x; for fixed x, the extreme quotients are at the ends of y's range.
      long lo = Math.min(divEnd(x.min(), y.min()), divEnd(x.min(), y.max()));
      long hi = Math.max(divEnd(x.max(), y.min()), divEnd(x.max(), y.max()));
      return new ConstIntBound(lo, hi);
    }
    if (y.max() < 0) {
      return floorDiv(x.negate(), y.negate());
    }
    return ConstIntBound.EVERYTHING;
  }

  /** {@code floordiv(a, d)} for {@code d > 0}, with infinite ends. */
  private static long divEnd(long a, long d) {
    if (isInf(a)) {
      return a;
    }
    return d == POS_INF ? (a < 0 ? -1 : 0) : Math.floorDiv(a, d);
  }

  static ConstIntBound floorMod(ConstIntBound x, ConstIntBound y) {
    if (y.min() > 0) {
      if (y.isPoint() && !isInf(x.min()) && !isInf(x.max())) {
        long c = y.min();
        if (floorDivSat(x.min(), c) == floorDivSat(x.max(), c)) {
          // x stays within one period: the modulo is a shift of x.
          return new ConstIntBound(Math.floorMod(x.min(), c), Math.floorMod(x.max(), c));
        }
      }
      long hi = y.max() == POS_INF ? POS_INF : y.max() - 1;
      if (x.min() >= 0) {
        hi = Math.min(hi, x.max());
      }
      return new ConstIntBound(0, hi);
    }
    if (y.max() < 0) {
      long lo = y.min() == NEG_INF ? NEG_INF : y.min() + 1;
      return new ConstIntBound(lo, 0);
    }
    return ConstIntBound.EVERYTHING;
  }

  private ConstIntBound cast(Cast c) {
    ConstIntBound target = ofDType(c.dtype());
    if (c.dtype().isFloat()) {
      return ConstIntBound.EVERYTHING;
    }
    if (c.dtype().isBool()) {
      return BOOL;
    }
    DType from = c.value().dtype();
    if (from.isFloat()) {
      return target;
    }
    ConstIntBound inner = bound(c.value());
    // A narrowing cast wraps when the value does not fit: then only the dtype's range is known.
    return target.min() <= inner.min() && inner.max() <= target.max() ? inner : target;
  }
}
