package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.IterVar;
import java.util.ArrayList;
import java.util.List;

/**
 * The CPU structure of {@link MultiLevelTiling} ("S R S": Ansor's SSRSRS with one cache level):
 * every data axis of the tiled stage is split by a constant tile (knob {@code tile<d>}); the outer
 * loops come first, the two outermost fused and run in parallel; the accumulator is computed at the
 * innermost outer loop, a {@code tile_0 x ... x tile_n} block in registers (its last axis
 * vectorized, the others unrolled) with the reduction around it; the copy-out with its epilogue
 * runs over the same tile, vectorized. Short constant reduce axes (filter taps) are unrolled, but
 * in Java kernels (code size: {@link #MAX_UNROLLED_JAVA}).
 *
 * <p>Knob {@code layout} 1 is the other CPU sketch, for reductions whose inputs are contiguous
 * along the reduction rather than along an output axis (dense: {@code W[j, k]}): the same parallel
 * tiles, each output accumulated alone with its innermost reduction in vector lanes. Values from
 * {@link CpuPackedTiling#BASE} on are the packed layout along each axis it qualifies for (C,
 * constant extents): its operands packed or broadcast for that axis's vectors, padding computed
 * once per task. Value {@link CpuRowWindow#LAYOUT}, first where it qualifies, is the row form of a
 * sliding-window reduction (a depthwise convolution, a pooling window).
 */
final class CpuTiling {
  private CpuTiling() {}

  /** The largest tile of the innermost axis (AVX-512 holds 16 floats; 4 vectors). */
  static final int MAX_INNER_TILE = 64;

  /**
   * The largest tile of the innermost axis of a streaming reduction ({@link #streams}): its
   * accumulators live in L1, not in registers (1 KB a row of the tile).
   */
  static final int MAX_STREAM_TILE = 256;

  /** The largest tile of the second innermost axis (rows of the register tile). */
  static final int MAX_ROW_TILE = 16;

  /** The largest tile of the other axes. */
  static final int MAX_OUTER_TILE = 8;

  /** The most iterations unrolled: loops of a tile beyond it stay loops (code size). */
  static final int MAX_UNROLLED = 64;

  /**
   * The most rows of a register tile unrolled in a Java kernel (none: rows stay loops, which C2
   * unrolls itself). HotSpot compiles no method over 8000 bytes of bytecode ({@code
   * -XX:HugeMethodLimit}) and runs it in the interpreter: with 16 rows unrolled, each partitioned
   * at the padding borders, the conv + batch norm + swish sample's kernel for [8,32,28,28]x32 had a
   * parallel body of 63,915 bytes and its launcher test on Java took 15 s; with rows as loops,
   * 4,420 bytes and 1.7 s.
   */
  static final int MAX_UNROLLED_JAVA = 1;

  /** The longest constant reduce axis that is unrolled. */
  static final int MAX_UNROLLED_REDUCTION = 8;

  /**
   * The most rows of a register tile unrolled where its vector tile is ragged ({@link
   * #variesPerTile}): each unrolled row is then a variable-bound vector loop, partitioned at
   * padding borders and given a masked epilogue by gcc. A conv tile of 48 such rows was a 2683-line
   * kernel (1383 statements) that gcc took 22 s to compile, against 0.5 s with the rows as loops; a
   * few rows unrolled still pay (a 7-row depthwise tile over 14 columns by vectors of 8: 113 us
   * unrolled, 143 us as loops, on a 2-core Zen 4).
   */
  static final int MAX_UNROLLED_RAGGED = 16;

  /**
   * Whether the vectorized loop of a tile of {@code tile} over a constant {@code extent} is ragged:
   * its bound then varies per tile ({@code min(extent - tile * outer, tile)}). Symbolic extents
   * (-1) are not counted: there the unrolled rows' guards fold to constants, and as loops they are
   * partitioned into more statements than unrolled.
   */
  static boolean variesPerTile(long extent, int tile) {
    return extent > 0 && extent % tile != 0;
  }

  /** The most rows unrolled for a vector tile of {@code tile} over {@code extent}. */
  static int maxUnrolledRows(long extent, int tile, boolean java) {
    int max = java ? MAX_UNROLLED_JAVA : MAX_UNROLLED;
    return variesPerTile(extent, tile) ? Math.min(max, MAX_UNROLLED_RAGGED) : max;
  }

  /** The extent the notes assume for a symbolic one: the predictor ranks for this size. */
  static final long NOMINAL_EXTENT = 1024;

  /** Knob {@code layout}: the register tile with the reduction around it. */
  static final int REGISTER_TILE = 0;

  /** Knob {@code layout}: one output at a time, its innermost reduction in vector lanes. */
  static final int DOT = 1;

