package dev.kernelgen.tir;

import dev.kernelgen.te.MemoryScope;

/**
 * Waits until all threads of a block arrive, making their writes to {@code scope} visible. A
 * barrier of {@code local} scope ({@link #warp}) only orders the threads of one warp on CUDA
 * ({@code __syncwarp}); elsewhere (OpenCL, the interpreter) it is a barrier of the whole block.
 */
public record Barrier(MemoryScope scope) implements Stmt {
  /** A barrier among the threads of a warp, for shared memory they alone write and read. */
  public static Barrier warp() {
    return new Barrier(MemoryScope.LOCAL);
  }

  public boolean isWarp() {
    return scope == MemoryScope.LOCAL;
  }
}
