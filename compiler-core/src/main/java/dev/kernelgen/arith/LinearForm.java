package dev.kernelgen.arith;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The canonical form of an integer expression: {@code sum(coeff * term) + constant}, where a term
 * is a variable or a simplified non-linear expression. Terms keep their first-appearance order so
 * that the rebuilt expression reads like its source and prints stably. Coefficients are exact:
 * arithmetic that would overflow a long throws {@link ArithmeticException}, and the caller keeps
 * the expression as it was.
 */
final class LinearForm {
  final DType dtype;

  /** Terms in first-appearance order; coefficients are never zero. */
  final LinkedHashMap<Expr, Long> terms = new LinkedHashMap<>();

  long constant;

  LinearForm(DType dtype) {
    this.dtype = dtype;
  }

  static LinearForm constant(DType dtype, long c) {
    LinearForm f = new LinearForm(dtype);
    f.constant = c;
    return f;
  }

  static LinearForm term(Expr t) {
    LinearForm f = new LinearForm(t.dtype());
    f.terms.put(t, 1L);
    return f;
  }

  boolean isConstant() {
    return terms.isEmpty();
  }

  LinearForm copy() {
    LinearForm f = new LinearForm(dtype);
    f.terms.putAll(terms);
    f.constant = constant;
    return f;
  }

  void addTerm(Expr t, long coeff) {
    long c = Math.addExact(terms.getOrDefault(t, 0L), coeff);
    if (c == 0) {
      terms.remove(t);
    } else {
      terms.put(t, c);
    }
  }

  /** {@code this + scale * o}, in place. */
  LinearForm addScaled(LinearForm o, long scale) {
    for (Map.Entry<Expr, Long> t : o.terms.entrySet()) {
      addTerm(t.getKey(), Math.multiplyExact(t.getValue(), scale));
    }
    constant = Math.addExact(constant, Math.multiplyExact(o.constant, scale));
    return this;
  }

  LinearForm plus(LinearForm o) {
    return copy().addScaled(o, 1);
  }

  LinearForm minus(LinearForm o) {
    return copy().addScaled(o, -1);
  }

  LinearForm times(long c) {
    return new LinearForm(dtype).addScaled(this, c);
  }

  /** The greatest common divisor of all coefficients and the constant (0 for the form 0). */
  long gcd() {
    long g = Math.abs(constant);
    for (long c : terms.values()) {
      g = gcd(g, Math.abs(c));
    }
    return g;
  }

  static long gcd(long a, long b) {
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }

  /** Divides every coefficient and the constant by {@code g}, which must divide them all. */
  LinearForm divideExactly(long g) {
    LinearForm f = new LinearForm(dtype);
    terms.forEach((t, c) -> f.terms.put(t, c / g));
    f.constant = constant / g;
    return f;
  }

  ConstIntBound bound(BoundAnalyzer analyzer) {
    ConstIntBound b = ConstIntBound.point(constant);
    for (Map.Entry<Expr, Long> t : terms.entrySet()) {
      b = b.add(analyzer.bound(t.getKey()).mul(t.getValue()));
    }
    return b;
  }

  /**
   * The form as an expression: positive terms first in order, then negative ones subtracted, the
   * constant last ({@code i*8 + j - k + 3}); a form without positive terms but a positive constant
   * starts with it ({@code 7 - i}).
   */
  Expr toExpr() {
    checkFits(constant);
    Expr acc = null;
    for (Map.Entry<Expr, Long> t : terms.entrySet()) {
      long c = t.getValue();
      checkFits(c);
      if (c > 0) {
        Expr piece = scaled(t.getKey(), c);
        acc = acc == null ? piece : Binary.of(BinOp.ADD, acc, piece);
      }
    }
    if (acc == null && constant > 0 && !terms.isEmpty()) {
      acc = imm(constant);
    }
    boolean constantUsed = acc != null && acc instanceof IntImm;
    for (Map.Entry<Expr, Long> t : terms.entrySet()) {
      long c = t.getValue();
      if (c < 0) {
        Expr piece = scaled(t.getKey(), -c);
        acc = acc == null ? negate(t.getKey(), c) : Binary.of(BinOp.SUB, acc, piece);
      }
    }
    if (acc == null) {
      return imm(constant);
    }
    if (!constantUsed && constant != 0) {
      acc =
          constant > 0
              ? Binary.of(BinOp.ADD, acc, imm(constant))
              : Binary.of(BinOp.SUB, acc, imm(-constant));
    }
    return acc;
  }

  private Expr negate(Expr t, long c) {
    // -1 * t reads as "0 - t" (Halide's style); other coefficients as "t * c".
    return c == -1 ? Binary.of(BinOp.SUB, imm(0), t) : Binary.of(BinOp.MUL, t, imm(c));
  }

  private Expr scaled(Expr t, long c) {
    return c == 1 ? t : Binary.of(BinOp.MUL, t, imm(c));
  }

  private Expr imm(long v) {
    return IntImm.of(dtype, v);
  }

  private void checkFits(long v) {
    // The magnitude must fit too: negative coefficients are printed as subtractions.
    if (dtype == DType.INT32 && (v != (int) v || v == Integer.MIN_VALUE)) {
      throw new ArithmeticException("coefficient " + v + " does not fit int32");
    }
    if (v == Long.MIN_VALUE) {
      throw new ArithmeticException("coefficient cannot be negated");
    }
  }
}
