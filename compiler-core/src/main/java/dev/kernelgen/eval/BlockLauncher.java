package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import java.util.List;

/**
 * Runs one GPU block of the loop IR interpreter: a virtual thread per combination of thread
 * indices, sharing a {@link BlockContext} (shared allocations, barriers); a failure in any thread
 * fails the block.
 */
final class BlockLauncher {
  private BlockLauncher() {}

  /** Most threads a block may have: far above any GPU's 1024, to catch runaway extents. */
  private static final long MAX_BLOCK_THREADS = 1 << 16;

  static void launch(Frame f, StmtNode nest, List<String> tags, LongNode[][] extents, int shared) {
    long[] dims = new long[tags.size()];
    long total = 1;
    for (int t = 0; t < dims.length; t++) {
      for (LongNode e : extents[t]) {
        dims[t] = Math.max(dims[t], e.eval(f));
      }
      total *= dims[t];
    }
    if (total <= 0) {
      return;
    }
    CompilerBug.check(total <= MAX_BLOCK_THREADS, "a block of %d threads %s", total, tags);
    BlockContext block = new BlockContext((int) total, tags, shared);
    Thread[] threads = new Thread[(int) total];
    long[] idx = new long[dims.length];
    for (int k = 0; k < total; k++) {
      Frame mine = f.copy();
      mine.block = block;
      mine.threadIdx = idx.clone();
      threads[k] =
          Thread.ofVirtual()
              .name("block-thread-" + k)
              .start(
                  () -> {
                    try {
                      nest.exec(mine);
                      block.exit(mine.threadIdx);
                    } catch (Throwable t) {
                      block.fail(t);
                    }
                  });
      for (int d = dims.length - 1; d >= 0; d--) {
        if (++idx[d] < dims[d]) {
          break;
        }
        idx[d] = 0;
      }
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CompilerBug("interrupted while running a block");
      }
    }
    Throwable failure = block.failure();
    if (failure instanceof RuntimeException r) {
      throw r;
    }
    if (failure instanceof Error err) {
      throw err;
    }
    if (failure != null) {
      throw new CompilerBug("block failed: " + failure);
    }
  }
}
