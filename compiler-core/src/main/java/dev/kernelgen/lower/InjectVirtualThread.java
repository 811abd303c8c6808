package dev.kernelgen.lower;

import dev.kernelgen.te.IntImm;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;

/**
 * Virtual threads: each GPU thread runs the iterations of a {@code vthread} loop one after the
 * other, interleaved by unrolling (constant extents), so that the native compiler schedules their
 * independent instructions together; their locals become separate registers. The loop stays in
 * place, around the real thread loops, so every thread iterates the same number of times and
 * barriers inside remain uniform.
 */
final class InjectVirtualThread extends StmtMutator {
  static Stmt run(Stmt s) {
    return new InjectVirtualThread().mutate(s);
  }

  @Override
  public Stmt mutate(Stmt s) {
    Stmt m = mutateStmtChildren(s);
    if (m instanceof For f && f.kind() == ForKind.VTHREAD) {
      ForKind kind = f.extent() instanceof IntImm ? ForKind.UNROLLED : ForKind.SERIAL;
      return new For(f.loopVar(), f.min(), f.extent(), kind, null, f.pragmas(), f.body());
    }
    return m;
  }
}