  static void apply(SketchState state, Stage red, Stage tiled, Stage local) {
    List<IterVar> axes = tiled.axis();
    int n = axes.size();
    // Whether the vectorized loop of either layout strides memory.
    IterVar lastAxis = local.axis(n - 1);
    IterVar lastReduce = local.reduceAxis(local.reduceAxis().size() - 1);
    boolean gather = ComputeDag.stridedAlong(state.schedule(), local, lastAxis.var());
    boolean dotStrided = ComputeDag.stridedAlong(state.schedule(), local, lastReduce.var());
    long dotLength = ComputeDag.extent(lastReduce);
    List<java.util.Set<Integer>> readAxes = ComputeDag.axesOfReads(state.schedule(), local);
    boolean streams = streams(state.schedule(), local);
    List<Integer> packedAxes = CpuPackedTiling.candidates(state, local);
    // A read along the last axis by a step other than one (a stride-2 convolution's 2t + k) is no
    // vector load either: that loop stays serial (below). Where the packed layout vectorizes
    // another axis, that counts as a gather: a conv1d of stride 2 over [8,64,4096] x 128 ran 40-50
    // ms so, 26 ms packed along its output channels (2-core Zen 4). A pooling window of stride 2,
    // with no other layout, does better serial than its other tiles (the C compiler vectorizes it).
    gather |=
        !packedAxes.isEmpty()
            && ComputeDag.nonUnitStrideAlong(state.schedule(), local, lastAxis.var());
    boolean rowWindow = CpuRowWindow.qualifies(state, local);
    List<Integer> layouts = new ArrayList<>();
    if (rowWindow) {
      layouts.add(CpuRowWindow.LAYOUT);
    }
    layouts.add(REGISTER_TILE);
    layouts.add(DOT);
    for (int v : packedAxes) {
      layouts.add(CpuPackedTiling.BASE + v);
    }
    int layout = state.knob(red, "layout", layouts.stream().mapToInt(x -> x).toArray());
    int[][] tileChoices = new int[n][];
    for (int d = 0; d < n; d++) {
      boolean inner = d == n - 1;
      tileChoices[d] =
          TileChoices.of(
              ComputeDag.extent(axes.get(d)),
              inner && streams
                  ? MAX_STREAM_TILE
                  : inner || packedAxes.contains(d)
                      ? MAX_INNER_TILE
                      : d == n - 2 ? MAX_ROW_TILE : MAX_OUTER_TILE,
              inner ? 32 : (d == n - 2 ? 8 : 1),
              // A streaming tile may take a divisor of the extent: its accumulators are no whole
              // registers anyway, and a ragged tile's bound varies per tile.
              inner && !streams);
    }
    // Each layout reads its own knobs and declares the others' (SketchState.declare): the row form
    // has no tiles, the tiles no bands.
    if (layout == CpuRowWindow.LAYOUT) {
      for (int d = 0; d < n; d++) {
        state.declare(red, "tile" + d, tileChoices[d]);
      }
      int band = state.knob(red, "band", CpuRowWindow.bandChoices(state, tiled, local));
      int rows = state.knob(red, "rows", CpuRowWindow.rowsChoices(state, local));
      CpuRowWindow.apply(state, red, tiled, local, band, rows);
      return;
    }
    int[] tiles = new int[n];
    long regTile = 1;
    double tasks = 1;
    double waste = 1;
    int ragged = 0;
    for (int d = 0; d < n; d++) {
      long e = ComputeDag.extent(axes.get(d));
      tiles[d] = state.knob(red, "tile" + d, tileChoices[d]);
      regTile *= tiles[d];
      long ext = e > 0 ? e : NOMINAL_EXTENT;
      long count = (ext + tiles[d] - 1) / tiles[d];
      waste *= (double) count * tiles[d] / ext;
      if (e > 0 && e % tiles[d] != 0) {
        // A ragged tile's loops get a bound that varies per tile: not unrolled into registers.
        ragged += d == n - 1 ? 2 : 1;
      }
      if (d < Math.min(2, n - 1) || n == 1) {
        tasks *= count;
      }
    }
    if (rowWindow) {
      state.declare(red, "band", CpuRowWindow.bandChoices(state, tiled, local));
      state.declare(red, "rows", CpuRowWindow.rowsChoices(state, local));
    }
    if (layout >= CpuPackedTiling.BASE) {
      CpuPackedTiling.apply(state, red, tiled, local, layout - CpuPackedTiling.BASE, tiles);
      return;
    }
    if (!packedAxes.isEmpty() && CpuPackedTiling.readsInlinedSelect(state.schedule(), local)) {
      // Where the packed layout could compute the padding once, here it is checked per tap.
      state.note(red, "cpu.inlined_select", 1);
    }
    List<IterVar> outer = new ArrayList<>();
    List<IterVar> inner = new ArrayList<>();
    for (int d = 0; d < n; d++) {
      Stage.Split sp = tiled.split(axes.get(d), tiles[d]);
      outer.add(sp.outer());
      inner.add(sp.inner());
    }
    List<IterVar> order = new ArrayList<>(outer);
    order.addAll(inner);
    tiled.reorder(order.toArray(IterVar[]::new));
    IterVar par = outer.get(0);
    if (n >= 2) {
      par = tiled.fuse(outer.get(0), outer.get(1));
      outer.set(1, par);
      outer.remove(0);
    }
    tiled.parallel(par);
    state.note(red, "cpu.tasks", tasks);
    state.note(red, "cpu.ragged", ragged);
    state.note(red, "cpu.waste", waste);
    if (layout == DOT) {
      local.computeAt(tiled, inner.get(n - 1));
      RowReduction.vectorizeLongReduction(local);
      state.note(red, "cpu.dot", 1);
      state.note(red, "cpu.dot_length", dotLength > 0 ? dotLength : NOMINAL_EXTENT);
      state.note(red, "cpu.dot_strided", dotStrided ? 1 : 0);
      return;
    }
    state.note(red, "cpu.gather", gather ? 1 : 0);
    long rows = regTile / tiles[n - 1];
    boolean java = state.target() == Target.JAVA;
    boolean unrollRows =
        rows <= maxUnrolledRows(ComputeDag.extent(axes.get(n - 1)), tiles[n - 1], java);
    for (int d = 0; d < n - 1 && unrollRows; d++) {
      tiled.unroll(inner.get(d));
    }
    tiled.vectorize(inner.get(n - 1));
    local.computeAt(tiled, outer.get(outer.size() - 1));
    List<IterVar> lorder = new ArrayList<>(local.reduceAxis());
    lorder.addAll(local.axis());
    local.reorder(lorder.toArray(IterVar[]::new));
    for (IterVar r : local.reduceAxis()) {
      long e = ComputeDag.extent(r);
      if (!java && e > 0 && e <= MAX_UNROLLED_REDUCTION && rows * e <= MAX_UNROLLED) {
        local.unroll(r);
      }
    }
    for (int d = 0; d < n - 1 && unrollRows; d++) {
      local.unroll(local.axis(d));
    }
    if (!ComputeDag.nonUnitStrideAlong(state.schedule(), local, lastAxis.var())) {
      // Strided reads stay a serial loop for the C compiler to handle: under omp simd, gcc's
      // stride-2 loads behind padding's bound checks made a 3x3/2 max pool over [1,64,112,112] run
      // 383 us, against 129 us without the pragma and 193 us for the naive loops (2-core Zen 4).
      local.vectorize(local.axis(n - 1));
    }
    // Per reduction step, for regTile / lanes vector multiply-adds: each input's tile, a vector
    // per lanes elements along the innermost axis, a broadcast per element else.
    double lanes = state.vectors().lanes();
    double loads = 0;
    for (var used : readAxes) {
      double l = 1;
      for (int d : used) {
        l *= d == n - 1 ? Math.ceil(tiles[d] / lanes) : tiles[d];
      }
      loads += l;
    }
    state.note(red, "cpu.intensity", regTile / lanes / loads);
    state.note(red, "cpu.reg_tile", regTile);
    noteRegisters(state, red, local, rows * Math.ceil(tiles[n - 1] / lanes), tiles[n - 1]);
    if (streams) {
      state.note(red, "cpu.stream_run", (double) local.tensor().dtype().bytes() * tiles[n - 1]);
    }
  }

