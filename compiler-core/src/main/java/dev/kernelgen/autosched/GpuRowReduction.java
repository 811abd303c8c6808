package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.IterVar;
import java.util.List;

/**
 * {@link RowReduction} on GPUs, in one of two variants picked by knob {@value #THREADS}:
 *
 * <ul>
 *   <li>{@code 1}: a thread per row, knob {@code rows_per_block} rows per block (short rows, many
 *       rows);
 *   <li>{@code 32..1024}: a block per row of that many threads; each reduction of the group splits
 *       its (fused) reduce axes by the thread count and binds the inner part to {@code
 *       threadIdx.x}, a {@linkplain dev.kernelgen.schedule.CrossThread cross-thread reduction}
 *       whose result every thread holds, and the anchor's loop over the row is spread over the same
 *       threads (coalesced: thread {@code t} handles elements {@code t, t + threads, ...}).
 * </ul>
 *
 * <p>Both knobs are asked in either variant, so that the space is the same for every configuration.
 * The default is the variant {@link AnalyticPredictor} ranks first on the shape.
 */
final class GpuRowReduction {
  private GpuRowReduction() {}

  /** The knob of threads per row: 1 is a thread per row. */
  static final String THREADS = "threads_per_row";

  private static final int[] THREAD_CHOICES = {1, 32, 64, 128, 256, 512, 1024};

  /**
   * Schedules the anchor's loops ({@code rowAxes} first, then {@code rest}): where the group's
   * reductions are computed, and the threads per row ({@link #reductions} then schedules them).
   */
  record Placement(IterVar at, int threads) {}

  static Placement anchor(
      SketchState state, Stage anchor, List<IterVar> rowAxes, List<IterVar> rest) {
    double rows = 1;
    for (IterVar a : rowAxes) {
      rows *= size(a);
    }
    double length = 1;
    for (IterVar a : rest) {
      length *= size(a);
    }
    int threads = state.knob(anchor, THREADS, choices(rows, length));
    int perBlock = state.knob(anchor, "rows_per_block", 64, 32, 128, 256);
    IterVar fused = rowAxes.get(0);
    for (IterVar a : rowAxes.subList(1, rowAxes.size())) {
      fused = anchor.fuse(fused, a);
    }
    state.note(anchor, "gpu.row_length", length);
    state.note(anchor, "gpu.row_threads", threads);
    if (threads == 1) {
      Stage.Split sp = anchor.split(fused, perBlock);
      anchor.bind(sp.outer(), ThreadTag.BLOCK_X);
      anchor.bind(sp.inner(), ThreadTag.THREAD_X);
      state.note(anchor, "gpu.row_blocks", Math.ceil(rows / perBlock));
      state.note(anchor, "gpu.rows_per_block", perBlock);
      return new Placement(sp.inner(), 1);
    }
    IterVar col = rest.get(0);
    for (IterVar a : rest.subList(1, rest.size())) {
      col = anchor.fuse(col, a);
    }
    Stage.Split sc = anchor.split(col, threads);
    anchor.reorder(fused, sc.inner(), sc.outer());
    anchor.bind(fused, ThreadTag.BLOCK_X);
    anchor.bind(sc.inner(), ThreadTag.THREAD_X);
    state.note(anchor, "gpu.row_blocks", rows);
    state.note(anchor, "gpu.rows_per_block", 1);
    return new Placement(sc.inner(), threads);
  }

  /** In the block-per-row variant, spreads each reduction of the group over the row's threads. */
  static void reductions(List<Stage> group, int threads) {
    if (threads == 1) {
      return;
    }
    for (Stage r : group) {
      List<IterVar> red = r.reduceAxis();
      IterVar k = red.get(0);
      for (IterVar a : red.subList(1, red.size())) {
        k = r.fuse(k, a);
      }
      Stage.Split sk = r.split(k, threads);
      r.bind(sk.inner(), ThreadTag.THREAD_X);
    }
  }

  private static double size(IterVar a) {
    long e = ComputeDag.extent(a);
    return e > 0 ? e : MultiLevelTiling.SYMBOLIC_EXTENT;
  }

  /** The thread choices, the one the predictor ranks first on this shape first. */
  private static int[] choices(double rows, double length) {
    int best = THREAD_CHOICES[0];
    double bestCost = Double.MAX_VALUE;
    for (int t : THREAD_CHOICES) {
      double c = AnalyticPredictor.rowCost(rows, length, t, 64);
      if (c < bestCost) {
        bestCost = c;
        best = t;
      }
    }
    int[] out = new int[THREAD_CHOICES.length];
    out[0] = best;
    int n = 1;
    for (int t : THREAD_CHOICES) {
      if (t != best) {
        out[n++] = t;
      }
    }
    return out;
  }
}
