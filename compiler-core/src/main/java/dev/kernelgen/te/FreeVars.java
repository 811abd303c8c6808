package dev.kernelgen.te;

import java.util.LinkedHashSet;
import java.util.Set;

/** The variables an expression mentions. */
public final class FreeVars {
  private FreeVars() {}

  public static Set<Var> of(Expr e) {
    Set<Var> vars = new LinkedHashSet<>();
    new ExprVisitor() {
      @Override
      public void visit(Expr x) {
        if (x instanceof Var v) {
          vars.add(v);
        }
        super.visit(x);
      }
    }.visit(e);
    return vars;
  }

  /** Whether {@code e} mentions {@code v}. */
  public static boolean uses(Expr e, Var v) {
    return of(e).contains(v);
  }
}
