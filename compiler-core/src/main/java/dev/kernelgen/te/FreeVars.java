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

  /**
   * Whether a read in {@code e} (of {@code tensor} only, or of any tensor when it is null) uses
   * {@code v} in an index other than the last: consecutive values of {@code v} then read memory a
   * row or more apart (a gather when the loop over {@code v} is vectorized).
   */
  public static boolean usedBeforeLastIndex(Expr e, Var v, Tensor tensor) {
    boolean[] found = {false};
    new ExprVisitor() {
      @Override
      public void visit(Expr x) {
        if (x instanceof TensorRead r && (tensor == null || r.tensor() == tensor)) {
          for (int d = 0; d < r.indices().size() - 1; d++) {
            found[0] |= uses(r.indices().get(d), v);
          }
        }
        super.visit(x);
      }
    }.visit(e);
    return found[0];
  }
}
