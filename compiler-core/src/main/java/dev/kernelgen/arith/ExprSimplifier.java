package dev.kernelgen.arith;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Not;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.Map;

/**
 * The expression rewriter: folds constants ({@link ConstantFolding}), brings integer sums into
 * {@link LinearForm}, and applies floor division, min/max and comparison rules that the bounds of
 * the variables justify (here) and the rules of boolean logic ({@link LogicRules}). Every rule
 * keeps the value for all inputs that do not overflow; a rule that would need a constant outside
 * the dtype gives up (and leaves the node) instead.
 */
final class ExprSimplifier extends ExprMutator {
  private static final java.util.Set<BinOp> WIDENING =
      java.util.EnumSet.of(BinOp.ADD, BinOp.SUB, BinOp.MUL, BinOp.MIN, BinOp.MAX);

  private final BoundAnalyzer analyzer;
  private final MinMaxRules minMax = new MinMaxRules(this);

  /** {@code bounds} is read live, so a statement pass may update it between calls. */
  ExprSimplifier(Map<Var, ConstIntBound> bounds) {
    this.analyzer = new BoundAnalyzer(bounds);
  }

  ConstIntBound bound(Expr e) {
    return analyzer.bound(e);
  }

  BoundAnalyzer analyzer() {
    return analyzer;
  }

  @Override
  public Expr mutate(Expr e) {
    return switch (e) {
      case IntImm i -> i;
      case FloatImm f -> f;
      case Var v -> v;
      case Binary b -> binary(b);
      case Not n -> LogicRules.not(mutate(n.a()));
      case Select s -> select(s);
      case Cast c -> {
        Expr v = mutate(c.value());
        // A 32-bit sum, difference, product, min or max widened to 64 bits is the same operation
        // on widened operands where the 32-bit one does not wrap, and the right value where it
        // does: distributed, so that 64-bit index arithmetic cancels terms as 32-bit does.
        if (c.dtype() == DType.INT64
            && v.dtype() == DType.INT32
            && v instanceof Binary b
            && WIDENING.contains(b.op())) {
          yield mutate(Binary.of(b.op(), Cast.of(DType.INT64, b.a()), Cast.of(DType.INT64, b.b())));
        }
        yield ConstantFolding.cast(c.dtype(), v);
      }
      // Calls, tensor reads, reductions and loads: only their operands simplify.
      default -> mutateChildren(e);
    };
  }

  private Expr binary(Binary b) {
    BinOp op = b.op();
    if (b.a().dtype().isInt()) {
      switch (op) {
        case ADD, SUB, MUL -> {
          return canonical(b);
        }
        case FLOOR_DIV, FLOOR_MOD -> {
          return divMod(op, mutate(b.a()), mutate(b.b()));
        }
        case MIN, MAX -> {
          return minMax.minMax(op, mutate(b.a()), mutate(b.b()));
        }
        case EQ, NE, LT, LE, GT, GE -> {
          return compare(op, mutate(b.a()), mutate(b.b()));
        }
        default -> throw new AssertionError(op);
      }
    }
    Expr x = mutate(b.a());
    Expr y = mutate(b.b());
    if (op.isLogical()) {
      return LogicRules.logic(op, x, y);
    }
    if (b.a().dtype().isFloat()) {
      return ConstantFolding.floatOp(op, x, y);
    }
    // == and != on bools.
    if (x instanceof IntImm p && y instanceof IntImm q) {
      return IntImm.ofBool((p.value() == q.value()) == (op == BinOp.EQ));
    }
    if (x.equals(y)) {
      return IntImm.ofBool(op == BinOp.EQ);
    }
    return rebuild(b, x, y);
  }

  private static Expr rebuild(Binary b, Expr x, Expr y) {
    return x == b.a() && y == b.b() ? b : Binary.of(b.op(), x, y);
  }

  // ---- linear form ----

  private Expr canonical(Binary b) {
    try {
      return mergeDivMod(linear(b, false)).toExpr();
    } catch (ArithmeticException overflow) {
      Expr x = mutate(b.a());
      Expr y = mutate(b.b());
      Expr folded = ConstantFolding.foldInt(b.op(), x, y);
      return folded != null ? folded : rebuild(b, x, y);
    }
  }

  /**
   * The linear form of {@code e}. Leaves of the sum are simplified first, unless {@code simplified}
   * says that {@code e} already is.
   */
  LinearForm linear(Expr e, boolean simplified) {
    if (e instanceof IntImm i) {
      return LinearForm.constant(i.dtype(), i.value());
    }
    if (e instanceof Binary b && b.dtype().isInt()) {
      switch (b.op()) {
        case ADD -> {
          return linear(b.a(), simplified).plus(linear(b.b(), simplified));
        }
        case SUB -> {
          return linear(b.a(), simplified).minus(linear(b.b(), simplified));
        }
        case MUL -> {
          LinearForm x = linear(b.a(), simplified);
          LinearForm y = linear(b.b(), simplified);
          if (x.isConstant()) {
            return y.times(x.constant);
          }
          if (y.isConstant()) {
            return x.times(y.constant);
          }
          return LinearForm.term(Binary.of(BinOp.MUL, x.toExpr(), y.toExpr()));
        }
        default -> {}
      }
    }
    if (simplified) {
      return LinearForm.term(e);
    }
    Expr s = mutate(e);
    return linear(s, true);
  }

