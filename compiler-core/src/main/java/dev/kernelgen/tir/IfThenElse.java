package dev.kernelgen.tir;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.Expr;

/** A conditional; {@code elseCase} is null when there is none. */
public record IfThenElse(Expr condition, Stmt thenCase, Stmt elseCase) implements Stmt {
  public IfThenElse {
    CompilerBug.check(
        condition.dtype().isBool(), "if condition must be bool: %s", condition.show());
  }

  public static IfThenElse of(Expr condition, Stmt thenCase) {
    return new IfThenElse(condition, thenCase, null);
  }
}
