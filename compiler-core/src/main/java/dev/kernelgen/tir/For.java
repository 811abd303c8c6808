package dev.kernelgen.tir;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Var;
import java.util.List;

/**
 * A loop {@code for (loopVar = min; loopVar < min + extent; ++loopVar) body}. Loops bound to a
 * thread index carry its tag ({@code blockIdx.x}, {@code threadIdx.y}, {@code vthread}).
 */
public record For(
    Var loopVar,
    Expr min,
    Expr extent,
    ForKind kind,
    String threadTag,
    List<String> pragmas,
    Stmt body)
    implements Stmt {
  public For {
    CompilerBug.check(
        min.dtype().isInt() && extent.dtype().isInt(), "loop %s bounds must be integers", loopVar);
    CompilerBug.check(
        (kind == ForKind.THREAD_BINDING || kind == ForKind.VTHREAD) == (threadTag != null),
        "loop %s: thread tag %s does not fit kind %s",
        loopVar,
        threadTag,
        kind);
    pragmas = List.copyOf(pragmas);
  }

  public static For serial(Var v, Expr min, Expr extent, Stmt body) {
    return new For(v, min, extent, ForKind.SERIAL, null, List.of(), body);
  }

  public For withBody(Stmt newBody) {
    return newBody == body
        ? this
        : new For(loopVar, min, extent, kind, threadTag, pragmas, newBody);
  }
}
