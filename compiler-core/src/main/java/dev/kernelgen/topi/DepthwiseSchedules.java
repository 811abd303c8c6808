package dev.kernelgen.topi;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.autosched.RowBands;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * Schedules of depthwise convolution (and its fused variant with scale_shift and relu).
 *
 * <p>CPU: one task per (batch, channel) plane, run in parallel; the plane's padded input is copied
 * into a local buffer, in bands of rows that stay in the L1 cache ({@link #bandRows}; in C), so
 * that the inner loop reads without bounds checks; the convolution is computed row by row with the
 * row as the vectorized loop and the filter taps unrolled; where the window slides by one column,
 * each filter row is a pass of its own over the row ({@link #tapRowsOutside}); scale_shift and relu
 * are inlined into the same row loop.
 */
public final class DepthwiseSchedules {
  private DepthwiseSchedules() {}

  /** The padding stage the convolution reads, or null when it reads its input directly. */
  public static Tensor paddedInput(Tensor conv) {
    for (Tensor t : conv.op().inputs()) {
      if (t.op() instanceof ComputeOp) {
        return t;
      }
    }
    return null;
  }

  /** The C schedule: {@link #cpu(Tensor, Tensor, int, Target)} for {@link Target#C}. */
  public static Schedule cpu(Tensor conv, Tensor out, int vector) {
    return cpu(conv, out, vector, Target.C);
  }

  /**
   * A CPU schedule for {@code out}, which is either the convolution itself or relu(scale_shift(
   * conv)).
   *
   * @param vector the width of the vectorized row chunks
   * @param target {@link Target#C} or {@link Target#JAVA}: in C a window that slides by one column
   *     is summed one filter row per pass ({@link #tapRowsOutside}); the Java target keeps the
   *     whole window in one pass, the form its JIT vectorizes (the passes, reading and writing the
   *     row buffer, ran 3-5x slower there on the seed's workloads)
   */
  public static Schedule cpu(Tensor conv, Tensor out, int vector, Target target) {
    Schedule s = Schedule.create(out);
    Tensor sum = rowSum(s, conv, out);
    Stage so = s.stage(out);
    IterVar plane = so.fuse(so.axis().get(0), so.axis().get(1));
    so.parallel(plane);
    Tensor padded = paddedInput(conv);
    IterVar padAt = plane;
    IterVar row = so.axis().get(2);
    int band = target == Target.C && padded != null ? bandRows(padded, out) : 0;
    if (band > 0) {
      Stage.Split bands = so.split(row, band);
      padAt = bands.outer();
      row = bands.inner();
    }
    Stage sc = s.stage(sum);
    long pitch = target == Target.C && vector == 0 && band == 0 ? planePitch(conv, out) : 0;
    sc.computeAt(so, pitch > 0 ? plane : row);
    if (pitch > 0) {
      sc.storageAlign(sc.axis().get(2), (int) pitch, 0);
    }
    vectorizeRow(so, so.axis().get(so.axis().size() - 1), vector);
    // The row vectorized, the filter taps unrolled inside it: each output's sum stays in a
    // vector register, one multiply-add per tap.
    List<IterVar> cols = vectorizeRow(sc, sc.axis().get(3), vector);
    sc.unroll(sc.reduceAxis(0));
    sc.unroll(sc.reduceAxis(1));
    if (target == Target.C && ConvWindow.unitColumnStride(conv) && pitch == 0) {
      tapRowsOutside(sc, cols);
    }
    if (padded != null) {
      Stage sp = s.stage(padded);
      sp.computeAt(so, padAt);
      long stride = ConvWindow.columnStride(conv);
      if (target == Target.C && stride > 1) {
        deinterleaveColumns(sp, (int) stride);
      }
    }
    return s;
  }

  /**
   * Stores the padded copy's columns as {@code stride} phases ({@link Stage#storageDeinterleave}),
   * the copy's column loop split by the stride with the phase outside (contiguous stores): a window
   * of stride {@code stride} then reads each tap's columns contiguously instead of gathering them
   * with a shuffle per tap. [1,256,96,96] 3x3 stride 2 SAME ran 296 us before, 187 us after (by
   * hand, the same C), on a 2-core Zen 4 (AVX-512). C only: the generated Java ran that row slower
   * so (1.08 -> 1.23 ms).
   */
  static void deinterleaveColumns(Stage padded, int stride) {
    IterVar col = padded.axis().get(padded.axis().size() - 1);
    padded.storageDeinterleave(col, stride);
    Stage.Split phases = padded.split(col, stride);
    padded.reorder(phases.inner(), phases.outer());
  }

  /**
   * Output rows per band of the padded copy, or 0 when the whole padded plane fits: the rule the
   * auto-scheduler's row form uses ({@link RowBands#bandRows}, {@link RowBands#BAND_BYTES}).
   */
  static int bandRows(Tensor padded, Tensor out) {
    List<Expr> os = out.shape();
    Expr rows = Simplifier.simplify(os.get(os.size() - 2));
    return rows instanceof IntImm oh ? RowBands.bandRows(padded, oh.value()) : 0;
  }

  /**
   * The pitch at which a small plane is summed whole, or 0 for row by row ({@link
   * RowBands#planePitch}): the plane the window reads is the padded copy, or the input.
   */
  static long planePitch(Tensor conv, Tensor out) {
    Tensor padded = paddedInput(conv);
    Tensor source = padded != null ? padded : conv.op().inputs().get(0);
    List<Expr> os = out.shape();
    Expr width = Simplifier.simplify(os.get(os.size() - 1));
    return width instanceof IntImm w
        ? RowBands.planePitch(source, w.value(), ConvWindow.unitColumnStride(conv))
        : 0;
  }

  /**
   * Moves the filter's rows (the first reduce axis) outside the row's vectorized column loops
   * {@code cols}, the filter's columns staying inside: each pass over the row adds one filter row,
   * a chain of KW dependent multiply-adds per output vector instead of KH x KW, the partial sums in
   * the row buffer. The chain's latency is what the unrolled window was waiting on (4 cycles a
   * multiply-add): [1,256,96,96] 5x5 ran 1.86 ms before, 1.21 ms after, 3x3 about 10% faster, on a
   * 2-core AVX2 Zen 3. Not for strided windows, whose columns are gathered (slower there).
   */
  static void tapRowsOutside(Stage sc, List<IterVar> cols) {
    List<IterVar> order = new ArrayList<>();
    order.add(sc.reduceAxis(0));
    order.addAll(cols);
    order.add(sc.reduceAxis(1));
    sc.reorder(order.toArray(IterVar[]::new));
  }

  /**
   * The stage that sums the convolution, to be computed per output row: with elementwise stages
   * after it (scale_shift, relu; inlined into {@code out} here) the convolution itself; for the
   * plain convolution a cache of it ({@code cache_write}) that {@code out} copies, so that both sum
   * in a row buffer rather than in the output: measured up to twice as fast (96x96 VALID on a
   * 2-core AVX-512 machine: 584 -> 313 us). In global scope as the fused one's row is: a symbolic
   * row width cannot size a local array (in C both are the same: a stack array when the size is a
   * small constant, else the heap). Call it before the output's loops are split.
   */
  public static Tensor rowSum(Schedule s, Tensor conv, Tensor out) {
    if (out == conv) {
      return s.cacheWrite(conv, "global");
    }
    for (Tensor t : out.op().inputs()) {
      if (t != conv && t.op() instanceof ComputeOp) {
        s.stage(t).computeInline();
      }
    }
    return conv;
  }

  /**
   * Vectorizes a row: whole (the C compiler picks the vector width and handles the remainder) when
   * {@code vector} is 0, else in chunks of {@code vector}. Returns the row's loops, outermost
   * first.
   */
  static List<IterVar> vectorizeRow(Stage st, IterVar row, int vector) {
    if (vector <= 0) {
      st.vectorize(row);
      return List.of(row);
    }
    Stage.Split sj = st.split(row, vector);
    st.vectorize(sj.inner());
    return List.of(sj.outer(), sj.inner());
  }

  /** The knobs of the seed article's GPU schedule. */
  public record GpuConfig(
      int blockH, int blockW, int threadsY, int threadsX, int vthreadsY, int vthreadsX) {
    /** The article's final configuration: 32x32 blocks, 8x8 threads, 1x1 virtual threads. */
    public static GpuConfig seed() {
      return new GpuConfig(32, 32, 8, 8, 1, 1);
    }

    @Override
    public String toString() {
      return "block="
          + blockH
          + "x"
          + blockW
          + " threads="
          + threadsY
          + "x"
          + threadsX
          + " vthreads="
          + vthreadsY
          + "x"
          + vthreadsX;
    }
  }

  /**
   * Step 1 of the seed: one block per (batch, channel), the padded input and the filter cached in
   * shared memory, one thread per block.
   */
  public static Schedule gpuOneBlockPerChannel(Tensor conv) {
    Schedule s = Schedule.create(conv);
    Tensor padded = paddedInput(conv);
    Tensor filter = filterOf(conv);
    Tensor readIn = padded;
    if (padded != null) {
      s.stage(padded).computeInline();
      readIn = padded;
    }
    Stage so = s.stage(conv);
    Tensor is = s.cacheRead(readIn != null ? readIn : conv.op().inputs().get(0), "shared", conv);
    Tensor fs = s.cacheRead(filter, "shared", conv);
    so.bind(so.axis(0), "blockIdx.y");
    so.bind(so.axis(1), "blockIdx.x");
    s.stage(is).computeAt(so, so.axis(1));
    s.stage(fs).computeAt(so, so.axis(1));
    return s;
  }

  /**
   * Steps 2 to 5 of the seed: the output split into blocks with batch and channel fused into
   * blockIdx.y and the blocks into blockIdx.x; each block's padded input and filter cached in
   * shared memory, loaded cooperatively by all its threads; threadsY x threadsX threads per block,
   * each computing its part of the block, interleaved over vthreadsY x vthreadsX virtual threads.
   * When {@code out} is relu(scale_shift(conv)), scale_shift is inlined and the convolution is
   * computed in local memory at each thread's loop: one kernel.
   */
  public static Schedule gpu(Tensor conv, Tensor out, GpuConfig k) {
    Schedule s = Schedule.create(out);
    Tensor padded = paddedInput(conv);
    Tensor filter = filterOf(conv);
    Tensor source = padded != null ? padded : conv.op().inputs().get(0);
    if (padded != null) {
      s.stage(padded).computeInline();
    }
    Tensor is = s.cacheRead(source, "shared", conv);
    Tensor fs = s.cacheRead(filter, "shared", conv);
    Stage so = s.stage(out);
    if (out != conv) {
      for (Tensor t : out.op().inputs()) {
        if (t != conv && t.op() instanceof ComputeOp) {
          s.stage(t).computeInline();
        }
      }
    }
    IterVar by = so.fuse(so.axis(0), so.axis(1));
    Stage.Split h = so.split(so.axis(2), k.blockH());
    Stage.Split w = so.split(so.axis(3), k.blockW());
    Stage.Split vy = so.splitNparts(h.inner(), k.vthreadsY());
    Stage.Split vx = so.splitNparts(w.inner(), k.vthreadsX());
    Stage.Split ty = so.splitNparts(vy.inner(), k.threadsY());
    Stage.Split tx = so.splitNparts(vx.inner(), k.threadsX());
    so.reorder(
        h.outer(),
        w.outer(),
        vy.outer(),
        vx.outer(),
        ty.outer(),
        tx.outer(),
        ty.inner(),
        tx.inner());
    IterVar bx = so.fuse(h.outer(), w.outer());
    so.bind(by, "blockIdx.y");
    so.bind(bx, "blockIdx.x");
    so.bind(vy.outer(), "vthread");
    so.bind(vx.outer(), "vthread");
    so.bind(ty.outer(), "threadIdx.y");
    so.bind(tx.outer(), "threadIdx.x");
    IterVar threadLoop = tx.outer();
    if (out != conv) {
      Stage sc = s.stage(conv);
      sc.setScope("local");
      sc.computeAt(so, threadLoop);
    }
    for (Tensor cached : new Tensor[] {is, fs}) {
      cooperativeFetch(s.stage(cached), so, bx, k.threadsY(), k.threadsX());
    }
    return s;
  }

  /**
   * The knobs of the direct GPU schedule ({@link #gpuDirect}): each thread computes {@code rows}
   * vertically adjacent outputs of one column; a block is {@code threadsY x threadsX} threads.
   */
  public record DirectConfig(int rows, int threadsY, int threadsX, boolean localInput) {
    public DirectConfig(int rows, int threadsY, int threadsX) {
      this(rows, threadsY, threadsX, true);
    }

    @Override
    public String toString() {
      return "direct rows="
          + rows
          + " threads="
          + threadsY
          + "x"
          + threadsX
          + (localInput ? " local input" : "");
    }
  }

  /**
   * A GPU schedule without shared memory, for the large, bandwidth-bound workloads: batch and
   * channel fused into blockIdx.y, the plane tiled into blocks of {@code threadsY * rows} rows by
   * {@code threadsX} columns (blockIdx.x); thread (y, x) computes the {@code rows} outputs of
   * column x in rows y*rows ... y*rows+rows-1, their sums in registers ({@code local}), the taps
   * and rows unrolled. The padded input is inlined (a bounds select per load) and read from global
   * memory through L1: consecutive threads read consecutive columns (coalesced), and the halo rows
   * and columns that neighbouring threads and blocks read again come from L1 and L2, so that DRAM
   * sees the input about once. With {@code localInput} the window a thread needs ({@code rows} plus
   * the filter's height minus one rows, the filter's width columns) is first loaded into registers
   * ({@code cache_read} to {@code local} at the thread), each value once with its bounds select,
   * and the taps read the registers; without it, each tap loads (the compiler merges only the
   * unconditional loads). scale_shift and relu, when {@code out} is the fused operator, are applied
   * to the registers before the one store.
   */
  public static Schedule gpuDirect(Tensor conv, Tensor out, DirectConfig k) {
    Schedule s = Schedule.create(out);
    Tensor padded = paddedInput(conv);
    if (padded != null) {
      s.stage(padded).computeInline();
    }
    if (out != conv) {
      for (Tensor t : out.op().inputs()) {
        if (t != conv && t.op() instanceof ComputeOp) {
          s.stage(t).computeInline();
        }
      }
    }
    OpSchedules.Accumulator a = OpSchedules.localAccumulator(s, conv, out);
    Tensor acc = a.local();
    Stage so = a.output();
    IterVar plane = so.fuse(so.axis(0), so.axis(1));
    Stage.Split h = so.split(so.axis(2), (long) k.threadsY() * k.rows());
    Stage.Split w = so.split(so.axis(3), k.threadsX());
    Stage.Split ty = so.split(h.inner(), k.rows());
    so.reorder(plane, h.outer(), w.outer(), ty.outer(), w.inner(), ty.inner());
    IterVar bx = so.fuse(h.outer(), w.outer());
    so.bind(plane, "blockIdx.y");
    so.bind(bx, "blockIdx.x");
    so.bind(ty.outer(), "threadIdx.y");
    so.bind(w.inner(), "threadIdx.x");
    so.unroll(ty.inner());
    Stage sa = s.stage(acc);
    sa.computeAt(so, w.inner());
    for (IterVar iv : sa.reduceAxis()) {
      sa.unroll(iv);
    }
    for (IterVar iv : sa.axis()) {
      sa.unroll(iv);
    }
    if (k.localInput()) {
      Tensor source = padded != null ? padded : conv.op().inputs().get(0);
      Stage window = s.stage(s.cacheRead(source, "local", acc));
      window.computeAt(so, w.inner());
      for (IterVar iv : window.axis()) {
        window.unroll(iv);
      }
    }
    return s;
  }

  /**
   * Computes a cached copy at the block's loop, loaded by all threads of the block together: its
   * axes fused into one, split so that consecutive threads load consecutive elements (coalesced
   * global reads), each thread looping over the rest.
   */
  static void cooperativeFetch(Stage sc, Stage consumer, IterVar at, int threadsY, int threadsX) {
    sc.computeAt(consumer, at);
    java.util.List<IterVar> ax = sc.axis();
    IterVar fused = ax.get(0);
    for (int d = 1; d < ax.size(); d++) {
      fused = sc.fuse(fused, ax.get(d));
    }
    Stage.Split perThread = sc.split(fused, (long) threadsY * threadsX);
    Stage.Split yx = sc.split(perThread.inner(), threadsX);
    sc.bind(yx.outer(), "threadIdx.y");
    sc.bind(yx.inner(), "threadIdx.x");
  }

  /** The filter the convolution reads (its second placeholder input). */
  public static Tensor filterOf(Tensor conv) {
    for (Tensor t : conv.op().inputs()) {
      if (t.op() instanceof dev.kernelgen.te.PlaceholderOp
          && t.ndim() == 4
          && t.name().contains("ilter")) {
        return t;
      }
    }
    java.util.List<Tensor> in = conv.op().inputs();
    return in.get(in.size() - 1);
  }
}
