package dev.kernelgen.tir;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import java.util.ArrayList;
import java.util.List;

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

  /**
   * The statements of {@code body} when it is stores only, alone or in sequences (no loops,
   * branches or lets), in order; else null.
   */
  public static List<Store> sequence(Stmt body) {
    List<Store> out = new ArrayList<>();
    return collect(body, out) ? out : null;
  }

  private static boolean collect(Stmt s, List<Store> out) {
    if (s instanceof Store st) {
      out.add(st);
      return true;
    }
    if (s instanceof Seq q) {
      for (Stmt x : q.stmts()) {
        if (!collect(x, out)) {
          return false;
        }
      }
      return true;
    }
    return false;
  }
}
