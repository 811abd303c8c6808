package dev.kernelgen.autosched;

import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@link RowReduction} on GPUs, in one of two variants picked by knob {@value #THREADS}:
 *
 * <ul>
 *   <li>{@code 1}: a thread per row, knob {@code rows_per_block} rows per block (short rows, many
 *       rows);
 *   <li>{@code 2..16}: that many threads per row, the rows of a block of {@value #SUB_WARP_BLOCK}
 *       threads on {@code threadIdx.y} (a row within a warp: rows of 16 to 64 elements, many rows,
 *       as PyTorch's warp softmax has them), reduced as below by each row's threads;
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

  private static final int[] THREAD_CHOICES = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};

  /** The threads of a block of several rows (threads per row below {@value ThreadTag#WARP}). */
  static final int SUB_WARP_BLOCK = 256;

  /**
   * The rows of a block of {@code threads} threads per row: one for a block per row; below a warp,
   * the largest power of two up to {@value #SUB_WARP_BLOCK} / {@code threads} that divides the row
   * count (a ragged last block would leave some rows of threads out of the all-reduce's barriers),
   * one where the count is symbolic.
   */
  static int rowsPerBlock(double rows, int threads) {
    if (threads >= ThreadTag.WARP || rows <= 0 || rows != Math.rint(rows) || rows >= 1L << 53) {
      return 1;
    }
    long n = (long) rows;
    int r = SUB_WARP_BLOCK / threads;
    while (r > 1 && n % r != 0) {
      r /= 2;
    }
    return r;
  }

  /**
   * Schedules the anchor's loops ({@code rowAxes} first, then {@code rest}): where the group's
   * reductions are computed, and the threads per row ({@link #reductions} then schedules them).
   */
  record Placement(IterVar at, int threads, long rowLength) {}

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
    boolean strided = stridedRows(anchor, rowAxes);
    long constantRows = constantLength(rowAxes);
    int threads = state.knob(anchor, THREADS, choices(rows, constantRows, length, strided));
    int perBlock = state.knob(anchor, "rows_per_block", 64, 32, 128, 256);
    IterVar fused = rowAxes.get(0);
    for (IterVar a : rowAxes.subList(1, rowAxes.size())) {
      fused = anchor.fuse(fused, a);
    }
    state.note(anchor, "gpu.row_length", length);
    state.note(anchor, "gpu.row_threads", threads);
    state.note(anchor, "gpu.row_strided", strided ? 1 : 0);
    if (threads == 1) {
      Stage.Split sp = anchor.split(fused, perBlock);
      anchor.bind(sp.outer(), ThreadTag.BLOCK_X);
      anchor.bind(sp.inner(), ThreadTag.THREAD_X);
      state.note(anchor, "gpu.row_blocks", Math.ceil(rows / perBlock));
      state.note(anchor, "gpu.rows_per_block", perBlock);
      return new Placement(sp.inner(), 1, constantLength(rest));
    }
    IterVar col = rest.get(0);
    for (IterVar a : rest.subList(1, rest.size())) {
      col = anchor.fuse(col, a);
    }
    Stage.Split sc = anchor.split(col, threads);
    if (threads < ThreadTag.WARP) {
      int perRowBlock = rowsPerBlock(constantRows, threads);
      Stage.Split sr = anchor.split(fused, perRowBlock);
      anchor.reorder(sr.outer(), sr.inner(), sc.inner(), sc.outer());
      anchor.bind(sr.outer(), ThreadTag.BLOCK_X);
      anchor.bind(sr.inner(), ThreadTag.THREAD_Y);
      anchor.bind(sc.inner(), ThreadTag.THREAD_X);
      state.note(anchor, "gpu.row_blocks", Math.ceil(rows / perRowBlock));
      state.note(anchor, "gpu.rows_per_block", perRowBlock);
      return new Placement(sc.inner(), threads, constantLength(rest));
    }
    anchor.reorder(fused, sc.inner(), sc.outer());
    anchor.bind(fused, ThreadTag.BLOCK_X);
    anchor.bind(sc.inner(), ThreadTag.THREAD_X);
    state.note(anchor, "gpu.row_blocks", rows);
    state.note(anchor, "gpu.rows_per_block", 1);
    return new Placement(sc.inner(), threads, constantLength(rest));
  }

  /**
   * In the block-per-row variant, spreads each reduction of the group over the row's threads, and
   * with knob {@value #STAGE} (where {@link #stageable} inputs exist) copies each row of those
   * inputs into shared memory first, so that the passes over the row (each reduction, then the
   * output) read it from there rather than from global memory (PyTorch's softmax does the same).
   */
  static void reductions(
      SketchState state, Stage anchor, List<Stage> group, Placement placed, int threads) {
    List<Tensor> staged = stageable(state.schedule(), anchor, group, placed);
    int stage = state.knob(anchor, STAGE, staged.isEmpty() ? new int[] {0} : new int[] {1, 0});
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
    // Rows shorter than a warp are read through L1 (and a row buffer of several rows per block is
    // not one of a row): not staged.
    if (stage == 0 || threads < ThreadTag.WARP) {
      return;
    }
    Schedule s = state.schedule();
    for (Tensor t : staged) {
      List<Tensor> readers = new ArrayList<>();
      for (Stage st : s.stages()) {
        if (readsDirectly(st, t)) {
          readers.add(st.tensor());
        }
      }
      Stage cs = s.stage(s.cacheRead(t, "shared", readers.toArray(Tensor[]::new)));
      cs.computeAt(anchor, placed.at());
      IterVar fused = cs.axis(0);
      for (IterVar a : cs.axis().subList(1, cs.axis().size())) {
        fused = cs.fuse(fused, a);
      }
      Stage.Split sp = cs.split(fused, threads);
      cs.bind(sp.inner(), ThreadTag.THREAD_X);
      state.done(cs);
    }
    state.note(anchor, "gpu.row_staged", staged.size());
    for (Tensor t : staged) {
      state.note(anchor, "gpu.row_staged_bytes", placed.rowLength() * t.dtype().bytes());
    }
  }

  /** The knob that stages rows of the inputs in shared memory (1) or not (0). */
  static final String STAGE = "stage_rows";

  /** The most bytes of one row staged in shared memory, all inputs together. */
  static final long MAX_STAGED_BYTES = 32 * 1024;

  /**
   * The inputs whose rows can be staged: placeholders of the anchor's shape (so a row of them is
   * one row of the output) read only by the anchor and the group (inlined stages looked through),
   * of a constant row length, at most {@link #MAX_STAGED_BYTES} together.
   */
  static List<Tensor> stageable(Schedule s, Stage anchor, List<Stage> group, Placement placed) {
    List<Tensor> out = new ArrayList<>();
    long bytes = 0;
    Set<Stage> inNest = new HashSet<>(group);
    inNest.add(anchor);
    for (Tensor t : s.inputs()) {
      if (!t.shape().equals(anchor.tensor().shape())) {
        continue;
      }
      boolean ok = true;
      for (Stage st : s.stages()) {
        if (readsDirectly(st, t)) {
          ok &=
              inNest.contains(st)
                  || st.attachType() == AttachType.INLINE
                      && inNest.containsAll(ComputeDag.readers(s, st));
        }
      }
      long perRow = placed.rowLength() > 0 ? placed.rowLength() * t.dtype().bytes() : -1;
      if (ok && perRow > 0 && bytes + perRow <= MAX_STAGED_BYTES) {
        out.add(t);
        bytes += perRow;
      }
    }
    return out;
  }

  /** The product of the constant extents of {@code axes}; -1 where one is symbolic. */
  private static long constantLength(List<IterVar> axes) {
    long n = 1;
    for (IterVar a : axes) {
      if (ComputeDag.extent(a) <= 0) {
        return -1;
      }
      n *= ComputeDag.extent(a);
    }
    return n;
  }

  /** Whether the body of {@code st} itself (not through inlined stages) reads {@code t}. */
  private static boolean readsDirectly(Stage st, Tensor t) {
    if (st.isPlaceholder() || st.body() == null) {
      return false;
    }
    boolean[] found = {false};
    new dev.kernelgen.te.ExprVisitor() {
      @Override
      public void visit(dev.kernelgen.te.Expr e) {
        found[0] |= e instanceof dev.kernelgen.te.TensorRead r && r.tensor() == t;
        super.visit(e);
      }
    }.visit(st.body());
    return found[0];
  }

  private static double size(IterVar a) {
    long e = ComputeDag.extent(a);
    return e > 0 ? e : MultiLevelTiling.SYMBOLIC_EXTENT;
  }

  /**
   * Whether neighbouring rows are neighbouring in memory: the anchor's innermost axis of more than
   * one element is a row axis (a norm over NCHW's channels, a column's mean).
   */
  private static boolean stridedRows(Stage anchor, List<IterVar> rowAxes) {
    for (int d = anchor.axis().size() - 1; d >= 0; d--) {
      if (!ComputeDag.isOne(anchor.axis(d))) {
        return rowAxes.contains(anchor.axis(d));
      }
    }
    return false;
  }

  /**
   * The thread choices, the one the predictor ranks first on this shape first ({@code rows} with
   * symbolic extents assumed, {@code constantRows} -1 where one is symbolic: below a warp, a block
   * of one row).
   */
  private static int[] choices(double rows, long constantRows, double length, boolean strided) {
    int best = THREAD_CHOICES[0];
    double bestCost = Double.MAX_VALUE;
    // Below a warp, neighbouring threads of a strided row would read words a row apart.
    int[] offered =
        java.util.Arrays.stream(THREAD_CHOICES)
            .filter(t -> !(strided && t > 1 && t < ThreadTag.WARP))
            .toArray();
    for (int t : offered) {
      // As the default stages the row where it fits: one input of 4-byte elements, typically.
      double staged = t >= ThreadTag.WARP && length * 4 <= MAX_STAGED_BYTES ? length * 4 : 0;
      double perBlock = t == 1 ? 64 : rowsPerBlock(constantRows, t);
      double c = AnalyticPredictor.rowCost(rows, length, t, perBlock, staged, strided);
      if (c < bestCost) {
        bestCost = c;
        best = t;
      }
    }
    int[] out = new int[offered.length];
    out[0] = best;
    int n = 1;
    for (int t : offered) {
      if (t != best) {
        out[n++] = t;
      }
    }
    return out;
  }
}
