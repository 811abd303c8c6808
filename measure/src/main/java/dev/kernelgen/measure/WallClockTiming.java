package dev.kernelgen.measure;

import java.util.Arrays;

/**
 * The benchmarks' wall-clock protocol, for comparing kernelgen's kernels with peers that have no
 * device timer of ours (ONNX Runtime, plain Java loops) under one loop: median wall-clock time of
 * an operation: warm up, then repeat between {@code minReps} and {@code maxReps} times within a
 * time budget. The median, not the mean, so that one descheduling on a shared two-core machine does
 * not move the figure.
 */
public record WallClockTiming(long warmupNanos, long budgetNanos, int minReps, int maxReps) {
  /** About 1.2 s per measurement at most, for operations under 50 ms. */
  public static final WallClockTiming DEFAULT =
      new WallClockTiming(200_000_000L, 1_000_000_000L, 20, 200);

  public WallClockTiming {
    if (minReps < 1 || maxReps < minReps || budgetNanos <= 0 || warmupNanos < 0) {
      throw new IllegalArgumentException(
          "bad timing: reps " + minReps + ".." + maxReps + ", budget " + budgetNanos + " ns");
    }
  }

  /** Median microseconds of {@code op}. */
  public double medianMicros(Runnable op) {
    warmUp(op);
    return median(sample(op, budgetNanos, minReps, maxReps));
  }

  /**
   * Median microseconds of {@code a} and of {@code b}, measured side by side: after both warm up,
   * {@code rounds} rounds each time {@code a} then {@code b} for a share of the budget (after one
   * untimed run), the samples of each pooled. A change in the load of a shared machine (another
   * tenant's job starting) then falls on both rather than on whichever was measured second.
   */
  public double[] sideBySide(Runnable a, Runnable b, int rounds) {
    return sideBySide(rounds, a, b);
  }

  /** As {@link #sideBySide(Runnable, Runnable, int)}, for any number of operations in turn. */
  public double[] sideBySide(int rounds, Runnable... ops) {
    for (Runnable op : ops) {
      warmUp(op);
    }
    long[][] times = new long[ops.length][0];
    int min = Math.max(1, minReps / rounds);
    int max = Math.max(min, maxReps / rounds);
    // Each round starts with one untimed run: the other side's threads may still be spinning on
    // the cores (ORT's pool and OpenMP both spin after a run) and its data fills the caches.
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < ops.length; i++) {
        ops[i].run();
        times[i] = concat(times[i], sample(ops[i], budgetNanos / rounds, min, max));
      }
    }
    double[] medians = new double[ops.length];
    for (int i = 0; i < ops.length; i++) {
      medians[i] = median(times[i]);
    }
    return medians;
  }

  // Warm-up: at least twice (JIT, page faults, ORT's first-run allocations), then until the
  // warm-up time is spent.
  private void warmUp(Runnable op) {
    long start = System.nanoTime();
    int warm = 0;
    while (warm < 2 || (System.nanoTime() - start < warmupNanos && warm < maxReps)) {
      op.run();
      warm++;
    }
  }

  private static long[] sample(Runnable op, long budget, int minReps, int maxReps) {
    long[] times = new long[maxReps];
    int reps = 0;
    long measureStart = System.nanoTime();
    while (reps < maxReps) {
      long t0 = System.nanoTime();
      op.run();
      times[reps++] = System.nanoTime() - t0;
      long spent = System.nanoTime() - measureStart;
      // Stop at the budget once minReps are in; a slow operation (a second per run) stops after
      // three runs at twice the budget rather than taking minReps seconds.
      if ((spent >= budget && reps >= minReps) || (spent >= 2 * budget && reps >= 3)) {
        break;
      }
    }
    return Arrays.copyOf(times, reps);
  }

  private static long[] concat(long[] x, long[] y) {
    long[] out = Arrays.copyOf(x, x.length + y.length);
    System.arraycopy(y, 0, out, x.length, y.length);
    return out;
  }

  private static double median(long[] times) {
    long[] sorted = times.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    return median / 1000.0;
  }
}
