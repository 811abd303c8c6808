package dev.kernelgen.topi;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.Tensor;
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
 *
 * <p>This class is the entry point and holds what the families share (the anchor reduction, the
 * local accumulator); each family's schedules are in a class of their own ({@link MatmulSchedules},
 * {@link Conv2dSchedules}, {@link RowReductionSchedules}).
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

  /** The CPU matmul schedule: register-blocked micro-tiles ({@link MatmulSchedules#matmulCpu}). */
  public static Schedule matmulCpu(Tensor out, Knobs k) {
    return MatmulSchedules.matmulCpu(out, k);
  }

  /** The CPU conv2d schedule: register blocking over output channels. */
  public static Schedule conv2dCpu(Tensor out, Knobs k) {
    return Conv2dSchedules.conv2dCpu(out, k);
  }

  /** The GPU matmul schedule: thread tiles in registers, shared tiles of A and B. */
  public static Schedule matmulGpu(Tensor out, Knobs k) {
    return MatmulSchedules.matmulGpu(out, k);
  }

  /**
   * The GPU conv2d schedule: an implicit GEMM with shape-dependent defaults ({@link
   * Conv2dSchedules#conv2dGpu}).
   */
  public static Schedule conv2dGpu(Tensor out, Knobs k) {
    return Conv2dSchedules.conv2dGpu(out, k);
  }

  /** Configurations of {@link #conv2dGpu} worth timing on a GPU, the two defaults first. */
  public static List<Map<String, Integer>> conv2dGpuCandidates() {
    return Conv2dSchedules.conv2dGpuCandidates();
  }

  /** The GPU schedule of an elementwise output after row reductions: a thread per row. */
  public static Schedule rowsGpu(Tensor out, Knobs k) {
    return RowReductionSchedules.rowsGpu(out, k);
  }

  /** The GPU schedule of {@link Reduction#softmaxLanes}: one block per row, a thread per lane. */
  public static Schedule softmaxLanesGpu(Tensor out) {
    return RowReductionSchedules.softmaxLanesGpu(out);
  }

  /** Small ragged instances of the GPU schedules here, by name: for the compile and run tests. */
  public static Map<String, Schedule> gpuSamples() {
    return GpuScheduleSamples.gpuSamples();
  }

  /** The knobs of {@link #conv2dGpu} set to the given values. */
  public static Knobs convKnobs(
      int tileF, int threadsF, int threadRows, int threadsH, int threadsW, int tileC) {
    return Conv2dSchedules.convKnobs(tileF, threadsF, threadRows, threadsH, threadsW, tileC);
  }

  /** A configuration of {@link #conv2dGpu}'s knobs, in the order they are asked. */
  public static Map<String, Integer> convConfig(
      int tileF, int threadsF, int threadRows, int threadsH, int threadsW, int tileC) {
    return Conv2dSchedules.convConfig(tileF, threadsF, threadRows, threadsH, threadsW, tileC);
  }

  /** The arguments of a sample schedule: its inputs, then its outputs. */
  public static List<Tensor> args(Schedule s) {
    return GpuScheduleSamples.args(s);
  }
}
