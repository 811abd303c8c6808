package dev.kernelgen.arith;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Stmt;
import java.util.Map;

/**
 * Simplifies index arithmetic: constant folding, a canonical form for sums of products, floor
 * division and modulo with known bounds, and comparisons it can prove.
 *
 * <p>Integer sums print in a stable order: positive terms in the order they first appear, then the
 * negative ones, the constant last ({@code i.outer*8 + i.inner - 1}).
 */
public final class Simplifier {
  private Simplifier() {}

  public static Expr simplify(Expr e) {
    return simplify(e, Map.of());
  }

  /**
   * Simplifies {@code e} knowing the constant bounds of some variables. Returns {@code e} itself
   * when nothing changed.
   */
  public static Expr simplify(Expr e, Map<Var, ConstIntBound> bounds) {
    Expr r = new ExprSimplifier(bounds).mutate(e);
    return r.equals(e) ? e : r;
  }

  /**
   * Simplifies every expression of {@code s}, knowing loop bounds; drops guards proved true,
   * replaces single-iteration serial loops by their body, and drops no-op statements. Returns
   * {@code s} itself when nothing changed.
   */
  public static Stmt simplify(Stmt s) {
    return new StmtSimplifier().mutate(s);
  }

  /**
   * How much {@code e} moves when {@code v} grows by one, where that is a constant (then {@code e}
   * is affine in {@code v} with no term that mixes it with another variable); null otherwise.
   */
  public static Long step(Expr e, Var v) {
    Expr d = simplify(dev.kernelgen.te.Substitute.apply(e, Map.of(v, v.add(1))).sub(e));
    return d instanceof IntImm c ? c.value() : null;
  }

  /** Whether {@code cond} holds for all values of the variables within {@code bounds}. */
  public static boolean canProve(Expr cond, Map<Var, ConstIntBound> bounds) {
    return simplify(cond, bounds) instanceof IntImm i && i.value() != 0;
  }

  /** Constant bounds of an integer expression, given bounds of some variables. */
  public static ConstIntBound bound(Expr e, Map<Var, ConstIntBound> bounds) {
    BoundAnalyzer analyzer = new BoundAnalyzer(bounds);
    ConstIntBound direct = analyzer.bound(e);
    // The simplified form has cancelled common terms (i - i), so it often bounds tighter.
    ConstIntBound simplified = analyzer.bound(simplify(e, bounds));
    ConstIntBound both = direct.intersect(simplified);
    return both.min() <= both.max() ? both : direct;
  }

  /**
   * The value of an integer expression, such as a dim or a size, given the values of its variables.
   *
   * @throws dev.kernelgen.diag.UserError if a variable it needs has no value
   */
  public static long evaluate(Expr e, Map<Var, Long> values) {
    Map<Var, Expr> sub = new java.util.HashMap<>();
    values.forEach((v, x) -> sub.put(v, dev.kernelgen.te.IntImm.of(v.dtype(), x)));
    Expr r = simplify(dev.kernelgen.te.Substitute.apply(e, sub));
    if (r instanceof dev.kernelgen.te.IntImm i) {
      return i.value();
    }
    throw new dev.kernelgen.diag.UserError(
        "cannot evaluate "
            + e.show()
            + ": no value for "
            + dev.kernelgen.te.FreeVars.of(r)
            + " (given "
            + values
            + ")");
  }
}