  /**
   * {@code floordiv(x, c)*c*k + floormod(x, c)*k} is {@code x*k}: the sum that undoes a split of a
   * fused index; and {@code floormod(floordiv(x, c), b)*c*k + floormod(x, c)*k} is {@code
   * floormod(x, c*b)*k}, which undoes it step by step where a fused index is split into several
   * axes (a cached tile loaded through one fused loop: its flat offset becomes the loop index).
   */
  private LinearForm mergeDivMod(LinearForm f) {
    LinearForm out = f;
    boolean changed = true;
    while (changed) {
      changed = false;
      for (var t : new ArrayList<>(out.terms.entrySet())) {
        if (!(t.getKey() instanceof Binary mod
            && mod.op() == BinOp.FLOOR_MOD
            && mod.b() instanceof IntImm c
            && c.value() > 0
            && out.terms.containsKey(mod))) {
          continue;
        }
        long k = out.terms.get(mod);
        long kc = Math.multiplyExact(k, c.value());
        Expr div = Binary.of(BinOp.FLOOR_DIV, mod.a(), c);
        Long divCoeff = out.terms.get(div);
        if (divCoeff != null && divCoeff == kc) {
          out = out.copy();
          out.terms.remove(mod);
          out.terms.remove(div);
          out.addScaled(linear(mod.a(), true), k);
          changed = true;
          continue;
        }
        Binary outer = null;
        for (var u : out.terms.entrySet()) {
          if (u.getValue() == kc
              && u.getKey() instanceof Binary m
              && m.op() == BinOp.FLOOR_MOD
              && m.b() instanceof IntImm b
              && b.value() > 0
              && m.a().equals(div)) {
            outer = m;
            break;
          }
        }
        if (outer != null) {
          long cb = Math.multiplyExact(c.value(), ((IntImm) outer.b()).value());
          out = out.copy();
          out.terms.remove(mod);
          out.terms.remove(outer);
          out.addScaled(linear(divModByConst(false, mod.a(), cb), true), k);
          changed = true;
        }
      }
    }
    return out;
  }

  // ---- floor division and modulo ----

  private Expr divMod(BinOp op, Expr a, Expr d) {
    boolean isDiv = op == BinOp.FLOOR_DIV;
    if (a instanceof IntImm x && d instanceof IntImm y) {
      Expr folded = ConstantFolding.foldInt(op, x, y);
      if (folded != null) {
        return folded;
      }
    }
    if (d instanceof IntImm y && y.value() > 0) {
      try {
        return divModByConst(isDiv, a, y.value());
      } catch (ArithmeticException overflow) {
        // Keep the division as it is.
      }
    }
    if (a instanceof IntImm x && x.value() == 0) {
      return x;
    }
    return Binary.of(op, a, d);
  }

  /**
   * {@code floordiv(a, c)} or {@code floormod(a, c)} for a simplified {@code a} and {@code c > 0}.
   */
  private Expr divModByConst(boolean isDiv, Expr a, long c) {
    DType t = a.dtype();
    if (c == 1) {
      return isDiv ? a : IntImm.of(t, 0);
    }
    // a = c*q + r, where q collects the terms whose coefficients c divides.
    LinearForm f = linear(a, true);
    LinearForm q = new LinearForm(t);
    LinearForm r = new LinearForm(t);
    f.terms.forEach(
        (term, k) -> {
          if (k % c == 0) {
            q.addTerm(term, k / c);
          } else {
            r.addTerm(term, k);
          }
        });
    r.constant = f.constant;
    // floordiv(g*r', g*c') = floordiv(r', c') and floormod(g*r', g*c') = g*floormod(r', c').
    long g = LinearForm.gcd(r.gcd(), c);
    LinearForm rr = r.divideExactly(g);
    long cc = c / g;
    LinearForm result;
    if (cc == 1) {
      // c divides all of r: nothing remains of the division.
      result = isDiv ? q.plus(rr) : new LinearForm(t);
    } else {
      ConstIntBound br = rr.bound(analyzer);
      if (!ConstIntBound.isInf(br.min())
          && !ConstIntBound.isInf(br.max())
          && Math.floorDiv(br.min(), cc) == Math.floorDiv(br.max(), cc)) {
        // r' stays within one period of cc: its quotient is a known constant.
        long k = Math.floorDiv(br.min(), cc);
        if (isDiv) {
          result = q.copy();
          result.constant = Math.addExact(result.constant, k);
        } else {
          result = rr.copy();
          result.constant = Math.subtractExact(result.constant, Math.multiplyExact(k, cc));
          result = result.times(g);
        }
      } else {
        Expr inner = strideOffset(isDiv, rr, cc);
        if (inner == null) {
          inner = nested(isDiv, rr, cc);
        }
        result = isDiv ? q.copy() : new LinearForm(t);
        result.addScaled(linear(inner, true), isDiv ? 1 : g);
      }
    }
    return result.toExpr();
  }

