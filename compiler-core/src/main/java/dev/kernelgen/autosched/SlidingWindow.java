package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a GPU thread of {@link GpuTiling} loads, and its window in registers. A reduction with
 * little reuse (a pooling window, a depthwise filter) whose register tile slides along a window
 * (rows {@code y + di}) reads the same input for several of its outputs: with knob {@code window}
 * each thread first loads what its tile needs of those inputs into registers, each element once
 * with its bounds check, and the unrolled multiply-adds read the registers (without it each tap
 * loads, and nvcc does not merge loads under different bounds checks: 72 loads for a tile of 8 rows
 * of a 3 x 3 filter instead of 30).
 *
 * <p>The notes it leaves weigh those loads against a thread per output's ({@link
 * AnalyticPredictor}): counted are the inputs whose address varies across a warp's lanes (an index
 * on the output's innermost axis; a filter read at the channel is one broadcast per warp).
 */
final class SlidingWindow {
  private SlidingWindow() {}

  /**
   * What {@code local}'s thread reads, for a register tile of {@code reg} points along each data
   * axis and reduction steps of {@code tileK} along the first reduce axis ({@code stepReduce}
   * points in all), {@code block} outputs a block ({@code k0}: the first reduce axis's extent).
   */
  record Loads(
      List<Tensor> windowed,
      double perMultiplyAdd,
      int varying,
      double windowRegs,
      double blockPerOutput,
      double naiveBlockPerOutput) {

    /** Leaves the notes the predictor weighs. */
    void note(SketchState state, Stage red) {
      state.note(red, "gpu.thread_loads", varying == 0 ? 1 : perMultiplyAdd);
      state.note(red, "gpu.naive_loads", Math.max(1, varying));
      state.note(red, "gpu.window_regs", windowRegs);
      state.note(red, "gpu.block_loads", blockPerOutput);
      state.note(red, "gpu.naive_block_loads", naiveBlockPerOutput);
    }
  }

  /**
   * The loads of {@code red}'s thread: with {@code window}, the inputs not in {@code staged} of
   * which a step of the thread reads fewer elements than it has points go to registers. The block's
   * halo is weighed where the reduction is {@code windowable} (short, constant).
   */
  static Loads of(
      Schedule s,
      Stage red,
      Stage local,
      List<IterVar> axes,
      int[] reg,
      long[] range,
      int tileK,
      long k0,
      double stepReduce,
      boolean windowable,
      boolean window,
      java.util.Collection<Tensor> staged) {
    int n = axes.size();
    long[] regRange = new long[n];
    for (int d = 0; d < n; d++) {
      regRange[d] = reg[d];
    }
    List<Tensor> inputs = new ArrayList<>();
    for (Tensor t : ComputeDag.directReads(local).keySet()) {
      if (!inputs.contains(t)) {
        inputs.add(t);
      }
    }
    Var innermost = local.axis(n - 1).var();
    List<Tensor> windowed = new ArrayList<>();
    double loads = 0;
    double windowRegs = 0;
    int varying = 0;
    for (Tensor t : inputs) {
      double step = SharedTiles.threadElems(s, local, t, regRange, tileK, false);
      double point = SharedTiles.threadElems(s, local, t, regRange, tileK, true);
      boolean inRegisters = window && !staged.contains(t) && step < point * stepReduce;
      if (inRegisters) {
        windowed.add(t);
        windowRegs += step;
      }
      if (variesAcrossLanes(s, local, t, innermost)) {
        varying++;
        loads += inRegisters ? step : point * stepReduce;
      }
    }
    // What a block reads of those inputs per output (its halo: L1 misses), against a naive block's
    // (a run of NaiveSchedule.THREADS outputs along the innermost axes).
    double block = 1;
    double naiveBlock = 1;
    if (windowable && varying > 0) {
      long[] naive = new long[n];
      Arrays.fill(naive, 1);
      long last = Math.max(1, ComputeDag.extent(axes.get(n - 1)));
      naive[n - 1] = Math.min(last, NaiveSchedule.THREADS);
      if (n > 1 && last < NaiveSchedule.THREADS) {
        long rows = (NaiveSchedule.THREADS + last - 1) / last;
        long e = ComputeDag.extent(axes.get(n - 2));
        naive[n - 2] = e > 0 ? Math.min(e, rows) : rows;
      }
      long[] tile = new long[n]; // the block's outputs along each axis, within its extent
      for (int d = 0; d < n; d++) {
        long e = ComputeDag.extent(axes.get(d));
        tile[d] = e > 0 ? Math.min(e, range[d]) : range[d];
      }
      block = blockElems(s, local, inputs, innermost, tile, (int) k0) / product(tile);
      naiveBlock = blockElems(s, local, inputs, innermost, naive, (int) k0) / product(naive);
    }
    double points = stepReduce;
    for (int r : reg) {
      points *= r;
    }
    return new Loads(windowed, loads / points, varying, windowRegs, block, naiveBlock);
  }

  /**
   * Loads {@code windowed} into registers at {@code step} (the reduction's step loop of {@code
   * local}) and unrolls the step, so that the taps index the registers with constants.
   */
  static void apply(
      SketchState state, Stage local, IterVar step, IterVar stepInner, List<Tensor> windowed) {
    if (windowed.isEmpty()) {
      return;
    }
    Schedule s = state.schedule();
    for (Tensor t : windowed) {
      Stage w = s.stage(s.cacheRead(t, "local", local.tensor()));
      w.computeAt(local, step);
      for (IterVar a : w.axis()) {
        w.unroll(a);
      }
      state.done(w);
    }
    local.unroll(stepInner);
    for (IterVar r : local.reduceAxis().subList(1, local.reduceAxis().size())) {
      local.unroll(r);
    }
  }

  private static boolean variesAcrossLanes(Schedule s, Stage local, Tensor t, Var innermost) {
    List<List<Expr>> reads = ComputeDag.readsOrOwn(s, local, t);
    return !reads.isEmpty()
        && reads.get(0).stream().anyMatch(x -> FreeVars.of(x).contains(innermost));
  }

  /**
   * The elements of the inputs whose address varies across a warp's lanes that a tile of {@code
   * range} outputs reads over the whole reduction.
   */
  private static double blockElems(
      Schedule s, Stage local, List<Tensor> inputs, Var innermost, long[] range, int k0) {
    double sum = 0;
    for (Tensor t : inputs) {
      if (variesAcrossLanes(s, local, t, innermost)) {
        sum += SharedTiles.threadElems(s, local, t, range, k0, false);
      }
    }
    return sum;
  }

  private static double product(long[] range) {
    double p = 1;
    for (long r : range) {
      p *= r;
    }
    return p;
  }
}
