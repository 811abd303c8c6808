package dev.kernelgen.tir;

import dev.kernelgen.te.Expr;

/** Evaluates an expression for its effect (and is a no-op statement for a constant). */
public record Evaluate(Expr value) implements Stmt {
  public static Evaluate nop() {
    return new Evaluate(dev.kernelgen.te.IntImm.of(0));
  }

  public boolean isNop() {
    return value instanceof dev.kernelgen.te.IntImm;
  }
}
