package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.IterVar;
import java.util.ArrayList;
import java.util.List;

/**
 * A long reduction into a small output on a CPU (a vector's sum or maximum, a dot product, the rows
 * of a matrix with few rows): Ansor's rfactor rule. With few outputs there is no output loop to run
 * in parallel or in vector lanes, and a serial reduction carries every addition in one dependency
 * chain. The innermost reduce axis is factored ({@link Schedule#rfactor}) into {@code parts x
 * LANES} partial results side by side: the parts run in parallel, each part's {@value #LANES} lanes
 * in a vector, and the output then combines the partial results. Where the reduce axis outside the
 * innermost continues its contiguous run (the rows of a whole tensor's sum), that one is cut into
 * the parts on CPUs, so that each part reads one run of memory.
 *
 * <p>Applies where the output has at most {@value #MAX_OUTPUTS} elements and the innermost reduce
 * axis is at least {@value #MIN_EXTENT} long (or symbolic; on CPUs, with the axis outside that
 * continues it, together), read contiguously. Knob {@code parts}: the partial results per lane (8
 * by default; 1 keeps the reduction serial in lanes). On GPUs the same with up to {@value
 * #GPU_MAX_OUTPUTS} outputs ({@link #applyGpu}), and a block per output where the outputs are few
 * for the length of their reduction ({@link #applyBlocks}).
 */
final class RfactorReduction implements SketchRule {
  /** The most output elements the rule factors: beyond, the output loops give the parallelism. */
  static final long MAX_OUTPUTS = 4;

  /** The shortest constant reduce axis factored. */
  static final long MIN_EXTENT = 4096;

  @Override
  public String name() {
    return "rfactor";
  }

  /** On GPUs: the most output elements factored (a GPU needs thousands of threads busy). */
  static final long GPU_MAX_OUTPUTS = 64;

  /** On GPUs: the threads of a block, each a partial result (consecutive threads read along k). */
  static final int GPU_THREADS = 256;

  @Override
  public boolean applies(SketchState state, Stage st) {
    if (!st.hasReduction() || state.isDone(st) || !st.relations().isEmpty()) {
      return false;
    }
    if (st.axis().stream().anyMatch(iv -> ComputeDag.extent(iv) < 0)) {
      return false;
    }
    long outputs = outputs(st);
    IterVar k = st.reduceAxis(st.reduceAxis().size() - 1);
    long extent = ComputeDag.extent(k);
    if (ComputeDag.stridedAlong(state.schedule(), st, k.var())) {
      return state.gpu() && columnParts(state.schedule(), st) > 1;
    }
    IterVar outer = contiguousOuter(st);
    if (!state.gpu() && outer != null && extent > 0) {
      extent *= ComputeDag.extent(outer);
    }
    return longIntoFew(outputs, extent, state.gpu() ? GPU_MAX_OUTPUTS : MAX_OUTPUTS)
        || state.gpu() && blockPerOutput(st, outputs, extent);
  }

  /**
   * Whether the innermost reduce axis is long ({@value #MIN_EXTENT} or more, or symbolic) and the
   * outputs at most {@code maxOutputs}: where {@link #apply} factors into parallel parts (on GPUs
   * {@link #applyGpu}: over blocks), else on GPUs a block per output.
   */
  private static boolean longIntoFew(long outputs, long innermost, long maxOutputs) {
    return outputs <= maxOutputs && (innermost < 0 || innermost >= MIN_EXTENT);
  }

  /**
   * The reduce axis just outside the innermost where every read walks the two as one contiguous run
   * ({@link RowReduction#contiguous}), both of constant extent; else null.
   */
  private static IterVar contiguousOuter(Stage st) {
    int n = st.reduceAxis().size();
    if (n < 2) {
      return null;
    }
    IterVar outer = st.reduceAxis(n - 2);
    IterVar inner = st.reduceAxis(n - 1);
    return ComputeDag.extent(outer) > 0 && RowReduction.contiguous(st, outer, inner) ? outer : null;
  }

  /** On GPUs: the shortest reduction (all reduce axes together) given a block per output. */
  static final long GPU_MIN_LENGTH = 256;

  /** On GPUs: the shortest innermost reduce axis whose partial results a block's threads hold. */
  static final long GPU_MIN_LANES = 32;

  /**
   * Whether a GPU reduction gets a block per output ({@link #applyBlocks}): constant extents, a
   * reduction at least {@value #GPU_MIN_LENGTH} long and at least half as long as there are
   * outputs, its innermost reduce axis at least {@value #GPU_MIN_LANES} long. There are then too
   * few outputs for a thread per output to fill the machine, each thread walking a long reduction
   * alone (global average pooling of [1,64,112,112] on the H200: 131 us for the naive kernel, 271
   * us for a tiling of it).
   */
  private static boolean blockPerOutput(Stage st, long outputs, long innermost) {
    long length = 1;
    for (IterVar r : st.reduceAxis()) {
      long e = ComputeDag.extent(r);
      if (e <= 0) {
        return false;
      }
      length *= e;
    }
    return innermost >= GPU_MIN_LANES && length >= GPU_MIN_LENGTH && outputs <= 2 * length;
  }

