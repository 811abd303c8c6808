package dev.kernelgen.bench;

import java.util.Arrays;

/**
 * Median wall-clock time of an operation: warm up, then repeat between {@code minReps} and {@code
 * maxReps} times within a time budget. The median, not the mean, so that one descheduling on a
 * shared two-core machine does not move the figure.
 */
public record Timing(long warmupNanos, long budgetNanos, int minReps, int maxReps) {
  /** About 1.2 s per measurement at most, for operations under 50 ms. */
  public static final Timing DEFAULT = new Timing(200_000_000L, 1_000_000_000L, 20, 200);

  public Timing {
    if (minReps < 1 || maxReps < minReps || budgetNanos <= 0 || warmupNanos < 0) {
      throw new IllegalArgumentException(
          "bad timing: reps " + minReps + ".." + maxReps + ", budget " + budgetNanos + " ns");
    }
  }

  /** Median microseconds of {@code op}. */
  public double medianMicros(Runnable op) {
    // Warm-up: at least twice (JIT, page faults, ORT's first-run allocations), then until the
    // warm-up time is spent.
    long start = System.nanoTime();
    int warm = 0;
    while (warm < 2 || (System.nanoTime() - start < warmupNanos && warm < maxReps)) {
      op.run();
      warm++;
    }
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
      if ((spent >= budgetNanos && reps >= minReps) || (spent >= 2 * budgetNanos && reps >= 3)) {
        break;
      }
    }
    long[] sorted = Arrays.copyOf(times, reps);
    Arrays.sort(sorted);
    double median =
        reps % 2 == 1 ? sorted[reps / 2] : (sorted[reps / 2 - 1] + sorted[reps / 2]) / 2.0;
    return median / 1000.0;
  }
}
