package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.PlaceholderOp;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The CPU register tile vectorized along a chosen data axis {@code v} of the reduction, with its
 * operands laid out for it (knob {@code layout} {@value #BASE} + v): the micro-kernel of a matmul
 * or an NCHW convolution (the library's templates do the same by hand), derived from the reads.
 *
 * <p>An axis {@code v} qualifies when some operand does not depend on it (it is broadcast across
 * the vector: the convolution's input along output channels, A along B's columns) and every operand
 * that does is either contiguous along it ({@code v} in its last index only) or a placeholder
 * indexed by {@code v} itself in one dimension and by reduce axes elsewhere (a weight: the filter
 * along output channels, dense's {@code W[j, k]} along {@code j}). Such a weight is packed once per
 * tile of {@code v} into a {@code local} panel stored with {@code v} innermost ({@code cache_read}
 * + {@code reorder_storage}), reused across the other axes of the task. Injective stages the
 * reduction reads directly (padding) are computed once per parallel task instead of inlined, so
 * that the inner loops hold no bound checks. The accumulator tile is stored with {@code v}
 * innermost, so its vectors are loaded and stored whole; each step of the reduction broadcasts the
 * operands that do not depend on {@code v} and multiplies them by vectors of the others, as the
 * hand-written micro-kernels do.
 *
 * <p>Loops, as a GEMM's: the tiles of {@code v} outermost, where the panels are packed once and
 * shared by every thread; inside, the first two other axes split, fused and run in parallel, then
 * the other tiles; inside the tile the reduction, then the other axes unrolled, then {@code v}
 * vectorized. Only for C, and only where the reduction's extents and that of {@code v} are
 * constants (the panels then have constant sizes): the other axes may be symbolic (a batch, an
 * image's height and width), their tiles guarded at the ragged border and the rows a task
 * materializes held in a heap temporary of the task's thread.
 */
final class CpuPackedTiling {
  private CpuPackedTiling() {}

  /** Knob {@code layout} {@code BASE + v} vectorizes along data axis {@code v}. */
  static final int BASE = 2;

  /**
   * The smallest extent of a vectorized axis: one AVX-512 vector of floats, whatever the level's
   * {@link VectorUnit} (the space of a schedule is the same for every level; the unit only ranks).
   */
  static final int MIN_VECTOR_EXTENT = 16;

  /** How an operand reads along a candidate axis. */
  private enum Along {
    BROADCAST,
    CONTIGUOUS,
    PACKED,
    NO
  }

  /**
   * The data axes (positions in {@code local}'s axes) that the packed layout can vectorize along;
   * empty where the target is not C or an extent is symbolic.
   */
  static List<Integer> candidates(SketchState state, Stage local) {
    List<Integer> out = new ArrayList<>();
    if (state.target() != Target.C) {
      return out;
    }
    Map<Tensor, List<List<Expr>>> reads = ComputeDag.directReads(local);
    for (int d = 0; d < local.axis().size(); d++) {
      long extent = ComputeDag.extent(local.axis(d));
      if (extent > 0 && extent < MIN_VECTOR_EXTENT) {
        continue;
      }
      boolean broadcast = false;
      boolean ok = true;
      for (var e : reads.entrySet()) {
        Along a = along(local, e.getKey(), e.getValue(), local.axis(d).var());
        broadcast |= a == Along.BROADCAST;
        ok &= a != Along.NO;
      }
      if (ok && broadcast) {
        out.add(d);
      }
    }
    return out;
  }

  /**
   * Whether {@code st} reads an inlined stage that selects (padding's bounds check): in the other
   * layouts that select runs in the reduction's inner loop, and its borders split the rows.
   */
  static boolean readsInlinedSelect(Schedule s, Stage st) {
    for (Tensor t : ComputeDag.directReads(st).keySet()) {
      if (!(t.op() instanceof PlaceholderOp)
          && s.stage(t).attachType() == AttachType.INLINE
          && ComputeDag.selects(s.stage(t).body())) {
        return true;
      }
    }
    return false;
  }

  private static Along along(Stage local, Tensor t, List<List<Expr>> reads, Var v) {
    boolean uses = false;
    boolean contiguous = true;
    boolean packable = t.op() instanceof PlaceholderOp && reads.size() == 1;
    boolean batched = false;
    for (List<Expr> idx : reads) {
      for (int k = 0; k < idx.size(); k++) {
        Expr i = idx.get(k);
        boolean here = FreeVars.uses(i, v);
        uses |= here;
        if (here && k != idx.size() - 1) {
          contiguous = false;
        }
        // Along the last dimension by a step other than one (a stride-2 convolution's 2t + k):
        // the vector would gather (a conv1d of stride 2 so: 20 GFLOP/s, 2-core Zen 4).
        if (here && k == idx.size() - 1 && !Long.valueOf(1).equals(Simplifier.step(i, v))) {
          contiguous = false;
        }
        // A weight: v itself in one dimension, reduce axes (or constants) in the others, or a
        // batch axis itself (a data axis every operand reads by: attention's keys per head, packed
        // for every head at once; 16 heads of [128, 64] x [128, 64]^T: 876-891 us as dot
        // products, 187-199 us packed, 2-core Zen 4).
        if (here ? i != v : ComputeDag.usesDataAxis(local, i) && !isBatchAxis(local, i)) {
          packable = false;
        }
        batched |= !here && ComputeDag.usesDataAxis(local, i);
      }
    }
    if (!uses) {
      return Along.BROADCAST;
    }
    // A weight is packed even where it is contiguous along v (matmul's B[k, j]): its panel's rows
    // are then adjacent, not a row of the whole tensor apart.
    // A batch of weights contiguous along v (a batched matmul's B[b, k, j]) is read in place: its
    // copy per call cost more than it saved (16 x [128, 64] x [64, 128]: 145 us so, 153-160 us
    // packed).
    if (packable && !(batched && contiguous)) {
      return Along.PACKED;
    }
    return contiguous ? Along.CONTIGUOUS : Along.NO;
  }

  /** Whether {@code e} is a data axis of {@code st} that every read of every operand indexes. */
  private static boolean isBatchAxis(Stage st, Expr e) {
    if (st.axis().stream().noneMatch(a -> a.var() == e)) {
      return false;
    }
    for (List<List<Expr>> reads : ComputeDag.directReads(st).values()) {
      for (List<Expr> idx : reads) {
        if (!idx.contains(e)) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The most rows (the product of the extents of the first two axes beside the packed one) where
   * {@link #parallelOverV} may hold: fewer than two tasks per core of the predictor's machine.
   */
  static final long FEW_ROWS = 2L * AnalyticPredictor.CORES;

  /**
   * Whether the tiles of the packed axis {@code v}, where a weight is packed along it, run in
   * parallel, each task packing its own panel and covering every row: where the first two other
   * axes have fewer than {@value #FEW_ROWS} points and {@code v} at least two vectors (ResNet's
   * last convolutions: 7 or 14 rows of one image; a vector times a matrix: one row). Run in
   * parallel instead, few rows leave cores idle, a parallel region is entered per tile of {@code
   * v}, and each row tile streams the weight's panel again, from memory once it is past L2 (noted
   * for the predictor here). Untuned picks, 2-core Zen 4, us: [1,512,7,7]x512 3778 -> 1343,
   * [1,256,14,14]x256 1645 -> 1110, [1,128,14,14]x128 364 -> 279, [1,64,14,14]x64 96 -> 82,
   * [1,256,7,7]x128 300 -> 165.
   */
  static boolean parallelOverV(Stage local, int v) {
    long rows = 1;
    int counted = 0;
    for (int d = 0; d < local.axis().size() && counted < 2; d++) {
      if (d != v) {
        long e = ComputeDag.extent(local.axis(d));
        rows *= e > 0 ? e : FEW_ROWS;
        counted++;
      }
    }
    long vectors = ComputeDag.extent(local.axis(v)) / MIN_VECTOR_EXTENT;
    return counted > 0 && rows < FEW_ROWS && vectors >= 2;
  }

  static void apply(SketchState state, Stage red, Stage tiled, Stage local, int v, int[] tiles) {
    Schedule s = state.schedule();
    int n = tiles.length;
    List<IterVar> axes = tiled.axis();
    IterVar[] outer = new IterVar[n];
    IterVar[] inner = new IterVar[n];
    for (int d = 0; d < n; d++) {
      Stage.Split sp = tiled.split(axes.get(d), tiles[d]);
      outer[d] = sp.outer();
      inner[d] = sp.inner();
    }
    List<Integer> others = new ArrayList<>();
    for (int d = 0; d < n; d++) {
      if (d != v) {
        others.add(d);
      }
    }
    Var vv = local.axis(v).var();
    Map<Tensor, List<List<Expr>>> reads = ComputeDag.directReads(local);
    boolean packs = false;
    for (var e : reads.entrySet()) {
      packs |= along(local, e.getKey(), e.getValue(), vv) == Along.PACKED;
    }
    boolean parallelV = packs && parallelOverV(local, v);
    int parallelAxes = parallelV ? 0 : Math.min(2, others.size());
    // The tiles of v go outermost only where a weight is packed per tile (the panel is then shared
    // by every task); with nothing packed they go inside the task, so that what the task
    // materializes (the padded rows) is computed once per task, not once per task and tile of v in
    // a parallel region each: a 3x3 depthwise over [1,64,56,56] ran 104 us with 7 such regions,
    // against 72 us for its naive loops (2-core Zen 4).
    boolean vFirst = packs || parallelAxes == 0;
    List<IterVar> order = new ArrayList<>();
    if (vFirst) {
      order.add(outer[v]);
    }
    for (int k = 0; k < others.size(); k++) {
      order.add(outer[others.get(k)]);
    }
    if (!vFirst) {
      order.add(outer[v]);
    }
    for (int d : others) {
      order.add(inner[d]);
    }
    order.add(inner[v]);
    tiled.reorder(order.toArray(IterVar[]::new));
    IterVar task = parallelAxes == 0 ? outer[v] : outer[others.get(0)];
    if (parallelAxes == 2) {
      task = tiled.fuse(outer[others.get(0)], outer[others.get(1)]);
    }
    tiled.parallel(task);
    IterVar lastOuter =
        !vFirst
            ? outer[v]
            : others.size() > parallelAxes ? outer[others.get(others.size() - 1)] : task;
    long rows = 1;
    for (int d : others) {
      rows *= tiles[d];
    }
    boolean raggedVector = CpuTiling.variesPerTile(ComputeDag.extent(axes.get(v)), tiles[v]);
    boolean unrollRows =
        rows <= CpuTiling.maxUnrolledRows(ComputeDag.extent(axes.get(v)), tiles[v], false);
    for (int d : others) {
      if (unrollRows) {
        tiled.unroll(inner[d]);
      }
    }
    tiled.vectorize(inner[v]);

    // Operands: weights packed per tile of v, injective producers computed once per task (or once
    // before the tasks, where every task reads them whole).
    double packed = 0;
    double materialized = 0; // per task
    double shared = 0; // once, before the tasks
    List<java.util.Set<Integer>> readAxes = new ArrayList<>();
    for (var e : reads.entrySet()) {
      Tensor t = e.getKey();
      readAxes.add(ComputeDag.axesUsed(local, e.getValue()));
      Along a = along(local, t, e.getValue(), vv);
      if (a == Along.PACKED) {
        // A panel over a symbolic reduction (the input channels) is a heap temporary.
        Tensor panel =
            s.cacheRead(t, constantReduction(local) ? "local" : "global", local.tensor());
        Stage sp = s.stage(panel);
        sp.computeAt(tiled, outer[v]);
        int at = -1;
        List<Expr> idx = e.getValue().get(0);
        for (int k = 0; k < idx.size(); k++) {
          if (idx.get(k) == vv) {
            at = k;
          }
        }
        List<IterVar> storage = new ArrayList<>();
        for (int k = 0; k < idx.size(); k++) {
          if (k != at) {
            storage.add(sp.axis(k));
          }
        }
        storage.add(sp.axis(at));
        sp.reorderStorage(storage.toArray(IterVar[]::new));
        sp.reorder(storage.toArray(IterVar[]::new));
        if (parallelAxes > 0) {
          // Packed outside the parallel loop: by all threads, not by one while the others wait.
          sp.parallel(storage.get(0));
        }
        double size = tiles[v];
        for (int k = 0; k < idx.size(); k++) {
          if (k != at) {
            size *= nominal(ComputeDag.extent(sp.axis(k)));
          }
        }
        packed += size;
      } else if (ComputeDag.inlinedOnlyInto(s, local, t) != null) {
        Stage p = s.stage(t);
        List<Expr> idx = e.getValue().get(0);
        double region = ProducerRegion.of(local, idx, others.subList(0, parallelAxes), tiles);
        if (parallelV && idx.stream().noneMatch(x -> FreeVars.uses(x, vv))) {
          // Every task of v reads all of it: computed once, before the tasks, by every thread (per
          // task, each of [1,512,7,7]x512's 16 tasks padded the whole input).
          p.computeRoot();
          if (p.axis().size() > 2) {
            p.parallel(p.fuse(p.axis(0), p.axis(1)));
          } else if (p.axis().size() == 2) {
            p.parallel(p.axis(0));
          }
          shared += region;
        } else {
          int band = ProducerRegion.bandAxis(local, idx, t, others, parallelAxes, tiles);
          p.computeAt(tiled, band >= 0 ? outer[band] : task);
          materialized += region;
        }
        if (!p.axis().isEmpty()) {
          p.vectorize(p.axis(p.axis().size() - 1));
        }
        state.done(p);
      }
    }

    // The accumulator tile: the reduction outside, the other axes unrolled, v innermost.
    local.computeAt(tiled, lastOuter);
    List<IterVar> lorder = new ArrayList<>(local.reduceAxis());
    List<IterVar> lstorage = new ArrayList<>();
    for (int d : others) {
      lorder.add(local.axis(d));
      lstorage.add(local.axis(d));
    }
    lorder.add(local.axis(v));
    lstorage.add(local.axis(v));
    local.reorder(lorder.toArray(IterVar[]::new));
    if (v != n - 1) {
      local.reorderStorage(lstorage.toArray(IterVar[]::new));
    }
    // Short reduce axes unrolled, innermost first, while the unrolled body stays within budget.
    // Rows
    // left as loops for a ragged vector still count: each is partitioned at the ragged border.
    long unrolled = unrollRows || raggedVector ? rows : 1;
    for (int k = local.reduceAxis().size() - 1; k >= 0; k--) {
      IterVar r = local.reduceAxis(k);
      long e = ComputeDag.extent(r);
      if (e <= 0 || e > CpuTiling.MAX_UNROLLED_REDUCTION || unrolled * e > CpuTiling.MAX_UNROLLED) {
        break;
      }
      local.unroll(r);
      unrolled *= e;
    }
    for (int d : others) {
      if (unrollRows) {
        local.unroll(local.axis(d));
      }
    }
    local.vectorize(local.axis(v));

    // Notes for the predictor, as the register tile's, with v as the vectorized axis.
    long regTile = rows * tiles[v];
    double tasks = 1;
    double waste = 1;
    int ragged = 0;
    for (int d = 0; d < n; d++) {
      long e = nominal(ComputeDag.extent(axes.get(d)));
      long count = (e + tiles[d] - 1) / tiles[d];
      waste *= (double) count * tiles[d] / e;
      if (ComputeDag.extent(axes.get(d)) > 0 && e % tiles[d] != 0) {
        ragged += d == v ? 2 : 1;
      }
      if (others.subList(0, parallelAxes).contains(d)) {
        tasks *= count;
      }
    }
    if (parallelAxes == 0) {
      tasks = (nominal(ComputeDag.extent(axes.get(v))) + tiles[v] - 1) / tiles[v];
    }
    double lanes = state.vectors().lanes();
    double loads = 0;
    for (var used : readAxes) {
      double l = 1;
      for (int d : used) {
        l *= d == v ? Math.ceil(tiles[d] / lanes) : tiles[d];
      }
      loads += l;
    }
    // Elements packed against multiply-adds: the panels are packed once per task and tile of v.
    double work = 1;
    for (IterVar r : local.reduceAxis()) {
      work *= nominal(ComputeDag.extent(r));
    }
    for (IterVar a : axes) {
      work *= nominal(ComputeDag.extent(a));
    }
    double packings = Math.ceil((double) nominal(ComputeDag.extent(axes.get(v))) / tiles[v]);
    state.note(red, "cpu.tasks", tasks);
    state.note(red, "cpu.ragged", ragged);
    state.note(red, "cpu.waste", waste);
    state.note(red, "cpu.gather", 0);
    state.note(red, "cpu.intensity", regTile / lanes / loads);
    state.note(red, "cpu.reg_tile", regTile);
    CpuTiling.noteRegisters(state, red, local, rows * Math.ceil(tiles[v] / lanes), tiles[v]);
    state.note(red, "cpu.pack_ratio", packed * packings / work);
    // The producers: copies (per task, and once before the tasks) against multiply-adds, and their
    // bytes.
    state.note(red, "cpu.producer_ratio", (materialized * Math.max(1, tasks) + shared) / work);
    state.note(red, "cpu.producer_bytes", (materialized + shared) * 4);
    state.note(red, "cpu.packed_layout", 1);
    if (parallelV) {
      // The panel a task streams once per tile of its rows, against the L2 of the unit's cores:
      // beyond it, from memory each time.
      state.note(red, "cpu.panel_l2", packed * 4 / state.vectors().l2Bytes());
    }
  }

  static boolean constantReduction(Stage local) {
    for (IterVar r : local.reduceAxis()) {
      if (ComputeDag.extent(r) <= 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The extent the notes assume for a symbolic one (-1), as the other CPU layouts' notes do ({@link
   * CpuTiling}): only the predictor's ranking reads it; the kernel takes any extent.
   */
  static long nominal(long extent) {
    return extent > 0 ? extent : CpuTiling.NOMINAL_EXTENT;
  }
}
