package dev.kernelgen.topi;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The library's direct NCHW conv2d schedules (CPU and GPU), the GPU schedule's shape-dependent
 * defaults and its candidate configurations; {@link OpSchedules} is their public entry.
 */
final class Conv2dSchedules {
  private Conv2dSchedules() {}

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
  static Schedule conv2dCpu(Tensor out, Knobs k) {
    int tf = k.knob("tile_f", 64, 32, 16, 128);
    int tw = k.knob("tile_w", 8, 4, 6, 14, 16);
    int th = k.knob("tile_h", 4, 2, 8, 1);
    Schedule s = Schedule.create(out);
    OpSchedules.inlineInjective(s);
    Tensor conv = OpSchedules.reductionOf(out);
    Tensor filter = conv.op().inputs().get(conv.op().inputs().size() - 1);
    OpSchedules.Accumulator a = OpSchedules.localAccumulator(s, conv, out);
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
   * The GPU schedule of a direct NCHW convolution {@code out} ({@link Conv#conv2dNchw}, possibly
   * followed by elementwise stages such as bias and relu): an implicit GEMM in the manner of {@link
   * MatmulSchedules#matmulGpu}, output channels as its rows, output pixels as its columns, (rc, di,
   * dj) as its reduction.
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
  static Schedule conv2dGpu(Tensor out, Knobs k) {
    Tensor conv = OpSchedules.reductionOf(out);
    int[] d = conv2dGpuDefaults(constShape(conv));
    d[5] = channelChunk(conv, d);
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
    OpSchedules.inlineInjective(s);
    OpSchedules.Accumulator a = OpSchedules.localAccumulator(s, conv, out);
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

  /**
   * The default {@code tile_c} for the other defaults {@code d}: the largest of 8, 4, 2, 1 at most
   * {@code d[5]} that divides the input channels (a chunk past the last channel loads and
   * multiplies zeros: a 7x7 stride-2 stem over 3 channels ran 14.1 us at 8, 13.4 at 2 and 10.5 at 1
   * on an H100) and whose tiles fit the shared memory every CUDA device has (at 8, that stem's
   * input tile and filter chunk took 91 KB: the kernel could not launch). {@code d[5]} where the
   * filter's shape or the read's strides are not constants.
   */
  static int channelChunk(Tensor conv, int[] d) {
    Tensor filter = DepthwiseSchedules.filterOf(conv);
    long[] f = constShape(filter);
    Tensor padded = DepthwiseSchedules.paddedInput(conv);
    List<dev.kernelgen.te.Expr> idx =
        readIndex(conv, padded != null ? padded : conv.op().inputs().get(0));
    if (f == null || idx == null || idx.size() != 4) {
      return d[5];
    }
    var op = (dev.kernelgen.te.ComputeOp) conv.op();
    long[] span = {
      window(idx.get(2), op.axis().get(2), op.reduceAxis().get(1), (long) d[3] * d[2], f[2]),
      window(idx.get(3), op.axis().get(3), op.reduceAxis().get(2), d[4], f[3])
    };
    if (span[0] <= 0 || span[1] <= 0) {
      return d[5];
    }
    long channels = Math.min(f[0], (long) d[0] * d[1]);
    long limit = dev.kernelgen.tune.GpuLimits.cudaDefault().maxSharedBytesPerBlock();
    for (int tc : new int[] {8, 4, 2, 1}) {
      long bytes = 4L * tc * (span[0] * span[1] + channels * f[2] * f[3]);
      if (tc <= d[5] && f[1] % tc == 0 && bytes <= limit) {
        return tc;
      }
    }
    return 1;
  }

  /**
   * The input rows (or columns) a block's {@code outputs} output rows read through taps of {@code
   * taps}: {@code (outputs - 1) * stride + (taps - 1) * dilation + 1}, the stride and dilation the
   * steps of {@code index} along the output axis and the tap axis; 0 where they are not constants.
   */
  private static long window(
      dev.kernelgen.te.Expr index,
      dev.kernelgen.te.IterVar axis,
      dev.kernelgen.te.IterVar tap,
      long outputs,
      long taps) {
    Long stride = dev.kernelgen.arith.Simplifier.step(index, axis.var());
    Long dilation = dev.kernelgen.arith.Simplifier.step(index, tap.var());
    if (stride == null || dilation == null) {
      return 0;
    }
    return (outputs - 1) * stride + (taps - 1) * dilation + 1;
  }

  /** The index at which {@code conv}'s body reads {@code t}; null where it reads it nowhere. */
  private static List<dev.kernelgen.te.Expr> readIndex(Tensor conv, Tensor t) {
    List<List<dev.kernelgen.te.Expr>> found = new java.util.ArrayList<>();
    new dev.kernelgen.te.ExprVisitor() {
      @Override
      public void visit(dev.kernelgen.te.Expr e) {
        if (e instanceof dev.kernelgen.te.TensorRead r && r.tensor().equals(t)) {
          found.add(r.indices());
        }
        super.visit(e);
      }
    }.visit(((dev.kernelgen.te.ComputeOp) conv.op()).body());
    return found.isEmpty() ? null : found.get(0);
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
  static List<Map<String, Integer>> conv2dGpuCandidates() {
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

  /** The knobs of {@link #conv2dGpu} set to the given values. */
  static Knobs convKnobs(
      int tileF, int threadsF, int threadRows, int threadsH, int threadsW, int tileC) {
    return Knobs.configured(convConfig(tileF, threadsF, threadRows, threadsH, threadsW, tileC));
  }

  /** A configuration of {@link #conv2dGpu}'s knobs, in the order they are asked. */
  static Map<String, Integer> convConfig(
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
}
