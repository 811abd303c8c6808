package dev.kernelgen.te;

import dev.kernelgen.diag.CompilerBug;

/**
 * A read of one element of a flat buffer. It appears only in the loop IR, after storage flattening
 * has turned tensor reads into buffer accesses.
 */
public record Load(DType dtype, Buffer buffer, Expr index) implements Expr {
  public Load {
    CompilerBug.check(index.dtype().isInt(), "load index of %s is %s", buffer, index.dtype());
  }

  public static Load of(Buffer buffer, Expr index) {
    return new Load(buffer.dtype(), buffer, index);
  }
}
