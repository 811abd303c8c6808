package dev.kernelgen.tir;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;

/** Writes {@code value} to element {@code index} of a flat buffer. */
public record Store(Buffer buffer, Expr index, Expr value) implements Stmt {
  public Store {
    CompilerBug.check(index.dtype().isInt(), "store index into %s is %s", buffer, index.dtype());
    CompilerBug.check(
        value.dtype() == buffer.dtype(),
        "store of %s into %s buffer %s",
        value.dtype(),
        buffer.dtype(),
        buffer);
  }
}
