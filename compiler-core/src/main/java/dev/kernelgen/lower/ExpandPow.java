package dev.kernelgen.lower;

import dev.kernelgen.te.Call;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.Intrinsic;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import java.util.List;

/**
 * A power by a constant multiple of 1/4 within {@value #MAX_EXPONENT} in magnitude ({@code x^2},
 * {@code x^3}, {@code x^0.5}, {@code x^-0.5}, {@code x^0.75}, {@code x^1.5}: a GELU's cube, a
 * norm's inverse square root, a local response normalisation's 0.75) computed with multiplications
 * and square roots instead of a call of {@code pow}: a C kernel's vector {@code powf} (libmvec) per
 * 16 lanes took half of a local response normalisation's time on a Zen 4 core, and GPUs and the JVM
 * compute a general pow in software too. Each square root is correctly rounded, so the result is
 * within a few ulp of pow's for finite positive {@code x}; for negative {@code x} a fractional
 * exponent gives NaN as pow does, and an integer one the product's sign. (Where they differ: {@code
 * pow(-0, 0.5)} is +0 and {@code sqrt(-0)} -0; {@code pow(-inf, 0.5)} is +inf and the square root
 * NaN; an intermediate power can overflow to infinity where pow's result of a negative exponent is
 * a tiny number.)
 */
public final class ExpandPow {
  private ExpandPow() {}

  /** The largest exponent magnitude expanded: beyond, the chain of products grows. */
  static final double MAX_EXPONENT = 4;

  public static Stmt run(Stmt s) {
    return new StmtMutator() {
      @Override
      public Expr mutate(Expr e) {
        Expr m = mutateChildren(e);
        if (m instanceof Call c
            && c.fn() == Intrinsic.POW
            && c.args().get(1) instanceof FloatImm y) {
          Expr expanded = expand(c.args().get(0), y.value());
          return expanded == null ? m : expanded;
        }
        return m;
      }
    }.mutate(s);
  }

  /**
   * {@code x^y} with multiplications and square roots, or null where {@code y} does not qualify.
   */
  static Expr expand(Expr x, double y) {
    double quarters = y * 4;
    if (!x.dtype().isFloat()
        || quarters != Math.rint(quarters)
        || Math.abs(y) > MAX_EXPONENT
        || y == 0) {
      return null;
    }
    DType t = x.dtype();
    long q = (long) Math.abs(quarters);
    Expr result = null;
    // The whole part by squaring, then x^0.5 and x^0.25 for the quarters.
    long whole = q / 4;
    Expr square = x;
    for (long n = whole; n > 0; n >>= 1) {
      if ((n & 1) != 0) {
        result = result == null ? square : result.mul(square);
      }
      if (n > 1) {
        square = square.mul(square);
      }
    }
    if ((q & 2) != 0 || (q & 1) != 0) {
      Expr root = new Call(Intrinsic.SQRT, List.of(x));
      if ((q & 2) != 0) {
        result = result == null ? root : result.mul(root);
      }
      if ((q & 1) != 0) {
        Expr fourth = new Call(Intrinsic.SQRT, List.of(root));
        result = result == null ? fourth : result.mul(fourth);
      }
    }
    return y < 0 ? new FloatImm(t, 1.0).div(result) : result;
  }
}
