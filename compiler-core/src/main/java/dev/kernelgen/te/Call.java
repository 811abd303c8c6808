package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;
import java.util.List;

/** A call of a math intrinsic; the result has the dtype of its (floating-point) arguments. */
public record Call(Intrinsic fn, List<Expr> args) implements Expr {
  public Call {
    args = List.copyOf(args);
    UserError.check(
        args.size() == fn.arity(),
        "%s takes %d argument(s), got %d",
        fn.name().toLowerCase(),
        fn.arity(),
        args.size());
    for (Expr a : args) {
      if (!a.dtype().isFloat()) {
        throw new UserError(
            String.format(
                "%s needs floating-point arguments, got %s: %s",
                fn.name().toLowerCase(), a.dtype(), a.show()));
      }
      UserError.check(
          a.dtype() == args.get(0).dtype(),
          "dtype mismatch in %s: %s vs %s",
          fn.name().toLowerCase(),
          a.dtype(),
          args.get(0).dtype());
    }
  }

  @Override
  public DType dtype() {
    return args.get(0).dtype();
  }
}
