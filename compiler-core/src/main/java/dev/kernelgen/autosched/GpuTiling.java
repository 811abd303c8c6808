package dev.kernelgen.autosched;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The GPU structure of {@link MultiLevelTiling} (Ansor's "SSSRRSRS" without virtual threads): every
 * data axis of the tiled stage is split into a block tile, a thread tile (knob {@code threads<d>})
 * and a register tile (knob {@code reg<d>}); the block loops are fused onto blockIdx.x, the thread
 * loops onto threadIdx.x, the register loops unrolled inside. Each thread accumulates its register
 * tile in {@code local} scope over the reduction, whose first axis is split by knob {@code tile_k};
 * where knob {@code shared} is 1, the inputs that the block's threads reuse are staged in shared
 * memory per {@code tile_k} step, loaded by all threads together (coalesced), an inlined input
 * (padding) with its bounds checks computed in the load where its tile fits. Every buffer is a
 * constant tile: staging is offered only when the reduce axes after the first have constant
 * extents.
 */
final class GpuTiling {
  private GpuTiling() {}

  static final int MAX_THREADS = 1024;

  static void apply(SketchState state, Stage red, Stage tiled, Stage local, List<Tensor> reused) {
    Schedule s = state.schedule();
    List<IterVar> axes = tiled.axis();
    int n = axes.size();
    int[] th = new int[n];
    int[] reg = new int[n];
    long threads = 1;
    long regTile = 1;
    double blocks = 1;
    double active = 1; // the threads with an output to compute
    double outputs = 1;
    int ragged = 0;
    for (int d = 0; d < n; d++) {
      long e = ComputeDag.extent(axes.get(d));
      int pt = d == n - 1 ? 16 : (d == n - 2 ? 16 : 1);
      int pr = d >= n - 2 ? 4 : 1;
      boolean last2 = d >= n - 2;
      // Outer axes of a rank-3+ output (a convolution's channels) tile as wide as the last two:
      // an input that does not depend on one is reused across all of its tile.
      boolean wide = last2 || n >= 4;
      int cap = n == 1 ? 256 : d == n - 1 ? 64 : wide ? 32 : 4;
      th[d] = state.knob(red, "threads" + d, TileChoices.of(e, cap, n == 1 ? 128 : pt));
      reg[d] = state.knob(red, "reg" + d, TileChoices.of(e, wide ? 8 : 2, pr));
      threads *= th[d];
      regTile *= reg[d];
      long ext = e > 0 ? e : 1024;
      blocks *= Math.ceil((double) ext / ((long) th[d] * reg[d]));
      active *= Math.ceil((double) ext / reg[d]);
      outputs *= ext;
      if (e > 0 && e % ((long) th[d] * reg[d]) != 0) {
        ragged++; // every register of the tile is guarded
      }
    }
    List<IterVar> rs = local.reduceAxis();
    double reduce = 1;
    for (IterVar r : rs) {
      long e = ComputeDag.extent(r);
      reduce *= e > 0 ? e : MultiLevelTiling.SYMBOLIC_EXTENT;
    }
    boolean stageable = !reused.isEmpty();
    for (int k = 1; k < rs.size(); k++) {
      stageable &= ComputeDag.extent(rs.get(k)) > 0;
    }
    long k0 = ComputeDag.extent(rs.get(0));
    int tileK = state.knob(red, "tile_k", TileChoices.of(k0, 32, 8));
    if (k0 > 0 && k0 % tileK != 0) {
      ragged++; // the reduction's inner loop has a varying bound
    }
    int shared = state.knob(red, "shared", stageable ? new int[] {1, 0} : new int[] {0});
    UserError.check(
        threads <= MAX_THREADS,
        "generated schedule of '%s': %d threads per block, more than %d",
        red.name(),
        threads,
        MAX_THREADS);
    // What one reduction step (a tile_k chunk) of a block reads of the reused inputs: the shared
    // tiles' elements, and the block's multiply-adds over them.
    long[] range = new long[n];
    for (int d = 0; d < n; d++) {
      range[d] = (long) th[d] * reg[d];
    }
    double tileElems = 0;
    Map<Tensor, Double> elems = new java.util.HashMap<>();
    double stagedElems = 0;
    for (Tensor t : reused) {
      elems.put(t, footprint(s, local, t, range, tileK));
      tileElems += elems.get(t);
      stagedElems += ComputeDag.isInlined(s, t) ? 0 : elems.get(t);
    }
    // An inlined input (padding) is staged only where its tile fits beside the others within the
    // shared memory every CUDA device has: else its loads stay in the multiply-adds, as a tuning
    // record made before such inputs were staged expects.
    java.util.Set<Tensor> staged = new java.util.HashSet<>();
    for (Tensor t : reused) {
      if (!ComputeDag.isInlined(s, t)) {
        staged.add(t);
      } else if (4 * (stagedElems + elems.get(t))
          <= dev.kernelgen.tune.GpuLimits.cudaDefault().maxSharedBytesPerBlock()) {
        staged.add(t);
        stagedElems += elems.get(t);
      }
    }
    double stepReduce = tileK; // reduction steps per tile_k chunk, for each output
    for (int k = 1; k < rs.size(); k++) {
      long e = ComputeDag.extent(rs.get(k));
      stepReduce *= e > 0 ? e : MultiLevelTiling.SYMBOLIC_EXTENT;
    }
    double stepWork = stepReduce;
    for (int d = 0; d < n; d++) {
      stepWork *= range[d];
    }
    boolean window = slidesAlongInnermost(s, local, reused); // before the reads go to the copies
    List<Stage> fetches = new ArrayList<>();
    if (shared == 1) {
      for (Tensor t : reused) {
        if (staged.contains(t)) {
          fetches.add(s.stage(s.cacheRead(t, "shared", local.tensor())));
        }
      }
    }
    List<IterVar> blk = new ArrayList<>();
    List<IterVar> thr = new ArrayList<>();
    List<IterVar> rgs = new ArrayList<>();
    for (int d = 0; d < n; d++) {
      Stage.Split b = tiled.split(axes.get(d), (long) th[d] * reg[d]);
      Stage.Split t = tiled.split(b.inner(), reg[d]);
      blk.add(b.outer());
      thr.add(t.outer());
      rgs.add(t.inner());
    }
    List<IterVar> order = new ArrayList<>(blk);
    order.addAll(thr);
    order.addAll(rgs);
    tiled.reorder(order.toArray(IterVar[]::new));
    IterVar bx = fuseAll(tiled, blk);
    IterVar tx = fuseAll(tiled, thr);
    tiled.bind(bx, ThreadTag.BLOCK_X);
    tiled.bind(tx, ThreadTag.THREAD_X);
    for (IterVar r : rgs) {
      tiled.unroll(r);
    }
    local.computeAt(tiled, tx);
    Stage.Split k = local.split(local.reduceAxis(0), tileK);
    List<IterVar> lorder = new ArrayList<>(List.of(k.outer(), k.inner()));
    lorder.addAll(local.reduceAxis().subList(1, local.reduceAxis().size()));
    lorder.addAll(local.axis());
    local.reorder(lorder.toArray(IterVar[]::new));
    for (IterVar a : local.axis()) {
      local.unroll(a);
    }
    for (Stage f : fetches) {
      storeReductionMajor(s, f, local, range, tileK);
      f.computeAt(local, k.outer());
      IterVar all = fuseAll(f, f.axis());
      Stage.Split sp = f.split(all, threads);
      f.bind(sp.inner(), ThreadTag.THREAD_X);
      state.done(f);
    }
    state.note(red, "gpu.threads", threads);
    state.note(red, "gpu.reg_tile", regTile);
    state.note(red, "gpu.blocks", blocks);
    state.note(red, "gpu.total_threads", blocks * threads);
    state.note(red, "gpu.active_threads", active);
    state.note(red, "gpu.ragged", ragged);
    state.note(red, "gpu.shared", shared);
    state.note(red, "gpu.reused", reused.size());
    state.note(red, "gpu.unstaged", shared == 1 ? reused.size() - staged.size() : reused.size());
    state.note(red, "gpu.tile_k", tileK);
    state.note(red, "gpu.step_reduce", stepReduce);
    state.note(red, "gpu.reg_inner", reg[n - 1]);
    state.note(red, "gpu.inner_window", window ? 1 : 0);
    state.note(red, "gpu.reduce", reduce);
    state.note(red, "gpu.warp_run", warpRun(axes, th, reg));
    state.note(red, "gpu.outputs", outputs);
    state.note(red, "gpu.shared_bytes", shared == 1 ? 4 * stagedElems : 0);
    state.note(red, "gpu.block_intensity", tileElems > 0 ? stepWork / tileElems : 1e9);
  }

  /**
   * Whether some reused input is read along the output's innermost axis plus a reduce axis (a
   * convolution's {@code x + dj}): the register tile's elements then start at every offset, and the
   * native compiler cannot load them as vectors.
   */
  private static boolean slidesAlongInnermost(Schedule s, Stage local, List<Tensor> reused) {
    dev.kernelgen.te.Var inner = local.axis(local.axis().size() - 1).var();
    java.util.Set<dev.kernelgen.te.Var> red = new java.util.HashSet<>();
    for (IterVar r : local.reduceAxis()) {
      red.add(r.var());
    }
    for (Tensor t : reused) {
      List<List<dev.kernelgen.te.Expr>> reads = ComputeDag.readsOrOwn(s, local, t);
      for (List<dev.kernelgen.te.Expr> idx : reads) {
        for (dev.kernelgen.te.Expr e : idx) {
          java.util.Set<dev.kernelgen.te.Var> vs = dev.kernelgen.te.FreeVars.of(e);
          if (vs.contains(inner) && vs.stream().anyMatch(red::contains)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * The elements of {@code t} that {@code local} reads over a block's tile ({@code range} points
   * along each data axis, {@code tileK} along the first reduce axis, the others whole): per
   * dimension the span of its index over those ranges (sums of axes times constants; any other
   * index spans the dimension), at most the dimension's extent.
   */
  static double footprint(Schedule s, Stage local, Tensor t, long[] range, int tileK) {
    List<List<dev.kernelgen.te.Expr>> reads = ComputeDag.readsOrOwn(s, local, t);
    if (reads.isEmpty()) {
      return 0;
    }
    long[] widths = tileWidths(local, t, reads.get(0), range, tileK);
    List<Integer> order = reductionMajorOrder(local, reads.get(0));
    double stride = 1;
    for (int k = widths.length - 1; k >= 0; k--) {
      int d = order == null ? k : order.get(k);
      if (order != null && k == widths.length - 2 && padsRows(widths[order.get(k + 1)])) {
        stride = ROW_ALIGN.apply((long) stride); // stored reduction-major: see storeReductionMajor
      }
      stride *= widths[d];
    }
    return stride;
  }

  /**
   * Per dimension of {@code t}, the span of the index {@code idx} that {@code local} reads it at
   * over a block's tile ({@code range} points along each data axis, {@code tileK} along the first
   * reduce axis, the others whole): sums of axes times constants; any other index spans the
   * dimension; at most the dimension's extent.
   */
  private static long[] tileWidths(
      Stage local, Tensor t, List<dev.kernelgen.te.Expr> idx, long[] range, int tileK) {
    java.util.Map<dev.kernelgen.te.Var, Long> span = new java.util.HashMap<>();
    for (int d = 0; d < local.axis().size(); d++) {
      span.put(local.axis(d).var(), range[d]);
    }
    List<IterVar> rs = local.reduceAxis();
    for (int k = 0; k < rs.size(); k++) {
      long e = ComputeDag.extent(rs.get(k));
      span.put(
          rs.get(k).var(),
          k == 0 ? (long) tileK : e > 0 ? e : (long) MultiLevelTiling.SYMBOLIC_EXTENT);
    }
    long[] widths = new long[idx.size()];
    for (int d = 0; d < idx.size(); d++) {
      long dim =
          t.shape().get(d) instanceof dev.kernelgen.te.IntImm c
              ? c.value()
              : (long) MultiLevelTiling.SYMBOLIC_EXTENT;
      long[] lh = interval(idx.get(d), span);
      long w = lh == null ? dim : lh[1] - lh[0] + 1;
      widths[d] = Math.min(w, dim);
    }
    return widths;
  }

  /** The least and greatest value of {@code e} with each variable in [0, span); null if unknown. */
  private static long[] interval(
      dev.kernelgen.te.Expr e, java.util.Map<dev.kernelgen.te.Var, Long> span) {
    if (e instanceof dev.kernelgen.te.IntImm c) {
      return new long[] {c.value(), c.value()};
    }
    if (e instanceof dev.kernelgen.te.Var v) {
      Long r = span.get(v);
      return r == null ? null : new long[] {0, r - 1};
    }
    if (e instanceof dev.kernelgen.te.Cast c) {
      return interval(c.value(), span);
    }
    if (e instanceof dev.kernelgen.te.Binary b) {
      long[] x = interval(b.a(), span);
      long[] y = interval(b.b(), span);
      if (x == null || y == null) {
        return null;
      }
      return switch (b.op()) {
        case ADD -> new long[] {x[0] + y[0], x[1] + y[1]};
        case SUB -> new long[] {x[0] - y[1], x[1] - y[0]};
        case MUL -> {
          long[] p = {x[0] * y[0], x[0] * y[1], x[1] * y[0], x[1] * y[1]};
          yield new long[] {
            Math.min(Math.min(p[0], p[1]), Math.min(p[2], p[3])),
            Math.max(Math.max(p[0], p[1]), Math.max(p[2], p[3]))
          };
        }
        default -> null;
      };
    }
    return null;
  }

  /**
   * The notes of the naive kernel ({@link NaiveSchedule}: a thread per output element, blocks of
   * {@value NaiveSchedule#THREADS}, the reduction whole in each thread) in this rule's vocabulary,
   * from the notes the rules left for the same operator; null unless every noted stage is a
   * reduction with little reuse tiled here ({@link AnalyticPredictor#LITTLE_REUSE}), the one case
   * where the two kernels are alike enough to be weighed by the same terms.
   */
  static Map<String, Double> naiveNotes(Map<String, Double> ruleNotes) {
    Map<String, Double> out = new TreeMap<>();
    for (var st : Candidate.byStage(ruleNotes).entrySet()) {
      Map<String, Double> n = st.getValue();
      Double outputs = n.get("gpu.outputs");
      if (outputs == null || n.getOrDefault("gpu.reduce", 1e9) >= AnalyticPredictor.LITTLE_REUSE) {
        return null;
      }
      double threads = NaiveSchedule.THREADS;
      double blocks = Math.ceil(outputs / threads);
      Map<String, Double> m = new TreeMap<>(n);
      m.put("gpu.threads", threads);
      m.put("gpu.reg_tile", 1.0);
      m.put("gpu.blocks", blocks);
      m.put("gpu.total_threads", blocks * threads);
      m.put("gpu.active_threads", outputs);
      m.put("gpu.ragged", outputs % threads == 0 ? 0.0 : 1.0);
      m.put("gpu.shared", 0.0);
      m.put("gpu.warp_run", 32.0);
      for (var e : m.entrySet()) {
        out.put(st.getKey() + "/" + e.getKey(), e.getValue());
      }
    }
    return out.isEmpty() ? null : out;
  }

  /**
   * The consecutive elements that one warp instruction reads or writes along the output's innermost
   * axis: the threads along it (at most a warp of them), continued over the next axis where they
   * cover whole rows one after the other. A register tile along the innermost axis puts a thread's
   * elements next to each other, so neighbouring threads are that tile apart: each instruction then
   * touches one element per sector.
   */
  static double warpRun(List<IterVar> axes, int[] th, int[] reg) {
    int n = axes.size();
    if (reg[n - 1] > 1) {
      return 1;
    }
    int lanes = Math.min(32, th[n - 1]);
    long e = ComputeDag.extent(axes.get(n - 1));
    double run = e > 0 ? Math.min(lanes, e) : lanes;
    if (n > 1 && lanes < 32 && e > 0 && th[n - 1] == e && reg[n - 2] == 1) {
      run *= Math.min(th[n - 2], Math.max(1, 32 / th[n - 1]));
    }
    return run;
  }

  /**
   * The row stride of a shared tile stored reduction-major, where its rows are a multiple of 32
   * words ({@link #padsRows}): 8k + 4 words. The fetch's neighbouring threads walk the reduction
   * dimension, which is now the rows: rows 128 words apart put a warp's stores in 4 banks (8-way
   * conflicts); 132 apart, in all 32, and rows still start on 16 bytes for the reads' 128-bit loads
   * (2048^3 matmul on the H200, with the 16-byte alignment: 543 -> 486 us).
   */
  static final dev.kernelgen.schedule.Stage.StorageAlign ROW_ALIGN =
      new dev.kernelgen.schedule.Stage.StorageAlign(8, 4);

  /**
   * Whether rows of {@code width} words get {@link #ROW_ALIGN}'s padding: where they are a multiple
   * of 32, so that a column lies in one bank. Shorter rows spread a column over several banks
   * already (8 words: 4 banks, 2-way conflicts over 8 rows), and padding them costs a large part of
   * the tile (12 words for 8: the conv2d [1,64,56,56] pick's filter tile, whose growth sent the
   * untuned pick to a tile 1.2x slower on the H200).
   */
  static boolean padsRows(long width) {
    return width >= 32 && width % 32 == 0;
  }

  /**
   * The dimensions of a shared tile of a tensor that {@code local} reads at {@code idx}, the ones
   * the reduction indexes first (see {@link #storeReductionMajor}); null where that is the
   * row-major order already.
   */
  private static List<Integer> reductionMajorOrder(Stage local, List<dev.kernelgen.te.Expr> idx) {
    java.util.Set<dev.kernelgen.te.Var> reduceVars = new java.util.HashSet<>();
    for (IterVar r : local.reduceAxis()) {
      reduceVars.add(r.var());
    }
    List<Integer> first = new ArrayList<>();
    List<Integer> rest = new ArrayList<>();
    for (int d = 0; d < idx.size(); d++) {
      boolean reduced = false;
      for (dev.kernelgen.te.Var v : dev.kernelgen.te.FreeVars.of(idx.get(d))) {
        reduced |= reduceVars.contains(v);
      }
      (reduced ? first : rest).add(d);
    }
    first.addAll(rest);
    for (int d = 0; d < first.size(); d++) {
      if (first.get(d) != d) {
        return first;
      }
    }
    return null;
  }

  /**
   * Lays out a shared tile with the dimensions that the reduction indexes outermost: the threads of
   * a warp, which differ in their data axes, then read consecutive words at each reduction step
   * (dense's {@code W[j, k]} tile stored {@code [k][j]}), not words a row apart in one bank. The
   * rows of such a tile are padded ({@link #ROW_ALIGN}), since the fetch now writes down columns.
   */
  private static void storeReductionMajor(
      Schedule s, Stage fetch, Stage local, long[] range, int tileK) {
    List<List<dev.kernelgen.te.Expr>> reads = ComputeDag.reads(s, local, fetch.tensor());
    if (reads.isEmpty()) {
      return;
    }
    List<Integer> order = reductionMajorOrder(local, reads.get(0));
    if (order == null) {
      return;
    }
    fetch.reorderStorage(order.stream().map(fetch::axis).toArray(IterVar[]::new));
    int n = order.size();
    long[] widths = tileWidths(local, fetch.tensor(), reads.get(0), range, tileK);
    if (n >= 2 && padsRows(widths[order.get(n - 1)])) {
      fetch.storageAlign(fetch.axis(order.get(n - 2)), ROW_ALIGN.factor(), ROW_ALIGN.offset());
    }
  }

  private static IterVar fuseAll(Stage st, List<IterVar> loops) {
    IterVar f = loops.get(0);
    for (IterVar l : loops.subList(1, loops.size())) {
      f = st.fuse(f, l);
    }
    return f;
  }
}
