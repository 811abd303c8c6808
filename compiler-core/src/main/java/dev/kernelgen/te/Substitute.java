package dev.kernelgen.te;

import java.util.Map;

/** Replaces variables by expressions. */
public final class Substitute {
  private Substitute() {}

  public static Expr apply(Expr e, Map<Var, ? extends Expr> map) {
    if (map.isEmpty()) {
      return e;
    }
    return new ExprMutator() {
      @Override
      public Expr mutate(Expr x) {
        if (x instanceof Var v) {
          Expr r = map.get(v);
          return r == null ? v : r;
        }
        return mutateChildren(x);
      }
    }.mutate(e);
  }
}
