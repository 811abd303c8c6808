package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;

/** Logical negation. */
public record Not(Expr a) implements Expr {
  public Not {
    if (!a.dtype().isBool()) {
      throw new UserError(String.format("! needs a bool operand, got %s: %s", a.dtype(), a.show()));
    }
  }

  public static Expr of(Expr a) {
    return new Not(a);
  }

  @Override
  public DType dtype() {
    return DType.BOOL;
  }
}
