package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Schedules of the compute-heavy library operators that are good without tuning, each with its
 * knobs ({@link Knobs}): the first choice of every knob is the default.
 *
 * <ul>
 *   <li>matmul on the CPU: register-blocked micro-tiles of {@code tile_i x tile_j} accumulated in
 *       vector registers over the whole reduction, column panels of B copied contiguous and run in
 *       parallel.
 *   <li>matmul on a GPU: a {@code threads_y * thread_tile_y x threads_x * thread_tile_x} output
 *       tile per block, computed by {@code threads_y x threads_x} threads that each accumulate a
 *       thread tile of {@code thread_tile_y x thread_tile_x}; the tiles of A and B that a step of
 *       {@code tile_k} needs are cached in shared memory, loaded by all threads of the block
 *       together.
 *   <li>conv2d (direct, NCHW) on the CPU: micro-tiles of {@code tile_w} pixels x {@code tile_f}
 *       output channels accumulated in vector registers over the input channels and taps, the
 *       filter packed channels-innermost, one parallel task per (batch, {@code tile_h} rows) with
 *       the padded input rows it reads copied once.
 *   <li>conv2d (direct, NCHW) on a GPU: an implicit GEMM like matmul's, output channels as rows,
 *       the pixels of a 2-d output tile as columns, (input channel, filter row, filter column) as
 *       the reduction. A block computes {@code threads_f * tile_f} channels of a {@code threads_h *
 *       thread_rows x threads_w} pixel tile, each of its {@code threads_f x threads_h * threads_w}
 *       threads {@code tile_f} channels of {@code thread_rows} pixels of one column in registers;
 *       per {@code tile_c} input channels the input tile with its halo (padding applied in the
 *       load) and the filter chunk are cached in shared memory, loaded by all threads together. The
 *       defaults depend on the number of blocks the shape gives (see {@link #conv2dGpu}).
 *   <li>softmax (any elementwise output after a row reduction) on a GPU: {@code rows_per_block}
 *       rows per block, a thread per row with the row's reductions in local memory.
 * </ul>
 */
public final class OpSchedules {
  private OpSchedules() {}

  /** The tag of a 2-d matrix product (matmul, dense). */
  public static final String MATMUL = "matmul";

  /** The tag of the direct NCHW convolution. */
  public static final String CONV2D_NCHW = "conv2d_nchw";

  /** The tag of the reduction computing {@code out} (see {@link #reductionOf}), or "". */
  public static String anchorTag(Tensor out) {
    Tensor r = reductionOf(out);
    return r != null && r.op() instanceof ComputeOp c ? c.tag() : "";
  }

  /**
   * The default schedule of {@code out} for {@code target}: the specialized schedules here for
   * matmul and conv2d, else the fusion rules ({@link Fusion}) with one thread per output element
   * (or per row, where the output follows row reductions).
   */
  public static Schedule defaultSchedule(
      dev.kernelgen.annotations.Target target, Tensor out, Knobs k) {
    String tag = anchorTag(out);
    return switch (target) {
      case C -> {
        if (tag.equals(MATMUL)) {
          yield matmulCpu(out, k);
        }
        if (tag.equals(CONV2D_NCHW)) {
          yield conv2dCpu(out, k);
        }
        yield Fusion.schedule(target, List.of(out));
      }
      case JAVA -> Fusion.schedule(target, List.of(out));
      case CUDA, OPENCL -> {
        if (tag.equals(MATMUL)) {
          yield matmulGpu(out, k);
        }
        if (tag.equals(CONV2D_NCHW)) {
          yield conv2dGpu(out, k);
        }
        Schedule probe = Schedule.create(out);
        boolean rows = false;
        for (Fusion.Group g : Fusion.plan(probe)) {
          rows |= !g.reductions().isEmpty() && g.rowAxes() < g.anchor().axis().size();
        }
        if (rows) {
          yield rowsGpu(out, k);
        }
        int threads = k.knob("threads", 256, 128, 512, 64, 1024);
        yield Fusion.schedule(target, List.of(out), threads);
      }
    };
  }

  /** The reduction stage that computes {@code out}: {@code out} itself or one it reads. */
  static Tensor reductionOf(Tensor out) {
    if (out.op() instanceof ComputeOp c && !c.reduceAxis().isEmpty()) {
      return out;
    }
    for (Tensor t : out.op().inputs()) {
      if (t.op() instanceof ComputeOp) {
        Tensor r = reductionOf(t);
        if (r != null) {
          return r;
        }
      }
    }
    return null;
  }

  /** The stage that accumulates a reduction in registers, and the stage that writes the output. */
  record Accumulator(Tensor local, Stage output) {}

  /**
   * Accumulates reduction {@code red} in {@code local} scope: when it is the output {@code out}, in
   * a local cache of it ({@code cache_write}) that the output stage copies out; else (elementwise
   * stages after it, inlined into the output) the reduction itself becomes local, computed inside
   * the output's loops where the caller attaches it.
   */
  static Accumulator localAccumulator(Schedule s, Tensor red, Tensor out) {
    if (red == out) {
      Tensor local = s.cacheWrite(red, "local");
      return new Accumulator(local, s.stage(red));
    }
    s.stage(red).setScope("local");
    return new Accumulator(red, s.stage(out));
  }

  /** Inlines every injective stage that is not an output. */
  static void inlineInjective(Schedule s) {
    for (Stage st : s.stages()) {
      if (!st.isPlaceholder() && !st.isOutput() && !st.hasReduction()) {
        st.computeInline();
      }
    }
  }

  /**
   * The CPU schedule of {@code out}: a matmul ({@link Linalg#matmul}, {@link Linalg#dense}),
   * possibly followed by elementwise stages.
   *
   * <p>Register blocking: the output is computed in micro-tiles of {@code tile_i} rows by {@code
   * tile_j} columns, accumulated in a local tile (a small stack array that the C compiler keeps in
   * vector registers, the tile's rows unrolled and its columns vectorized) while the reduction runs
   * outside it ({@code tile_k} steps unrolled): each step broadcasts {@code tile_i} elements of A
   * and loads one vector row of B for {@code tile_i} fused multiply-adds. The column panels of
   * {@code tile_j} columns run in parallel; each first copies its {@code K x tile_j} panel of B to
   * a contiguous buffer (which stays in L2 while every row block of A streams past it), then walks
   * the row blocks. The default 8 x 64 tile is 32 AVX-512 vectors: on a 2-core AVX-512 machine it
   * measured faster than 4 x 64 and 8 x 32 at 1024 and 2048 (smaller tiles suit narrower vectors).
   */
  public static Schedule matmulCpu(Tensor out, Knobs k) {
    int ti = k.knob("tile_i", 8, 4, 2, 6);
    int tj = k.knob("tile_j", 64, 32, 16, 128);
    int tk = k.knob("tile_k", 1, 2, 4, 8);
    Schedule s = Schedule.create(out);
    inlineInjective(s);
    Tensor mm = reductionOf(out);
    Tensor b = mm.op().inputs().get(1);
    Accumulator a = localAccumulator(s, mm, out);
    Tensor acc = a.local();
    Stage so = a.output();
    Tensor panel = s.cacheRead(b, "local", acc);
    Stage.Split j = so.split(so.axis(1), tj);
    Stage.Split i = so.split(so.axis(0), ti);
    so.reorder(j.outer(), i.outer(), i.inner(), j.inner());
    so.parallel(j.outer());
    so.unroll(i.inner());
    so.vectorize(j.inner());
    Stage sa = s.stage(acc);
    sa.computeAt(so, i.outer());
    Stage.Split kk = sa.split(sa.reduceAxis(0), tk);
    sa.reorder(kk.outer(), kk.inner(), sa.axis(0), sa.axis(1));
    sa.unroll(kk.inner());
    sa.unroll(sa.axis(0));
    sa.vectorize(sa.axis(1));
    Stage sp = s.stage(panel);
    sp.computeAt(so, j.outer());
    sp.vectorize(sp.axis(1));
    return s;
  }

  /**
   * The CPU schedule of a direct NCHW convolution {@code out} ({@link Conv#conv2dNchw}, possibly
   * followed by elementwise stages such as bias and relu).
   *
   * <p>Register blocking over output channels, as a matmul of pixels by channels: each (batch,
   * block of {@code tile_h} output rows) is one parallel task; it first copies the padded input
   * rows that the block needs; per group of {@code tile_f} output channels it packs their filter
   * with the channels innermost ({@code reorder_storage}: c, kh, kw, f), then walks the rows in
   * micro-tiles of {@code tile_w} pixels x {@code tile_f} channels, accumulated in a local tile
   * stored pixels-major (again {@code reorder_storage}) that the C compiler keeps in vector
   * registers: each step of the reduction (input channel, tap) broadcasts {@code tile_w} input
   * pixels and loads {@code tile_f} filter values as vectors for {@code tile_w x tile_f}
   * multiply-adds, like the matmul's micro-kernel. The tile is written out with a strided store per
   * pixel. 8 pixels x 64 channels (32 AVX-512 vectors) measured best or within noise of the best on
   * a 2-core AVX-512 machine at 56 x 56; vectorizing along the rows instead (56 = 3.5 vectors)
   * reached only half of ONNX Runtime's speed.
   */
  public static Schedule conv2dCpu(Tensor out, Knobs k) {
    int tf = k.knob("tile_f", 64, 32, 16, 128);
    int tw = k.knob("tile_w", 8, 4, 6, 14, 16);
    int th = k.knob("tile_h", 4, 2, 8, 1);
    Schedule s = Schedule.create(out);
    inlineInjective(s);
    Tensor conv = reductionOf(out);
    Tensor filter = conv.op().inputs().get(conv.op().inputs().size() - 1);
    Accumulator a = localAccumulator(s, conv, out);
    Tensor acc = a.local();
    Stage so = a.output();
    Stage.Split h = so.split(so.axis(2), th);
    Stage.Split f = so.split(so.axis(1), tf);
    Stage.Split w = so.split(so.axis(3), tw);
    so.reorder(so.axis(0), h.outer(), f.outer(), h.inner(), w.outer(), w.inner(), f.inner());
    so.unroll(w.inner());
    so.vectorize(f.inner());
    IterVar task = so.fuse(so.axis(0), h.outer());
    so.parallel(task);
    // The padded input rows that the task's output rows need (all channels), once per task.
    Tensor padded = DepthwiseSchedules.paddedInput(conv);
    if (padded != null) {
      Stage sp = s.stage(padded);
      sp.computeAt(so, task);
      sp.vectorize(sp.axis(3));
    }
    // The filter of tile_f output channels packed with the channels innermost (c, kh, kw, f).
    Tensor panel = s.cacheRead(filter, "local", acc);
    Stage sf = s.stage(panel);
    sf.computeAt(so, f.outer());
    sf.reorderStorage(sf.axis(1), sf.axis(2), sf.axis(3), sf.axis(0));
    sf.reorder(sf.axis(1), sf.axis(2), sf.axis(3), sf.axis(0));
    // The accumulator: tile_w pixels x tile_f channels, channels innermost, in vector registers.
    Stage sa = s.stage(acc);
    sa.computeAt(so, w.outer());
    sa.reorderStorage(sa.axis(0), sa.axis(2), sa.axis(3), sa.axis(1));
    sa.reorder(
        sa.reduceAxis(0),
        sa.reduceAxis(1),
        sa.reduceAxis(2),
        sa.axis(0),
        sa.axis(2),
        sa.axis(3),
        sa.axis(1));
    sa.unroll(sa.axis(3));
    sa.vectorize(sa.axis(1));
    return s;
  }

  /**
   * The GPU schedule of a matmul {@code out}; elementwise stages after it become a second kernel of
   * one thread per element.
   *
   * <p>The shared tiles are attached at the local stage's k.outer loop, inside the thread loops:
   * bound inference relaxes the threadIdx loops that enclose a shared stage, so that each tile is
   * the block's (SharedStageInsideThreadLoopsTest), and all threads of the block load it together.
   */
  public static Schedule matmulGpu(Tensor out, Knobs k) {
    int ty = k.knob("threads_y", 16, 8, 32);
    int tx = k.knob("threads_x", 16, 8, 32);
    int wy = k.knob("thread_tile_y", 4, 1, 2, 8);
    int wx = k.knob("thread_tile_x", 4, 1, 2, 8);
    int tk = k.knob("tile_k", 16, 4, 8, 32);
    Schedule s = Schedule.create(out);
    inlineInjective(s);
    Tensor mm = reductionOf(out);
    Tensor a = mm.op().inputs().get(0);
    Tensor b = mm.op().inputs().get(1);
    // TVM's classic GPU matmul: each thread accumulates a wy x wx tile in registers (cache_write
    // local), over k in chunks of tk whose A and B tiles the block loads into shared memory.
    Tensor cl = s.cacheWrite(mm, "local");
    Tensor as = s.cacheRead(a, "shared", cl);
    Tensor bs = s.cacheRead(b, "shared", cl);
    Stage so = s.stage(mm);
    Stage.Split i = so.split(so.axis(0), (long) ty * wy);
    Stage.Split j = so.split(so.axis(1), (long) tx * wx);
    Stage.Split it = so.split(i.inner(), wy);
    Stage.Split jt = so.split(j.inner(), wx);
    so.reorder(i.outer(), j.outer(), it.outer(), jt.outer(), it.inner(), jt.inner());
    so.bind(i.outer(), ThreadTag.BLOCK_Y);
    so.bind(j.outer(), ThreadTag.BLOCK_X);
    so.bind(it.outer(), ThreadTag.THREAD_Y);
    so.bind(jt.outer(), ThreadTag.THREAD_X);
    Stage sl = s.stage(cl);
    sl.computeAt(so, jt.outer());
    Stage.Split kk = sl.split(sl.reduceAxis(0), tk);
    sl.reorder(kk.outer(), kk.inner(), sl.axis(0), sl.axis(1));
    sl.unroll(sl.axis(0));
    sl.unroll(sl.axis(1));
    DepthwiseSchedules.cooperativeFetch(s.stage(as), sl, kk.outer(), ty, tx);
    DepthwiseSchedules.cooperativeFetch(s.stage(bs), sl, kk.outer(), ty, tx);
    if (mm != out) {
      Stage se = s.stage(out);
      IterVar fused = se.fuse(se.axis(0), se.axis(1));
      Stage.Split sp = se.split(fused, 256);
      se.bind(sp.outer(), ThreadTag.BLOCK_X);
      se.bind(sp.inner(), ThreadTag.THREAD_X);
    }
    return s;
  }

  /**
   * The GPU schedule of a direct NCHW convolution {@code out} ({@link Conv#conv2dNchw}, possibly
   * followed by elementwise stages such as bias and relu): an implicit GEMM in the manner of {@link
   * #matmulGpu}, output channels as its rows, output pixels as its columns, (rc, di, dj) as its
   * reduction.
   *
   * <p>A block computes {@code threads_f * tile_f} output channels of a {@code threads_h *
   * thread_rows x threads_w} pixel tile of one image; its {@code threads_f x (threads_h *
   * threads_w)} threads (threadIdx.y over channel groups, threadIdx.x over pixel columns and then
   * row groups, so that a warp's stores and shared loads are consecutive) each accumulate {@code
   * tile_f} channels of {@code thread_rows} pixels of one column in registers ({@code cache_write}
   * local, or the convolution's own stage in local scope when elementwise stages follow it). For
   * each chunk of {@code tile_c} input channels the block loads the input tile with its halo
   * (padding inlined: the bounds are checked in the load, not in the inner loop) and the filter
   * chunk into shared memory, all threads together; the inner loop over (rc, di, dj) is shared
   * loads and {@code tile_f * thread_rows} multiply-adds.
   *
   * <p>Blocks: pixel tiles over blockIdx.x, channel tiles over blockIdx.y, batch over blockIdx.z.
   * The defaults depend on the shape: where there are few images and pixel tiles (batch 1), smaller
   * channel tiles and register tiles so that the grid still fills the GPU.
   */
  public static Schedule conv2dGpu(Tensor out, Knobs k) {
    Tensor conv = reductionOf(out);
    int[] d = conv2dGpuDefaults(constShape(conv));
    int tf = k.knob("tile_f", prefer(d[0], 8, 4, 2, 1, 16));
    int threadsF = k.knob("threads_f", prefer(d[1], 8, 4, 2, 16, 1));
    int rows = k.knob("thread_rows", prefer(d[2], 8, 4, 2, 1, 16, 14));
    int threadsH = k.knob("threads_h", prefer(d[3], 1, 2, 4, 8));
    int threadsW = k.knob("threads_w", prefer(d[4], 28, 32, 16, 14, 8, 4));
    int tc = k.knob("tile_c", prefer(d[5], 8, 4, 16, 2, 1));
    UserError.check(
        (long) threadsF * threadsH * threadsW <= 1024,
        "conv2d: threads_f * threads_h * threads_w = %d threads per block, more than 1024",
        threadsF * threadsH * threadsW);
    Schedule s = Schedule.create(out);
    inlineInjective(s);
    Accumulator a = localAccumulator(s, conv, out);
    Tensor local = a.local();
    Stage so = a.output();
    Tensor padded = DepthwiseSchedules.paddedInput(conv);
    Tensor source = padded != null ? padded : conv.op().inputs().get(0);
    if (padded != null) {
      s.stage(padded).computeInline();
    }
    Tensor is = s.cacheRead(source, "shared", local);
    Tensor fs = s.cacheRead(DepthwiseSchedules.filterOf(conv), "shared", local);
    // Output [n, f, y, x]: f into (block, thread, register), y into (block, thread, register),
    // x into (block, thread); the two pixel thread axes fused into threadIdx.x, columns fastest.
    Stage.Split f = so.split(so.axis(1), (long) threadsF * tf);
    Stage.Split ft = so.split(f.inner(), tf);
    Stage.Split y = so.split(so.axis(2), (long) threadsH * rows);
    Stage.Split yt = so.split(y.inner(), rows);
    Stage.Split x = so.split(so.axis(3), threadsW);
    so.reorder(
        so.axis(0),
        f.outer(),
        y.outer(),
        x.outer(),
        ft.outer(),
        yt.outer(),
        x.inner(),
        ft.inner(),
        yt.inner());
    IterVar tiles = so.fuse(y.outer(), x.outer());
    IterVar pixels = so.fuse(yt.outer(), x.inner());
    so.bind(so.axis(0), ThreadTag.BLOCK_Z);
    so.bind(f.outer(), ThreadTag.BLOCK_Y);
    so.bind(tiles, ThreadTag.BLOCK_X);
    so.bind(ft.outer(), ThreadTag.THREAD_Y);
    so.bind(pixels, ThreadTag.THREAD_X);
    so.unroll(ft.inner());
    so.unroll(yt.inner());
    // Each thread's register tile: the reduction's input-channel chunks outermost (the shared
    // tiles are loaded there), then (rc.inner, di, dj) with the tile_f x thread_rows
    // multiply-adds unrolled inside, so that the input rows loaded for one tap are reused by the
    // next row's taps and every filter value by all rows.
    Stage sl = s.stage(local);
    sl.computeAt(so, pixels);
    Stage.Split rc = sl.split(sl.reduceAxis(0), tc);
    sl.reorder(
        rc.outer(),
        rc.inner(),
        sl.reduceAxis(1),
        sl.reduceAxis(2),
        sl.axis(0),
        sl.axis(1),
        sl.axis(2),
        sl.axis(3));
    sl.unroll(sl.reduceAxis(1));
    sl.unroll(sl.reduceAxis(2));
    sl.unroll(sl.axis(1));
    sl.unroll(sl.axis(2));
    int threadsP = threadsH * threadsW;
    DepthwiseSchedules.cooperativeFetch(s.stage(is), sl, rc.outer(), threadsF, threadsP);
    DepthwiseSchedules.cooperativeFetch(s.stage(fs), sl, rc.outer(), threadsF, threadsP);
    return s;
  }

  /** The SMs of the GPU the defaults are sized for (an H100 / H200 has 132). */
  static final int GPU_SMS = 132;

  /**
   * The default knobs of {@link #conv2dGpu} (tile_f, threads_f, thread_rows, threads_h, threads_w,
   * tile_c) for output {@code [N, F, H, W]} (null: not constant), the fastest of the candidates
   * ({@link #conv2dGpuCandidates}) timed on an H200 ({@code bench/gpu.sh ops OUT --conv-configs
   * candidates}, bench/results): large tiles where they give at least a block per SM: 32 channels
   * (8 threads of 4) of an 8-row tile as wide as fits the width best (28 of 56), 4 x 8 per thread.
   * Else (few images, batch 1 of 56 x 56) 16 channels (one per thread) of 8 x 8 pixels, 4 rows per
   * thread: more, smaller blocks.
   */
  static int[] conv2dGpuDefaults(long[] shape) {
    if (shape == null) {
      return new int[] {4, 8, 8, 1, 28, 8};
    }
    int width = 32;
    for (int w : new int[] {28, 16, 14, 8}) {
      if (ceilDiv(shape[3], w) * w < ceilDiv(shape[3], width) * width) {
        width = w;
      }
    }
    long blocks =
        shape[0] * ceilDiv(shape[1], 32) * ceilDiv(shape[2], 8) * ceilDiv(shape[3], width);
    if (blocks >= GPU_SMS) {
      return new int[] {4, 8, 8, 1, width, 8};
    }
    return new int[] {1, 16, 4, 2, 8, 8};
  }

  /**
   * Configurations of {@link #conv2dGpu} worth timing on a GPU for 3x3 convolutions of 56 x 56
   * images with 64 channels (knobs tile_f, threads_f, thread_rows, threads_h, threads_w, tile_c),
   * the two defaults first. The large tiles (64 or 32 channels of 8 or 4 rows of 28 or 32 columns,
   * 8 x 8 or 8 x 4 per thread: few shared loads per multiply-add) are for many images; 28 columns
   * tile 56 exactly, 32 keep a warp's threads on one channel group (one filter address per load).
   * The small ones (16 or 32 channels of 8 x 8 pixels, or 4 x 28) are for one image, where the grid
   * must still cover the SMs. Each fits the 48 KiB of static shared memory and compiles for sm_90
   * to at most 128 registers without spills.
   */
  public static List<Map<String, Integer>> conv2dGpuCandidates() {
    int[][] c = {
      {4, 8, 8, 1, 28, 8},
      {1, 16, 4, 2, 8, 8},
      // many images
      {8, 8, 8, 1, 28, 8},
      {8, 8, 4, 2, 28, 8},
      {8, 8, 4, 1, 28, 8},
      {8, 8, 8, 1, 16, 8},
      {8, 8, 8, 1, 32, 8},
      {8, 4, 8, 1, 28, 8},
      {4, 16, 8, 1, 14, 8},
      {4, 8, 8, 1, 28, 16},
      // one image
      {4, 4, 4, 2, 8, 8},
      {4, 8, 4, 2, 8, 8},
      {2, 8, 2, 4, 8, 8},
      {4, 4, 4, 1, 28, 8},
      {2, 8, 4, 1, 28, 8},
      {2, 4, 4, 2, 8, 8},
      {2, 8, 4, 2, 8, 4},
      {4, 4, 2, 4, 8, 8},
      {2, 8, 4, 2, 8, 8},
    };
    List<Map<String, Integer>> out = new java.util.ArrayList<>();
    for (int[] v : c) {
      out.add(convConfig(v[0], v[1], v[2], v[3], v[4], v[5]));
    }
    return out;
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  /** The shape of {@code t} when every extent is a constant, else null. */
  private static long[] constShape(Tensor t) {
    long[] r = new long[t.ndim()];
    for (int d = 0; d < r.length; d++) {
      if (!(t.shape().get(d) instanceof dev.kernelgen.te.IntImm c)) {
        return null;
      }
      r[d] = c.value();
    }
    return r;
  }

  /** {@code choices} with {@code first} moved to the front: the knob's default. */
  private static int[] prefer(int first, int... choices) {
    int[] r = new int[choices.length];
    r[0] = first;
    int n = 1;
    for (int c : choices) {
      if (c != first) {
        r[n++] = c;
      }
    }
    return r;
  }

  /**
   * The GPU schedule of an elementwise output after row reductions (softmax, log-softmax, a mean
   * over the last axis): {@code rows_per_block} rows per block, one thread per row.
   */
  public static Schedule rowsGpu(Tensor out, Knobs k) {
    int rows = k.knob("rows_per_block", 64, 32, 128, 256);
    Schedule s = Schedule.create(out);
    for (Fusion.Group g : Fusion.plan(s)) {
      Fusion.gpu(g, rows);
    }
    return s;
  }

  /**
   * The GPU schedule of {@link Reduction#softmaxLanes}: one block per row, one thread per lane; the
   * partial and combined reductions in shared memory at the row's loop, each with its lane axis
   * bound to threadIdx.x; the output's columns split so that consecutive threads write consecutive
   * columns. One kernel; the row is read three times (max, sum, output), coalesced.
   */
  public static Schedule softmaxLanesGpu(Tensor out) {
    Schedule s = Schedule.create(out);
    Stage so = s.stage(out);
    Tensor sum = null;
    for (Stage st : s.stages()) {
      if (!st.isPlaceholder() && !st.isOutput()) {
        sum = st.tensor();
      }
    }
    long lanes = ((dev.kernelgen.te.IntImm) sum.shape().get(1)).value();
    Stage.Split j = so.split(so.axis(1), lanes);
    so.reorder(so.axis(0), j.inner(), j.outer());
    so.bind(so.axis(0), ThreadTag.BLOCK_X);
    so.bind(j.inner(), ThreadTag.THREAD_X);
    for (Stage st : s.stages()) {
      if (!st.isPlaceholder() && !st.isOutput()) {
        st.setScope("shared");
        st.computeAt(so, so.axis(0));
        st.bind(st.axis(1), ThreadTag.THREAD_X);
      }
    }
    return s;
  }

  /** Small ragged instances of the GPU schedules here, by name: for the compile and run tests. */
  public static Map<String, Schedule> gpuSamples() {
    Map<String, Schedule> m = new LinkedHashMap<>();
    Knobs small =
        Knobs.configured(
            Map.of(
                "threads_y",
                8,
                "threads_x",
                8,
                "thread_tile_y",
                2,
                "thread_tile_x",
                2,
                "tile_k",
                4));
    Tensor a = placeholder("A", FLOAT32, 37, 29);
    Tensor b = placeholder("B", FLOAT32, 29, 45);
    m.put("matmul_gpu_default", matmulGpu(Linalg.matmul(a, b), Knobs.defaults()));
    m.put("matmul_gpu_small", matmulGpu(Linalg.matmul(a, b), small));
    Tensor bias = placeholder("BiasRow", FLOAT32, 45);
    m.put(
        "matmul_bias_relu_gpu",
        matmulGpu(Elementwise.relu(Elementwise.add(Linalg.matmul(a, b), bias)), small));
    Tensor in = placeholder("Input", FLOAT32, 2, 5, 11, 9);
    Tensor f = placeholder("Filter", FLOAT32, 6, 5, 3, 3);
    Tensor cb = placeholder("ConvBias", FLOAT32, 6, 1, 1);
    Tensor conv = Conv.conv2dNchw(in, f, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 1), 1);
    // Tiles that do not divide the shape: 6 channels in tiles of 4 and 8, 11 x 9 pixels in tiles
    // of 4 x 4, 2 x 8 and 8 x 28; 5 input channels in chunks of 2 and 4.
    m.put("conv2d_gpu", conv2dGpu(conv, convKnobs(4, 1, 2, 2, 4, 2)));
    m.put("conv2d_gpu_default", conv2dGpu(conv, Knobs.defaults()));
    m.put("conv2d_gpu_wide", conv2dGpu(conv, convKnobs(2, 4, 1, 2, 8, 4)));
    m.put("conv2d_gpu_tall", conv2dGpu(conv, convKnobs(8, 1, 8, 1, 28, 16)));
    m.put(
        "conv2d_bias_relu_gpu",
        conv2dGpu(Elementwise.relu(Elementwise.add(conv, cb)), convKnobs(4, 1, 2, 2, 4, 2)));
    Tensor strided = Conv.conv2dNchw(in, f, 2, 2, Padding.same(11, 9, 3, 3, 2, 2, 1), 1);
    m.put("conv2d_stride2_gpu", conv2dGpu(strided, convKnobs(2, 2, 2, 2, 4, 4)));
    Tensor valid = Conv.conv2dNchw(in, f, 1, 1, Padding.valid(), 1);
    m.put("conv2d_valid_gpu", conv2dGpu(valid, convKnobs(4, 2, 4, 1, 8, 1)));
    Tensor x = placeholder("X", FLOAT32, 45, 67);
    m.put("softmax_lanes_gpu", softmaxLanesGpu(Reduction.softmaxLanes(x, 32)));
    m.put(
        "softmax_rows_gpu",
        rowsGpu(Reduction.softmax(x, 1), Knobs.configured(Map.of("rows_per_block", 32))));
    return m;
  }

  /** The knobs of {@link #conv2dGpu} set to the given values. */
  public static Knobs convKnobs(
      int tileF, int threadsF, int threadRows, int threadsH, int threadsW, int tileC) {
    return Knobs.configured(convConfig(tileF, threadsF, threadRows, threadsH, threadsW, tileC));
  }

  /** A configuration of {@link #conv2dGpu}'s knobs, in the order they are asked. */
  public static Map<String, Integer> convConfig(
      int tileF, int threadsF, int threadRows, int threadsH, int threadsW, int tileC) {
    Map<String, Integer> m = new LinkedHashMap<>();
    m.put("tile_f", tileF);
    m.put("threads_f", threadsF);
    m.put("thread_rows", threadRows);
    m.put("threads_h", threadsH);
    m.put("threads_w", threadsW);
    m.put("tile_c", tileC);
    return m;
  }

  /** The arguments of a sample schedule: its inputs, then its outputs. */
  public static List<Tensor> args(Schedule s) {
    List<Tensor> a = new java.util.ArrayList<>(s.inputs());
    a.addAll(s.outputs());
    return a;
  }
}