  /**
   * Notes a register tile's share of the vector unit: the accumulators' {@code vectors} against the
   * registers they may take ({@code cpu.register_pressure}; not where the reduction is masked by
   * its output, a scan, whose inner loop's bound varies per step and keeps its accumulators in
   * memory), and how much of a vector the innermost tile of {@code inner} elements fills.
   */
  static void noteRegisters(SketchState state, Stage red, Stage local, double vectors, int inner) {
    VectorUnit unit = state.vectors();
    if (!NaiveSchedule.masksByOutput(local) && !NaiveSchedule.masksByOutput(red)) {
      state.note(red, "cpu.register_pressure", vectors / unit.accumulatorRegisters());
    }
    state.note(red, "cpu.lane_fill", Math.min(inner, unit.lanes()) / (double) unit.lanes());
  }

  /** The most bytes of an operand a streaming stage may reuse: a vector, in L1. */
  static final long SMALL_REUSED_BYTES = 16 * 1024;

  /**
   * Whether the stage streams its inputs along a strided reduction: every element it reads is read
   * for one output ({@link ComputeDag#readsWithoutReuse}), and each step of the reduction moves to
   * another row of memory (a sum or maximum down the columns of a matrix). Registers then buy no
   * reuse; what counts is the contiguous run a task reads per step, its innermost tile: on a 2-core
   * Zen 4, the maxima of a [1024, 1024] matrix's columns took 90 us with tiles of 32 columns (128
   * bytes a row), 45 with 64, 32 with 128 and 29 with 512.
   */
  static boolean streams(Schedule s, Stage local) {
    // (An operand reused that fits in L1, a vector-matrix product's vector, does not count: the
    // matrix streams: [4096] x [4096, 4096] in runs of 64 columns 3.35-3.9 ms, of 256 3.0-3.4 ms.)
    IterVar k = local.reduceAxis(local.reduceAxis().size() - 1);
    return ComputeDag.stridedAlong(s, local, k.var())
        && ComputeDag.readsWithoutReuse(s, local, SMALL_REUSED_BYTES);
  }
}
