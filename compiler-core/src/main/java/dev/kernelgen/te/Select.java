package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;

/** {@code cond ? trueValue : falseValue}; both branches may be evaluated. */
public record Select(Expr cond, Expr trueValue, Expr falseValue) implements Expr {
  public Select {
    if (!cond.dtype().isBool()) {
      throw new UserError(
          "select needs a bool condition, got " + cond.dtype() + ": " + cond.show());
    }
    if (trueValue.dtype() != falseValue.dtype()) {
      throw new UserError(
          String.format(
              "dtype mismatch in select: %s (%s) vs %s (%s)",
              trueValue.dtype(), trueValue.show(), falseValue.dtype(), falseValue.show()));
    }
  }

  @Override
  public DType dtype() {
    return trueValue.dtype();
  }
}
