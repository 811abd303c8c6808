package dev.kernelgen.runtime;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * Whether a device, module or launcher is open, and who is using it. A use (a launch, a copy) runs
 * between {@link #enter()} and the {@link Use}'s close, holding a read lock; {@link #close()} takes
 * the write lock, so it waits for the uses in flight, and every later use throws an {@link
 * IllegalStateException} naming what was closed. A child (a module) is closed when its parent (the
 * device) is, and a use of the child is a use of the parent too.
 *
 * <p>The CUDA device also takes the write lock while it captures a graph ({@link #exclusive}): a
 * launch from another thread then waits for the capture to end instead of joining the graph.
 */
public final class Lifecycle {
  /** How long a use waits for a capture or a close by another thread before it gives up. */
  static final long WAIT_SECONDS = 60;

  private final Object what;
  private final Lifecycle parent;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final Use use = new Use();
  private volatile boolean closed;

  /**
   * @param what names the thing in messages, through its {@code toString()}, read only when a
   *     message is made
   */
  public Lifecycle(Object what) {
    this(what, null);
  }

  public Lifecycle(Object what, Lifecycle parent) {
    this.what = what;
    this.parent = parent;
  }

  /** Ends a use; closing it twice is an error of the caller. */
  public final class Use implements AutoCloseable {
    private Use() {}

    @Override
    public void close() {
      exit();
    }
  }

  /** Whether this or its parent was closed. */
  public boolean isClosed() {
    return closed || (parent != null && parent.isClosed());
  }

  /**
   * Throws when this or its parent was closed.
   *
   * @throws IllegalStateException naming what was closed
   */
  public void checkOpen() {
    if (parent != null) {
      parent.checkOpen();
    }
    if (closed) {
      throw closedError();
    }
  }

  /**
   * Starts a use: {@code try (Lifecycle.Use u = lifecycle.enter()) { ... }}.
   *
   * @throws IllegalStateException when this or its parent was closed, or another thread held it
   *     alone (closing it, capturing a graph) for longer than a minute
   */
  public Use enter() {
    if (parent != null) {
      parent.enter();
    }
    try {
      lockShared();
      if (closed) {
        lock.readLock().unlock();
        throw closedError();
      }
    } catch (RuntimeException | Error e) {
      if (parent != null) {
        parent.exit();
      }
      throw e;
    }
    return use;
  }

  /** Starts a use if still open (for releasing children); else null. */
  public Use tryEnter() {
    try {
      return enter();
    } catch (IllegalStateException e) {
      return null;
    }
  }

  private void exit() {
    lock.readLock().unlock();
    if (parent != null) {
      parent.exit();
    }
  }

  private void lockShared() {
    // The timed tryLock, even for no wait: it queues behind a waiting close or capture, where the
    // untimed one takes the lock ahead of them, and threads that keep using it (four launching in
    // a loop) would starve a close for ever.
    try {
      if (lock.readLock().tryLock(WAIT_SECONDS, TimeUnit.SECONDS)) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + what, e);
    }
    throw new IllegalStateException(
        "waited "
            + WAIT_SECONDS
            + " s for "
            + what
            + ": another thread holds it alone (capturing a CUDA graph, or closing it)");
  }

  /**
   * Runs {@code action} with no other thread using this; the calling thread may use it inside.
   *
   * @throws IllegalStateException when it was closed
   */
  public <T> T exclusive(Supplier<T> action) {
    if (lock.getReadHoldCount() > 0) {
      throw new IllegalStateException(
          "cannot hold " + what + " alone from inside a use of it on the same thread");
    }
    lock.writeLock().lock();
    try {
      checkOpen();
      return action.get();
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Marks it closed once the uses in flight have ended.
   *
   * @return true the first time, when the caller releases the resources; false after
   * @throws IllegalStateException when called from inside a use on the same thread (it would wait
   *     for itself)
   */
  public boolean close() {
    if (lock.getReadHoldCount() > 0) {
      throw new IllegalStateException(
          "cannot close " + what + " from inside a use of it on the same thread");
    }
    lock.writeLock().lock();
    try {
      if (closed) {
        return false;
      }
      closed = true;
      return true;
    } finally {
      lock.writeLock().unlock();
    }
  }

  private IllegalStateException closedError() {
    return new IllegalStateException(what + " was closed");
  }

  @Override
  public String toString() {
    return what + (closed ? " (closed)" : "");
  }
}
