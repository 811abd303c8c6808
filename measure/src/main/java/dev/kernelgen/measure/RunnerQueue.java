package dev.kernelgen.measure;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A runner with a queue of its own: candidates submitted here run one at a time, in order, on one
 * thread of this queue, so that runs never share the device while runners of different devices (the
 * C harness on the CPU and CUDA on a GPU, say) measure at the same time. A distributed engine would
 * hold one such queue per device of each host.
 */
public final class RunnerQueue implements AutoCloseable {
  private final Runner runner;
  private final ExecutorService queue;

  public RunnerQueue(Runner runner) {
    this.runner = runner;
    this.queue =
        Executors.newSingleThreadExecutor(
            Thread.ofPlatform().daemon().name("kernelgen-queue-" + runner.target()).factory());
  }

  public Runner runner() {
    return runner;
  }

  /** Queues {@code input}; the future never fails for a candidate's fault. */
  public Future<RunResult> submit(RunnerInput input) {
    return queue.submit(() -> runner.run(input));
  }

  /** Stops the queue (what is queued is dropped) and closes the runner. */
  @Override
  public void close() {
    queue.shutdownNow();
    runner.close();
  }
}
