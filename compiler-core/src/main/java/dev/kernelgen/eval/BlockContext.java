package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.tir.Barrier;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * One GPU block whose threads run concurrently: its barrier and its shared-memory buffers.
 *
 * <p>The barrier is stricter than a {@link java.util.concurrent.CyclicBarrier}: all threads of a
 * generation must wait at the same barrier statement, and a thread may not finish while others wait
 * for it. Both are undefined behaviour on a GPU (a barrier in divergent code), so a lowering that
 * produces them is reported as a compiler bug rather than hanging or passing by luck. When a thread
 * fails, the others are released and the first failure is what the launch reports.
 */
final class BlockContext {
  private final int parties;
  private final List<String> tags;
  private final Mem[] shared;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();
  private int arrived;
  private int exited;
  private long generation;
  private Barrier site;
  private Throwable failure;

  BlockContext(int parties, List<String> tags, int sharedBuffers) {
    this.parties = parties;
    this.tags = tags;
    this.shared = new Mem[sharedBuffers];
  }

  /** Thrown in the threads that are released because another thread of the block failed. */
  static final class Aborted extends RuntimeException {
    Aborted() {
      super("block aborted", null, false, false);
    }
  }

  /** Shared buffer {@code k} of this block, allocated by the first thread that reaches it. */
  Mem shared(int k, String name, dev.kernelgen.te.DType dtype, LongSupplier size) {
    lock.lock();
    try {
      if (shared[k] == null) {
        shared[k] = Mem.allocate(name, dtype, size.getAsLong());
      }
      return shared[k];
    } finally {
      lock.unlock();
    }
  }

  void await(Barrier at, long[] threadIdx) {
    lock.lock();
    try {
      if (failure != null) {
        throw new Aborted();
      }
      if (exited > 0) {
        fail(
            new CompilerBug(
                "thread "
                    + who(threadIdx)
                    + " waits at a barrier that "
                    + exited
                    + " finished thread(s) of its block never reached (barrier in divergent"
                    + " code)"));
        throw new Aborted();
      }
      if (arrived > 0 && site != at) {
        fail(
            new CompilerBug(
                "threads of one block wait at different barriers (barrier in divergent code);"
                    + " thread "
                    + who(threadIdx)
                    + " is at another one than the first "
                    + arrived
                    + " thread(s)"));
        throw new Aborted();
      }
      site = at;
      if (++arrived == parties) {
        arrived = 0;
        generation++;
        released.signalAll();
        return;
      }
      long g = generation;
      while (g == generation && failure == null) {
        released.awaitUninterruptibly();
      }
      if (failure != null) {
        throw new Aborted();
      }
    } finally {
      lock.unlock();
    }
  }

  /** A thread finished its part of the kernel. */
  void exit(long[] threadIdx) {
    lock.lock();
    try {
      exited++;
      if (arrived > 0 && failure == null) {
        fail(
            new CompilerBug(
                "thread "
                    + who(threadIdx)
                    + " finished while "
                    + arrived
                    + " thread(s) of its block wait for it at a barrier (barrier in divergent"
                    + " code)"));
      }
    } finally {
      lock.unlock();
    }
  }

  /** Records the first failure and releases every waiting thread. */
  void fail(Throwable t) {
    lock.lock();
    try {
      if (failure == null && !(t instanceof Aborted)) {
        failure = t;
      }
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  Throwable failure() {
    lock.lock();
    try {
      return failure;
    } finally {
      lock.unlock();
    }
  }

  private String who(long[] threadIdx) {
    StringBuilder sb = new StringBuilder("(");
    for (int k = 0; k < tags.size(); k++) {
      sb.append(k == 0 ? "" : ", ").append(tags.get(k)).append('=').append(threadIdx[k]);
    }
    return tags.isEmpty() ? Arrays.toString(threadIdx) : sb.append(')').toString();
  }
}
