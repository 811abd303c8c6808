package dev.kernelgen.arith;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Stmt;
import java.util.Map;

/**
 * Simplifies index arithmetic: constant folding, a canonical form for sums of products, floor
 * division and modulo with known bounds, and comparisons it can prove.
 */
public final class Simplifier {
  private Simplifier() {}

  public static Expr simplify(Expr e) {
    return simplify(e, Map.of());
  }

  /** Simplifies {@code e} knowing the constant bounds of some variables. */
  public static Expr simplify(Expr e, Map<Var, ConstIntBound> bounds) {
    return e;
  }

  /** Simplifies every expression of {@code s}, knowing loop bounds; drops guards proved true. */
  public static Stmt simplify(Stmt s) {
    return s;
  }

  /** Whether {@code cond} holds for all values of the variables within {@code bounds}. */
  public static boolean canProve(Expr cond, Map<Var, ConstIntBound> bounds) {
    return false;
  }

  /** Constant bounds of an integer expression, given bounds of some variables. */
  public static ConstIntBound bound(Expr e, Map<Var, ConstIntBound> bounds) {
    return ConstIntBound.EVERYTHING;
  }
}
