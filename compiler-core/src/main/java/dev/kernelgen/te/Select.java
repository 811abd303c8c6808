package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;

/** {@code cond ? trueValue : falseValue}; both branches may be evaluated. */
public record Select(Expr cond, Expr trueValue, Expr falseValue) implements Expr {
  public Select {
    UserError.check(
        cond.dtype().isBool(),
        "select needs a bool condition, got %s: %s",
        cond.dtype(),
        cond.show());
    UserError.check(
        trueValue.dtype() == falseValue.dtype(),
        "dtype mismatch in select: %s (%s) vs %s (%s)",
        trueValue.dtype(),
        trueValue.show(),
        falseValue.dtype(),
        falseValue.show());
  }

  @Override
  public DType dtype() {
    return trueValue.dtype();
  }
}
