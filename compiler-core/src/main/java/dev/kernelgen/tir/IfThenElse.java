package dev.kernelgen.tir;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.Expr;

/** A conditional; {@code elseCase} is null when there is none. */
public record IfThenElse(Expr condition, Stmt thenCase, Stmt elseCase) implements Stmt {
  public IfThenElse {
    if (!condition.dtype().isBool()) {
      throw new CompilerBug("if condition must be bool: " + condition.show());
    }
  }

  public static IfThenElse of(Expr condition, Stmt thenCase) {
    return new IfThenElse(condition, thenCase, null);
  }
}