  @Override
  public void apply(SketchState state, Stage red) {
    if (state.gpu()) {
      applyGpu(state, red);
      return;
    }
    Schedule s = state.schedule();
    int parts = state.knob(red, "parts", 8, 4, 16, 2);
    IterVar k = red.reduceAxis(red.reduceAxis().size() - 1);
    // Where the reduce axis outside walks on from where the innermost ends (the rows of a whole
    // tensor's sum), its chunks are the parts: each part's reads one contiguous run. Chunks of
    // the innermost axis read every row in pieces: the sum of squares of [4096, 4096] 5.2 ms so.
    IterVar outer = contiguousOuter(red);
    if (outer != null && ComputeDag.extent(outer) >= parts) {
      k = outer;
    }
    Stage st = s.stage(s.rfactorParts(red.tensor(), k, parts));
    // The outputs and the parts (the last axis) in one parallel loop, each task a contiguous chunk
    // of one output's reduction, in vector lanes.
    st.parallel(GpuTiling.fuseAll(st, st.axis()));
    RowReduction.vectorizeLongReduction(st);
    state.note(red, "cpu.tasks", parts * outputs(red));
    state.done(st);
    state.done(red);
  }

  /**
   * On GPUs: {@code blocks x} {@value #GPU_THREADS} partial results per output, interleaved along
   * the reduce axis ({@link Schedule#rfactor}) so that a warp's loads are consecutive: a kernel of
   * a thread per partial result; a kernel of a block per output, its threads each adding up one
   * partial result of every block; a thread per output adding up those.
   */
  private static void applyGpu(SketchState state, Stage red) {
    IterVar k = red.reduceAxis(red.reduceAxis().size() - 1);
    if (ComputeDag.stridedAlong(state.schedule(), red, k.var())) {
      applyColumns(state, red);
      return;
    }
    if (!longIntoFew(outputs(red), ComputeDag.extent(k), GPU_MAX_OUTPUTS)) {
      applyBlocks(state, red);
      return;
    }
    Schedule s = state.schedule();
    int blocks = state.knob(red, "blocks", 64, 16, 256);
    Stage st = s.stage(s.rfactor(red.tensor(), k, blocks * GPU_THREADS));
    // The split leaves the blocks and threads of partial results last among the data axes.
    List<IterVar> axes = new ArrayList<>(st.axis());
    Stage.Split sp = st.split(axes.remove(axes.size() - 1), GPU_THREADS);
    axes.add(sp.outer());
    st.bind(GpuTiling.fuseAll(st, axes), ThreadTag.BLOCK_X);
    st.bind(sp.inner(), ThreadTag.THREAD_X);
    // The combination, twice factored again: a block per output whose threads each add up one
    // partial result of every block (consecutive threads, consecutive partial results), then a
    // thread per output adding up the block's.
    Stage st2 = s.stage(s.rfactor(red.tensor(), red.reduceAxis(0), GPU_THREADS));
    List<IterVar> axes2 = st2.axis();
    st2.bind(GpuTiling.fuseAll(st2, axes2.subList(0, axes2.size() - 1)), ThreadTag.BLOCK_X);
    st2.bind(axes2.get(axes2.size() - 1), ThreadTag.THREAD_X);
    Stage.Split one = red.split(GpuTiling.fuseAll(red, red.axis()), 64);
    red.bind(one.outer(), ThreadTag.BLOCK_X);
    red.bind(one.inner(), ThreadTag.THREAD_X);
    state.done(st2);
    state.note(red, "gpu.rfactor_blocks", blocks);
    state.done(st);
    state.done(red);
  }

  /**
   * On GPUs, a reduction into few outputs: a block per output whose threads each hold one partial
   * result of the innermost reduce axis (at most {@value #GPU_THREADS} of them, consecutive threads
   * reading consecutive elements), over the other reduce axes; then a thread per output adding up
   * its block's partial results, in the elementwise consumer where there is one.
   */
  private static void applyBlocks(SketchState state, Stage red) {
    Schedule s = state.schedule();
    IterVar k = red.reduceAxis(red.reduceAxis().size() - 1);
    int lanes = (int) Math.min(ComputeDag.extent(k), GPU_THREADS);
    Stage st = s.stage(s.rfactor(red.tensor(), k, lanes));
    List<IterVar> axes = new ArrayList<>(st.axis());
    IterVar lane = axes.remove(axes.size() - 1);
    st.bind(GpuTiling.fuseAll(st, axes), ThreadTag.BLOCK_X);
    st.bind(lane, ThreadTag.THREAD_X);
    threadPerOutput(state, red, false);
    state.note(red, "gpu.rfactor_lanes", lanes);
    state.done(st);
    state.done(red);
  }

