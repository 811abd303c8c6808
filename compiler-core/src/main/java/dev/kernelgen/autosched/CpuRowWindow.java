package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The CPU row form of a sliding-window reduction (knob {@code layout} {@value #LAYOUT}): a
 * depthwise convolution, a pooling window, a user's stencil. Such a reduction reuses its input only
 * where windows overlap, so a register tile buys little; what pays is long vectors along whole rows
 * and the window's source kept in L1. Derived from the reads, as the library's hand-written
 * depthwise schedule does it by hand ({@code topi.DepthwiseSchedules.cpu}):
 *
 * <ul>
 *   <li>the planes (every data axis but the last two, fused) run in parallel, in bands of rows
 *       (knob {@code band}: rows per band, 0 for the whole plane) that keep the producer in L1;
 *       where the planes are few (one, for a stencil over an image) each band is a task of its own,
 *       so that every core has tasks;
 *   <li>an injective producer the window reads (padding) is computed per band, or per plane;
 *   <li>each output row is summed in a row buffer, vectorized along the row: the window's rows
 *       (every reduce axis but the last) outside the row's loop, its columns unrolled inside, one
 *       multiply-add per tap and vector; the epilogue reads the row buffer;
 *   <li>a small plane whose rows are not whole vectors is summed whole at the pitch of the plane it
 *       reads (storage_align), so that {@code lower.CoalescePitchedRows} runs it as one vector
 *       loop; a window of stride {@code s} along the row reads its producer stored in {@code s}
 *       phases (storage_deinterleave).
 * </ul>
 *
 * <p>On Java (the fallback where no native library loads) the same rows, the whole window in one
 * pass, no pitch or phases, bands only to share few planes among the cores: the hand-written
 * schedule's Java form.
 *
 * <p>It qualifies (C and Java) where every reduce axis is constant and the whole window is short
 * ({@link CpuTiling#MAX_UNROLLED} taps), some operand slides along the output's last axis (its last
 * index moves with that axis and with a reduce axis, and no other index does), every operand that
 * moves along that axis reads all data axes (no output reuses it but through the window: a
 * convolution over channels, reused across output channels, is the packed layout's), and the others
 * do not depend on the last axis (a filter, a scale).
 */
public final class CpuRowWindow {
  private CpuRowWindow() {}

  /** Knob {@code layout}: the row form. Apart from the tile layouts' values (0, 1, 2 + axis). */
  static final int LAYOUT = 100;

  /**
   * The fewest parallel tasks wanted: where the planes are fewer (one, for a stencil over an
   * image), bands of rows are tasks too.
   */
  static final int PARALLEL_TASKS = 2 * AnalyticPredictor.CORES;

  /** Whether the row form applies to {@code local}, the reduction's accumulating stage. */
  static boolean qualifies(SketchState state, Stage local) {
    int n = local.axis().size();
    boolean cpu = state.target() == Target.C || state.target() == Target.JAVA;
    if (!cpu || n < 2 || local.reduceAxis().isEmpty()) {
      return false;
    }
    long taps = taps(local);
    if (taps <= 0 || taps > CpuTiling.MAX_UNROLLED) {
      return false;
    }
    Var col = local.axis(n - 1).var();
    boolean slides = false;
    for (var e : ComputeDag.directReads(local).entrySet()) {
      for (List<Expr> idx : e.getValue()) {
        boolean along = false;
        for (int k = 0; k < idx.size(); k++) {
          if (FreeVars.uses(idx.get(k), col)) {
            if (k != idx.size() - 1) {
              return false; // along the row, it gathers
            }
            along = true;
          }
        }
        if (!along) {
          continue; // a filter, a scale: the same for the whole row
        }
        if (ComputeDag.axesUsed(local, List.of(idx)).size() != n) {
          return false; // reused across an axis: a tile's to exploit
        }
        Expr last = idx.get(idx.size() - 1);
        Long step = Simplifier.step(last, col);
        if (step == null || step <= 0) {
          return false;
        }
        if (step > 1 && ComputeDag.inlinedOnlyInto(state.schedule(), local, e.getKey()) == null) {
          return false; // strided reads of a placeholder would be gathered
        }
        slides |= slides(local, idx);
      }
    }
    return slides;
  }

  /** The window's taps: the product of the reduce axes' extents, 0 where one is symbolic. */
  private static long taps(Stage local) {
    long taps = 1;
    for (IterVar r : local.reduceAxis()) {
      long e = ComputeDag.extent(r);
      if (e <= 0) {
        return 0;
      }
      taps *= e;
    }
    return taps;
  }

  /**
   * Whether a read at {@code idx} slides along the output's row: its last index moves with the
   * output's last axis and with a reduce axis (the window's columns).
   */
  private static boolean slides(Stage local, List<Expr> idx) {
    Expr last = idx.get(idx.size() - 1);
    return FreeVars.uses(last, local.axis(local.axis().size() - 1).var())
        && ComputeDag.usesReduceAxis(local, last);
  }

  /**
   * The choices of knob {@code band}: rows per band, 0 for whole planes (a stencil without planes:
   * a task per row). In the space of every layout of a qualifying stage, read by this one only.
   */
  static int[] bandChoices(SketchState state, Stage tiled, Stage local) {
    int n = tiled.axis().size();
    long rows = ComputeDag.extent(tiled.axis(n - 2));
    // Bands of a producer computed per band, so that it fits L1: a placeholder read in place has
    // none.
    Tensor source = producerSource(local);
    boolean computed =
        source != null && ComputeDag.inlinedOnlyInto(state.schedule(), local, source) != null;
    int auto = computed && state.target() == Target.C ? RowBands.bandRows(source, rows) : 0;
    double planes = planes(tiled.axis());
    if (planes < PARALLEL_TASKS) {
      // Few planes (one: a stencil over an image): bands, no longer than L1's, share them among
      // the cores.
      long per = (long) Math.ceil(PARALLEL_TASKS / planes);
      long share = rows > 0 ? Math.max(RowBands.MIN_BAND_ROWS, (rows + per - 1) / per) : 8;
      if (auto > 0) {
        auto = (int) Math.min(auto, share);
      } else if (rows <= 0 || share < rows) {
        auto = (int) share;
      }
    }
    return auto > 0 ? new int[] {auto, 0} : new int[] {0};
  }

  /** The planes: the product of every data axis but the last two (nominal where symbolic). */
  private static double planes(List<IterVar> axes) {
    double planes = 1;
    for (int d = 0; d < axes.size() - 2; d++) {
      planes *= CpuPackedTiling.nominal(ComputeDag.extent(axes.get(d)));
    }
    return planes;
  }

  /**
   * Output rows summed at once (knob {@code rows}), where the C row form sums a window of several
   * rows sliding by one column: 1 (a pass over the row buffer per window row) or {@link #ROWS} (or
   * 2, a divisor of the rows, so that no row of a pass needs a guard): one pass then holds each of
   * those rows' sums in a register and loads each input vector once for all of them ({@code
   * lower.GroupSharedLoads} orders their multiply-adds so), reading 8 input rows for 4 output rows
   * of a 5x5 window where passes per window row read 25. It pays where the window's taps, which the
   * C compiler keeps in registers across the loop, fit the vector registers beside the sums, and
   * are too many for a pass per row to be cheap, and where the rows are whole vectors: the default
   * where the taps number {@value #MULTI_ROW_MIN_TAPS} to {@link #maxMultiRowTaps} and the row is a
   * multiple of the lanes, in the space (not the default) elsewhere. Measured on a 2-core Zen 4,
   * depthwise fused with its epilogue, 4 rows against 1: 5x5 [1,256,96,96] 0.79-0.92 against
   * 1.02-1.05 ms at x86-64-v4, 1.01 against 0.99 ms at v3 (16 registers); 5x5 [1,256,64,64]
   * 0.36-0.43 against 0.45-0.56; 3x3 [1,256,96,96] 0.46-0.53 against 0.44-0.49 ms at v4, 0.38
   * against 0.43 at v3; 7x7 [1,256,56,56] 1.35-1.98 against 0.66-0.76 ms at v4 (49 taps spill); 5x5
   * [1,144,56,56] (rows of 3.5 vectors) 0.50-0.75 against 0.31 ms.
   */
  static int[] rowsChoices(SketchState state, Stage local) {
    List<IterVar> reduce = local.reduceAxis();
    if (state.target() != Target.C
        || reduce.size() < 2
        || ComputeDag.extent(reduce.get(reduce.size() - 2)) < 2
        || rowStride(local) != 1
        || ComputeDag.selects(local.body())) {
      // (Bounds checked in the window itself, a user's padding by a select: at the first and last
      // rows a pass over several rows checks them per tap, where a row at a time has its border
      // rows peeled. A 3x3 average pool [8,64,56,56] ran 0.45 ms a row at a time, 1.05 four.)
      return new int[] {1};
    }
    long taps = taps(local);
    long width = ComputeDag.extent(local.axis(local.axis().size() - 1));
    int lanes = state.vectors().lanes();
    boolean fits =
        taps >= MULTI_ROW_MIN_TAPS
            && taps <= maxMultiRowTaps(state.vectors())
            && width > 0
            && width % lanes == 0;
    long rows = ComputeDag.extent(local.axis(local.axis().size() - 2));
    for (int r = ROWS; r > 1; r /= 2) {
      if (rows > r && rows % r == 0) {
        return fits ? new int[] {r, 1} : new int[] {1, r};
      }
    }
    return new int[] {1};
  }

  /** The most output rows summed at once: see {@link #rowsChoices}. */
  static final int ROWS = 4;

  /**
   * The fewest taps for which several rows at once are the default: more than 16 (a 3x5 window).
   */
  static final int MULTI_ROW_MIN_TAPS = 17;

  /**
   * The most: the vector registers less {@value #ROWS} sums and 2 for the input vector and a
   * product (26 on AVX-512, 10 on AVX2).
   */
  static int maxMultiRowTaps(VectorUnit unit) {
    return unit.registers() - ROWS - 2;
  }

  /**
   * The band of {@code band} rows made whole for {@code rowsAtOnce} rows at a time: the multiple of
   * it nearest to {@code band} that divides the {@code rows}, so that neither a band nor a pass has
   * a ragged end (96 rows in bands of 20 end in a band of 16; of 24, 4 bands).
   */
  static int wholeBand(int band, long rows, int rowsAtOnce) {
    int best = 0;
    for (int b = rowsAtOnce; b <= rows; b += rowsAtOnce) {
      if (rows % b == 0 && (best == 0 || Math.abs(b - band) < Math.abs(best - band))) {
        best = b;
      }
    }
    return best == rows ? 0 : best;
  }

  static void apply(
      SketchState state, Stage red, Stage tiled, Stage local, int band, int rowsAtOnce) {
    Schedule s = state.schedule();
    int n = tiled.axis().size();
    List<IterVar> axes = new ArrayList<>(tiled.axis());
    IterVar row = axes.get(n - 2);
    IterVar col = axes.get(n - 1);
    IterVar plane = null;
    if (n > 2) {
      plane = axes.get(0);
      for (int d = 1; d < n - 2; d++) {
        plane = tiled.fuse(plane, axes.get(d));
      }
    }
    // The parallel tasks: planes, the bands of few planes, or rows. The producer is computed per
    // band where there are bands. (Planes and bands fused into tasks where the planes are many
    // too ran the seed's [1,256,96,96] 1-6% slower than its bands inside each plane's task.)
    IterVar task = plane;
    IterVar producerAt = plane;
    if (band > 0 && rowsAtOnce > 1) {
      band = wholeBand(band, ComputeDag.extent(row), rowsAtOnce);
    }
    if (band > 0) {
      Stage.Split bands = tiled.split(row, band);
      producerAt = bands.outer();
      row = bands.inner();
      if (plane == null) {
        task = producerAt;
      } else if (planes(axes) < PARALLEL_TASKS) {
        task = tiled.fuse(plane, producerAt);
        producerAt = task;
      }
    } else if (plane == null) {
      task = row;
      producerAt = row;
    }
    tiled.parallel(task);
    // Java keeps the whole window in one pass over the row and the producer as it is: the form its
    // JIT vectorizes (the passes over the row buffer ran 3-5x slower there in the hand-written
    // schedule), with no pitch for the C compiler's pass to coalesce.
    boolean c = state.target() == Target.C;
    Tensor source = producerSource(local);
    long width = ComputeDag.extent(local.axis(n - 1));
    long stride = rowStride(local);
    long pitch =
        c && band == 0 && plane != null ? RowBands.planePitch(source, width, stride == 1) : 0;
    if (width <= 0) {
      // A symbolic row cannot size a local array: the row buffer is the thread's heap temporary.
      local.setScope("global");
    }
    // (Not where the row itself is the task or the producer's place: a stencil without planes.)
    boolean multiRow = rowsAtOnce > 1 && pitch == 0 && row != task && row != producerAt;
    if (multiRow) {
      row = tiled.split(row, rowsAtOnce).outer();
    }
    local.computeAt(tiled, pitch > 0 ? plane : row);
    if (pitch > 0) {
      local.storageAlign(local.axis(n - 2), (int) pitch, 0);
    }
    tiled.vectorize(col);
    // The row vectorized, the window's columns unrolled inside it; its rows outside, one pass
    // over the row buffer each (a chain of KW dependent multiply-adds per vector, not KH x KW),
    // where the window slides by one column and the plane is summed row by row. Or several
    // output rows at once: one pass, each row's sum in a register, the whole window unrolled.
    IterVar lcol = local.axis(n - 1);
    List<IterVar> reduce = local.reduceAxis();
    if (multiRow) {
      List<IterVar> order = new ArrayList<>(List.of(lcol));
      order.addAll(reduce);
      order.add(local.axis(n - 2));
      local.reorder(order.toArray(IterVar[]::new));
      local.unroll(local.axis(n - 2));
    } else if (c && stride == 1 && pitch == 0 && reduce.size() > 1) {
      List<IterVar> order = new ArrayList<>(reduce.subList(0, reduce.size() - 1));
      order.add(lcol);
      order.add(reduce.get(reduce.size() - 1));
      local.reorder(order.toArray(IterVar[]::new));
    }
    for (IterVar r : reduce) {
      if (ComputeDag.extent(r) <= CpuTiling.MAX_UNROLLED_REDUCTION) {
        local.unroll(r);
      }
    }
    local.vectorize(lcol);

    double materialized = 0;
    for (Tensor t : ComputeDag.directReads(local).keySet()) {
      Stage p = ComputeDag.inlinedOnlyInto(s, local, t);
      if (p == null) {
        continue;
      }
      p.computeAt(tiled, producerAt);
      IterVar last = p.axis(p.axis().size() - 1);
      if (c && stride > 1) {
        p.storageDeinterleave(last, (int) stride);
        Stage.Split phases = p.split(last, (int) stride);
        p.reorder(phases.inner(), phases.outer());
      } else if (c) {
        p.vectorize(last);
      }
      state.done(p);
      materialized += elements(t);
    }

    double tasks = planes(axes);
    long rows = CpuPackedTiling.nominal(ComputeDag.extent(axes.get(n - 2)));
    if (band > 0 && tasks < PARALLEL_TASKS) {
      tasks *= Math.ceil((double) rows / band);
    } else if (plane == null) {
      tasks = rows;
    }
    double work = 1;
    for (IterVar a : local.reduceAxis()) {
      work *= ComputeDag.extent(a);
    }
    for (IterVar a : axes) {
      work *= CpuPackedTiling.nominal(ComputeDag.extent(a));
    }
    state.note(red, "cpu.tasks", tasks);
    state.note(red, "cpu.row_window", 1);
    state.note(red, "cpu.producer_ratio", materialized / work);
  }

  /**
   * What the window reads along the row ({@link #slides}): the producer computed per band where
   * there is one, else the operand itself; null where nothing slides (not for a qualifying stage).
   * An operand read at the output's own columns (a per-pixel weight) is not it.
   */
  private static Tensor producerSource(Stage local) {
    for (Map.Entry<Tensor, List<List<Expr>>> e : ComputeDag.directReads(local).entrySet()) {
      if (e.getValue().stream().anyMatch(idx -> slides(local, idx))) {
        return e.getKey();
      }
    }
    return null;
  }

  /** The window's step along the row: the step of the sliding operand's last index. */
  private static long rowStride(Stage local) {
    Var col = local.axis(local.axis().size() - 1).var();
    long stride = 1;
    for (List<List<Expr>> reads : ComputeDag.directReads(local).values()) {
      for (List<Expr> idx : reads) {
        Long step = Simplifier.step(idx.get(idx.size() - 1), col);
        if (step != null && step > stride) {
          stride = step;
        }
      }
    }
    return stride;
  }

  private static double elements(Tensor t) {
    double e = 1;
    for (Expr d : t.shape()) {
      e *= Simplifier.simplify(d) instanceof IntImm c ? c.value() : CpuTiling.NOMINAL_EXTENT;
    }
    return e;
  }
}