  /**
   * {@code floordiv(r, c)} or {@code floormod(r, c)} where the terms of {@code r} share a factor
   * {@code m > 1} that divides {@code c}: with {@code r = m*x + k} ({@code 0 <= k < m}), {@code
   * floordiv(r, c) = floordiv(x, c/m)} and {@code floormod(r, c) = m*floormod(x, c/m) + k}, since
   * adding {@code k} to a multiple of {@code m} never reaches the next multiple of {@code c}. An
   * unrolled group of consecutive elements then keeps one base: {@code floordiv(4t + 1, 8)} is
   * {@code floordiv(t, 2)} like {@code floordiv(4t, 8)}, and {@code floormod(4t + 1, 8)} is {@code
   * floormod(t, 2)*4 + 1}, which nvcc sees as the element after {@code floormod(t, 2)*4}. Null
   * where the rule does not apply.
   */
  private Expr strideOffset(boolean isDiv, LinearForm r, long c) {
    long m = 0;
    for (long k : r.terms.values()) {
      m = LinearForm.gcd(m, Math.abs(k));
    }
    if (m <= 1 || c % m != 0 || r.constant == 0) {
      return null;
    }
    long k = Math.floorMod(r.constant, m);
    LinearForm x = r.copy();
    x.constant = r.constant - k;
    x = x.divideExactly(m);
    Expr inner = divModByConst(isDiv, x.toExpr(), c / m);
    if (isDiv) {
      return inner;
    }
    LinearForm out = linear(inner, true).times(m);
    out.constant = Math.addExact(out.constant, k);
    return out.toExpr();
  }

  /** {@code floordiv(r, c)} or {@code floormod(r, c)}, merging a nested division or modulo. */
  private Expr nested(boolean isDiv, LinearForm r, long c) {
    if (r.constant == 0
        && r.terms.size() == 1
        && r.terms.firstEntry().getValue() == 1
        && r.terms.firstEntry().getKey() instanceof Binary in
        && in.b() instanceof IntImm a
        && a.value() > 0) {
      if (isDiv && in.op() == BinOp.FLOOR_DIV) {
        // floordiv(floordiv(x, a), c) = floordiv(x, a*c) for positive a, c.
        return divModByConst(true, in.a(), Math.multiplyExact(a.value(), c));
      }
      if (!isDiv && in.op() == BinOp.FLOOR_MOD && a.value() % c == 0) {
        // floormod(floormod(x, a), c) = floormod(x, c) when c divides a.
        return divModByConst(false, in.a(), c);
      }
    }
    Expr x = r.toExpr();
    return Binary.of(isDiv ? BinOp.FLOOR_DIV : BinOp.FLOOR_MOD, x, IntImm.of(x.dtype(), c));
  }

  // ---- comparisons ----

  private Expr compare(BinOp op, Expr a, Expr b) {
    if (a instanceof IntImm x && b instanceof IntImm y) {
      return IntImm.ofBool(ConstantFolding.decide(op, x.value(), y.value()));
    }
    try {
      LinearForm d = linear(a, true).minus(linear(b, true));
      ConstIntBound bd = minMax.relaxedBound(d);
      Boolean known = LogicRules.decide(op, bd);
      if (known != null) {
        return IntImm.ofBool(known);
      }
      // Cancel common terms: positive terms on the left, negative ones on the right, the
      // constant on the side where it is positive.
      LinearForm left = new LinearForm(d.dtype);
      LinearForm right = new LinearForm(d.dtype);
      d.terms.forEach(
          (t, k) -> {
            if (k > 0) {
              left.addTerm(t, k);
            } else {
              right.addTerm(t, -k);
            }
          });
      if (d.constant > 0) {
        left.constant = d.constant;
      } else {
        right.constant = Math.negateExact(d.constant);
      }
      return Binary.of(op, left.toExpr(), right.toExpr());
    } catch (ArithmeticException overflow) {
      return Binary.of(op, a, b);
    }
  }

  private Expr select(Select s) {
    Expr c = mutate(s.cond());
    if (c instanceof IntImm x) {
      return mutate(x.value() != 0 ? s.trueValue() : s.falseValue());
    }
    Expr t = mutate(s.trueValue());
    Expr f = mutate(s.falseValue());
    if (t.equals(f)) {
      return t;
    }
    return c == s.cond() && t == s.trueValue() && f == s.falseValue() ? s : new Select(c, t, f);
  }
}
