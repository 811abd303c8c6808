package dev.kernelgen.lower;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import java.util.Map;

/**
 * A symbolic closed interval {@code [min, max]} of integer values, for bound inference: the values
 * an index expression takes while some loops run over their ranges and outer loops stay fixed.
 */
record Interval(Expr min, Expr max) {
  static Interval point(Expr e) {
    return new Interval(e, e);
  }

  /** The values of {@code [0, extent)}. */
  static Interval ofExtent(Expr extent) {
    return new Interval(IntImm.like(extent, 0), Simplifier.simplify(extent.sub(1)));
  }

  boolean isPoint() {
    return min == max || min.equals(max);
  }

  Interval union(Interval o) {
    return new Interval(Simplifier.simplify(min.min(o.min)), Simplifier.simplify(max.max(o.max)));
  }

  /** {@code max - min + 1}, simplified. */
  Expr extent() {
    return Simplifier.simplify(max.sub(min).add(1));
  }

  /**
   * The interval of {@code e} when each variable in {@code env} ranges over its interval (others
   * are fixed); null when the expression is beyond this analysis (the caller takes the full range).
   */
  static Interval eval(Expr e, Map<Var, Interval> env) {
    Interval r = evalRaw(e, env);
    return r == null ? null : new Interval(Simplifier.simplify(r.min), Simplifier.simplify(r.max));
  }

  private static Interval evalRaw(Expr e, Map<Var, Interval> env) {
    return switch (e) {
      case IntImm i -> point(i);
      case Var v -> env.getOrDefault(v, point(v));
      case Cast c when c.dtype().isInt() -> {
        Interval a = evalRaw(c.value(), env);
        yield a == null ? null : new Interval(Cast.of(c.dtype(), a.min), Cast.of(c.dtype(), a.max));
      }
      case Select s -> {
        Interval a = evalRaw(s.trueValue(), env);
        Interval b = evalRaw(s.falseValue(), env);
        yield a == null || b == null ? null : a.union(b);
      }
      case Binary b -> binary(b, env);
      default -> null;
    };
  }

  private static Interval binary(Binary b, Map<Var, Interval> env) {
    if (!b.dtype().isInt()) {
      return null;
    }
    Interval x = evalRaw(b.a(), env);
    Interval y = evalRaw(b.b(), env);
    if (x == null || y == null) {
      return null;
    }
    if (x.isPoint() && y.isPoint()) {
      return point(Binary.of(b.op(), x.min, y.min));
    }
    return switch (b.op()) {
      case ADD -> new Interval(x.min.add(y.min), x.max.add(y.max));
      case SUB -> new Interval(x.min.sub(y.max), x.max.sub(y.min));
      case MUL -> {
        Long c = constant(y);
        Interval v = x;
        if (c == null) {
          c = constant(x);
          v = y;
        }
        if (c == null) {
          yield null;
        }
        yield c >= 0
            ? new Interval(v.min.mul(c), v.max.mul(c))
            : new Interval(v.max.mul(c), v.min.mul(c));
      }
      case FLOOR_DIV -> {
        Long c = constant(y);
        yield c == null || c <= 0 ? null : new Interval(x.min.floordiv(c), x.max.floordiv(c));
      }
      case FLOOR_MOD -> {
        Long c = constant(y);
        yield c == null || c <= 0 ? null : new Interval(IntImm.like(b, 0), IntImm.like(b, c - 1));
      }
      case MIN -> new Interval(x.min.min(y.min), x.max.min(y.max));
      case MAX -> new Interval(x.min.max(y.min), x.max.max(y.max));
      default -> null;
    };
  }

  private static Long constant(Interval i) {
    Expr a = Simplifier.simplify(i.min);
    Expr b = Simplifier.simplify(i.max);
    if (a instanceof IntImm x && b instanceof IntImm y && x.value() == y.value()) {
      return x.value();
    }
    return null;
  }
}