  /**
   * On GPUs: the partial results per output of a reduction down the columns (its innermost reduce
   * axis strided, its innermost output axis contiguous: a vector times a matrix, {@code sum_k x[k]
   * * a[k, j]}) whose outputs are too few to fill the machine with a thread each (at most {@value
   * #GPU_FEW_THREADS} per SM) of a reduce axis long enough to divide (at least {@value
   * #GPU_MIN_LENGTH}); 1 where it does not apply. The parts give at least half the threads the SMs
   * hold, each at least {@value #GPU_MIN_PART} elements of the reduce axis.
   */
  static int columnParts(Schedule s, Stage st) {
    if (st.axis().isEmpty() || st.axis().stream().anyMatch(iv -> ComputeDag.extent(iv) <= 0)) {
      return 1;
    }
    IterVar k = st.reduceAxis(st.reduceAxis().size() - 1);
    IterVar j = st.axis(st.axis().size() - 1);
    long extent = ComputeDag.extent(k);
    long outputs = outputs(st);
    if (extent < GPU_MIN_LENGTH
        || ComputeDag.isOne(j)
        || ComputeDag.stridedAlong(s, st, j.var())
        || outputs > (long) GPU_FEW_THREADS * AnalyticPredictor.SMS) {
      return 1;
    }
    long fill = (long) AnalyticPredictor.SMS * AnalyticPredictor.SM_THREADS / 2;
    int parts = 1;
    while ((long) parts * outputs < fill && (long) parts * 2 * GPU_MIN_PART <= extent) {
      parts *= 2;
    }
    return parts;
  }

  /** On GPUs: the threads per SM below which a thread per output leaves the machine idle. */
  static final int GPU_FEW_THREADS = 128;

  /** On GPUs: the fewest elements of the reduce axis in one partial result of a column. */
  static final int GPU_MIN_PART = 16;

  /**
   * On GPUs, a reduction down the columns into few outputs ({@link #columnParts}): the reduce axis
   * factored into contiguous chunks ({@link Schedule#rfactorParts}), a thread per output and chunk
   * with neighbouring threads on neighbouring outputs (coalesced), then a thread per output adding
   * up its chunks, in the elementwise consumer where there is one.
   */
  private static void applyColumns(SketchState state, Stage red) {
    Schedule s = state.schedule();
    int parts = columnParts(s, red);
    int chosen =
        state.knob(
            red,
            "parts",
            parts > 2 ? new int[] {parts, parts / 2, parts * 2} : new int[] {parts, parts * 2});
    IterVar k = red.reduceAxis(red.reduceAxis().size() - 1);
    Stage st = s.stage(s.rfactorParts(red.tensor(), k, chosen));
    // The partial results stored chunk-major, the chunks' loops outermost: a warp writes them, and
    // the output's threads read them, at neighbouring words. Each accumulates in a register.
    Stage local = s.stage(s.cacheWrite(st.tensor(), "local"));
    List<IterVar> axes = new ArrayList<>(st.axis());
    IterVar part = axes.remove(axes.size() - 1);
    axes.add(0, part);
    st.reorderStorage(axes.toArray(IterVar[]::new));
    st.reorder(axes.toArray(IterVar[]::new));
    Stage.Split sp = st.split(GpuTiling.fuseAll(st, axes), GPU_THREADS);
    st.bind(sp.outer(), ThreadTag.BLOCK_X);
    st.bind(sp.inner(), ThreadTag.THREAD_X);
    local.computeAt(st, sp.inner());
    state.done(local);
    threadPerOutput(state, red, true);
    state.note(red, "gpu.column_parts", chosen);
    state.done(st);
    state.done(red);
  }

  /**
   * The thread per output that adds up {@code red}'s partial results, blocks of 64: the elementwise
   * consumer's where there is one (a mean's division), {@code red} then computed in a register
   * there; else {@code red}'s own, adding in a register where {@code accumulateLocally}.
   */
  private static void threadPerOutput(SketchState state, Stage red, boolean accumulateLocally) {
    Schedule s = state.schedule();
    Stage consumer = MultiLevelTiling.fusibleConsumer(state, red);
    Stage sum = null;
    if (consumer != null) {
      red.setScope("local");
      sum = red;
      state.done(consumer);
    } else if (accumulateLocally) {
      sum = s.stage(s.cacheWrite(red.tensor(), "local"));
      state.done(sum);
    }
    Stage out = consumer != null ? consumer : red;
    Stage.Split one = out.split(GpuTiling.fuseAll(out, out.axis()), 64);
    out.bind(one.outer(), ThreadTag.BLOCK_X);
    out.bind(one.inner(), ThreadTag.THREAD_X);
    if (sum != null) {
      sum.computeAt(out, one.inner());
    }
  }

  private static long outputs(Stage st) {
    long n = 1;
    for (IterVar iv : st.axis()) {
      n *= Math.max(1, ComputeDag.extent(iv));
    }
    return n;
  }
}
