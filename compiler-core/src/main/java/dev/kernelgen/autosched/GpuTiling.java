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

  /**
   * A reused operand this small (a depthwise filter, a scale) is served by the caches: its reuse
   * does not make tiles pay ({@link ComputeDag#reusedOnlyThroughWindows}).
   */
  static final long SMALL_OPERAND_BYTES = 64 * 1024;

  static void apply(SketchState state, Stage red, Stage tiled, Stage local, List<Tensor> reused) {
    Schedule s = state.schedule();
    List<IterVar> axes = tiled.axis();
    int n = axes.size();
    int direct = directInputs(local, reused); // before the reused go to the copies
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
    // A tensor read at indices that differ by more than constants (a Gram matrix's X[b, n, d] and
    // X[b, n, e]) spans a box whose size depends on the block: its copy loop's trip count and
    // indices are divisions by a block-dependent width (an H100 Gram [8, 300, 96]: 236 us staged
    // against 9.9 for a thread per output). Such a tensor stays in the multiply-adds.
    List<Tensor> tiles = new ArrayList<>();
    for (Tensor t : reused) {
      if (SharedTiles.oneTile(s, local, t)) {
        tiles.add(t);
      }
    }
    boolean stageable = !tiles.isEmpty();
    for (int k = 1; k < rs.size(); k++) {
      stageable &= ComputeDag.extent(rs.get(k)) > 0;
    }
    long k0 = ComputeDag.extent(rs.get(0));
    int tileK = state.knob(red, "tile_k", TileChoices.of(k0, 32, 8));
    if (k0 > 0 && k0 % tileK != 0) {
      ragged++; // the reduction's inner loop has a varying bound
    }
    int shared = state.knob(red, "shared", stageable ? new int[] {1, 0} : new int[] {0});
    // Little reuse also where the only reuse is windows overlapping (a 7x7 depthwise filter: 49
    // steps, its input read by its neighbours only; tiled as a reduction with reuse, 8 outputs a
    // thread, it ran 17.6 us against its naive kernel's 6.6 on an H100): note gpu.windows_only.
    boolean windows = ComputeDag.reusedOnlyThroughWindows(s, local, SMALL_OPERAND_BYTES);
    // Knob window: a thread's sliding window in registers (SlidingWindow), where the reduction is
    // short or reuses through windows only, of constant extents (a symbolic extent counts as
    // SYMBOLIC_EXTENT steps).
    boolean windowable =
        reduce < AnalyticPredictor.LITTLE_REUSE
            || windows && reduce < MultiLevelTiling.SYMBOLIC_EXTENT;
    int window = windowable ? state.knob(red, "window", 1, 0) : 0;
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
      elems.put(t, SharedTiles.footprint(s, local, t, range, tileK));
      tileElems += elems.get(t);
      stagedElems += ComputeDag.isInlined(s, t) || !tiles.contains(t) ? 0 : elems.get(t);
    }
    // An inlined input (padding) is staged only where its tile fits beside the others within the
    // shared memory every CUDA device has: else its loads stay in the multiply-adds, as a tuning
    // record made before such inputs were staged expects.
    java.util.Set<Tensor> staged = new java.util.HashSet<>();
    for (Tensor t : tiles) {
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
    boolean innerWindow =
        slidesAlongInnermost(s, local, reused); // before the reads go to the copies
    SlidingWindow.Loads loads =
        SlidingWindow.of(
            s,
            red,
            local,
            axes,
            reg,
            range,
            tileK,
            k0,
            stepReduce,
            windowable,
            window == 1,
            shared == 1 ? staged : java.util.Set.of());
    // Double-buffered tiles (the next step's tile loaded while this one is computed from) where
    // there is a next step and twice the tiles fit; on CUDA, whose threads keep the staged tile in
    // registers (OpenCL's kernels run on PoCL's CPU devices too, whose work-group loops keep
    // private arrays between barriers in memory, and stay as they were).
    boolean doubled =
        shared == 1
            && state.target() == dev.kernelgen.annotations.Target.CUDA
            && (k0 <= 0 || k0 > tileK)
            && 2 * 4 * stagedElems
                <= dev.kernelgen.tune.GpuLimits.cudaDefault().maxSharedBytesPerBlock();
    List<Stage> fetches = new ArrayList<>();
    if (shared == 1) {
      for (Tensor t : reused) {
        if (staged.contains(t)) {
          fetches.add(s.stage(s.cacheRead(t, "shared", local.tensor())));
        }
      }
    }
    List<IterVar> blk = new ArrayList<>();
    List<IterVar> vth = new ArrayList<>();
    List<IterVar> thr = new ArrayList<>();
    List<IterVar> rgs = new ArrayList<>();
    for (int d = 0; d < n; d++) {
      Stage.Split b = tiled.split(axes.get(d), (long) th[d] * reg[d]);
      blk.add(b.outer());
      IterVar rest = b.inner();
      boolean chunks = strided(state, shared, d, n, reg[d]);
      if (chunks) {
        // The thread's register tile as chunks of STRIDE, th * STRIDE apart (virtual threads):
        // neighbouring threads read neighbouring 16-byte words of the shared tile (no bank
        // conflicts) and store neighbouring words of the output (the 2048^3 matmul pick on the
        // H200: 417 -> 376 us).
        Stage.Split v = tiled.split(rest, (long) th[d] * STRIDE);
        vth.add(v.outer());
        rest = v.inner();
      }
      Stage.Split t = tiled.split(rest, chunks ? STRIDE : reg[d]);
      thr.add(t.outer());
      rgs.add(t.inner());
    }
    List<IterVar> order = new ArrayList<>(blk);
    order.addAll(vth);
    order.addAll(thr);
    order.addAll(rgs);
    tiled.reorder(order.toArray(IterVar[]::new));
    IterVar bx = fuseAll(tiled, blk);
    IterVar tx = fuseAll(tiled, thr);
    tiled.bind(bx, ThreadTag.BLOCK_X);
    tiled.bind(tx, ThreadTag.THREAD_X);
    for (IterVar v : vth) {
      tiled.bind(v, ThreadTag.VTHREAD);
    }
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
    SlidingWindow.apply(state, local, k.outer(), k.inner(), loads.windowed());
    for (Stage f : fetches) {
      SharedTiles.Tile tile = SharedTiles.Tile.of(s, f, local, range, tileK);
      SharedTiles.storeReductionMajor(f, local, tile);
      f.computeAt(local, k.outer());
      SharedTiles.distribute(f, tile, threads);
      if (doubled) {
        f.doubleBuffer();
      }
      state.done(f);
    }
    if (shared == 1 && !fetches.isEmpty()) {
      // The multiply-adds of a step: nvcc unrolls the step's loop (a register tile's reads of
      // shared memory at constant offsets) only when asked, its body being long.
      local.pragma(k.inner(), "unroll");
    }
    loads.note(state, red);
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
    state.note(red, "gpu.inner_window", innerWindow ? 1 : 0);
    state.note(red, "gpu.reduce", reduce);
    state.note(red, "gpu.windows_only", windows ? 1 : 0);
    state.note(red, "gpu.warp_run", warpRun(axes, th, reg));
    state.note(red, "gpu.direct_inputs", direct);
    state.note(red, "gpu.direct_run", directRun(axes, th, reg));
    state.note(red, "gpu.outputs", outputs);
    state.note(red, "gpu.shared_bytes", shared == 1 ? (doubled ? 8 : 4) * stagedElems : 0);
    state.note(red, "gpu.block_intensity", tileElems > 0 ? stepWork / tileElems : 1e9);
  }

  /** The elements of a strided register tile's chunk: one 128-bit word. */
  static final int STRIDE = 4;

  /**
   * Whether axis {@code d} of {@code n} gets a strided register tile: one of the last two, its
   * register tile several chunks of {@link #STRIDE} read from shared tiles, on CUDA (as the double
   * buffering; OpenCL's kernels keep their contiguous tiles).
   */
  private static boolean strided(SketchState state, int shared, int d, int n, int reg) {
    return shared == 1
        && state.target() == dev.kernelgen.annotations.Target.CUDA
        && d >= n - 2
        && reg > STRIDE
        && reg % STRIDE == 0;
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
   * The notes of the naive kernel ({@link NaiveSchedule}: a thread per output element, blocks of
   * {@value NaiveSchedule#THREADS}, the reduction whole in each thread) in this rule's vocabulary,
   * from the notes the rules left for the same operator; null unless every noted stage is a
   * reduction with little reuse tiled here (shorter than {@link AnalyticPredictor#LITTLE_REUSE}, or
   * reusing through windows only), the one case where the two kernels are alike enough to be
   * weighed by the same terms.
   */
  static Map<String, Double> naiveNotes(Map<String, Double> ruleNotes) {
    Map<String, Double> out = new TreeMap<>();
    for (var st : Candidate.byStage(ruleNotes).entrySet()) {
      Map<String, Double> n = st.getValue();
      Double outputs = n.get("gpu.outputs");
      if (outputs == null
          || n.getOrDefault("gpu.reduce", 1e9) >= AnalyticPredictor.LITTLE_REUSE
              && n.getOrDefault("gpu.windows_only", 0.0) == 0) {
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
      // One flat index: only the last block is partial, no tile of it ragged (weighed as one, the
      // naive kernel lost to tilings it beat on an H100: a 2x2 max pool 2.9 against 3.3 us).
      m.put("gpu.ragged", 0.0);
      m.put("gpu.shared", 0.0);
      m.put("gpu.warp_run", 32.0);
      m.put("gpu.thread_loads", n.getOrDefault("gpu.naive_loads", 1.0));
      m.put("gpu.window_regs", 0.0);
      // (gpu.block_loads kept: the halo orders tilings, not a tiling against the naive kernel. On
      // an H100 a 2-D block of a thread per output, less halo, was 3-9% slower than the naive
      // kernel's run of 256: depthwise [1,64,56,56] and max pool 3x3 s2 [1,64,112,112].)
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
    return reg[axes.size() - 1] > 1 ? 1 : directRun(axes, th, reg);
  }

  /**
   * The inputs that no two threads share, read by the multiply-adds straight from global memory (a
   * stereo cost volume's right image, read at {@code w - d}).
   */
  private static int directInputs(Stage local, List<Tensor> reused) {
    int direct = 0;
    for (Tensor t : ComputeDag.directReads(local).keySet()) {
      if (!reused.contains(t)) {
        direct++;
      }
    }
    return direct;
  }

  /**
   * The consecutive elements of the output's innermost axis that a warp's threads cover over the
   * unrolled loads of their register tiles (a thread's neighbouring elements come from the sectors
   * its previous load brought into L1), continued over the next axis where they cover whole rows:
   * how much of each 32-byte sector an input read there at that axis uses.
   */
  static double directRun(List<IterVar> axes, int[] th, int[] reg) {
    int n = axes.size();
    int lanes = Math.min(32, th[n - 1]);
    long e = ComputeDag.extent(axes.get(n - 1));
    double run = (double) lanes * reg[n - 1];
    if (e > 0) {
      run = Math.min(run, e);
    }
    if (n > 1 && lanes < 32 && e > 0 && (long) th[n - 1] * reg[n - 1] == e && reg[n - 2] == 1) {
      run *= Math.min(th[n - 2], Math.max(1, 32 / lanes));
    }
    return run;
  }

  static IterVar fuseAll(Stage st, List<IterVar> loops) {
    IterVar f = loops.get(0);
    for (IterVar l : loops.subList(1, loops.size())) {
      f = st.fuse(f, l);
    }
    return f;
  }
}
