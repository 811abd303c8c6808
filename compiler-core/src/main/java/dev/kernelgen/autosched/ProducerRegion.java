package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.List;

/**
 * What a CPU task of the packed layout ({@link CpuPackedTiling}) computes of a producer it
 * materializes (a padded input), and where: the region a task reads of it, and whether it is
 * computed per band of rows instead, so that a band stays in L1 while it is read.
 */
final class ProducerRegion {
  private ProducerRegion() {}

  /**
   * The most bytes of a producer (a padded input) a task computes at once: beyond L1 (32 KiB on Zen
   * 3 and 4), the producer is computed per tile of rows (a band), so that it stays in L1 while the
   * band is read. A 3x3 depthwise convolution over [1,256,96,96] (its padded plane 38 KiB, tiles of
   * 8 x 32), four alternating rounds on 2 Zen 4 cores: 790-1102 us per plane, 742-967 us per band;
   * a grouped convolution over [1,128,56,56] (groups of 32 channels) 2173-2192 -> 2040-2060 us.
   * Over [1,256,64,64] (17 KiB) bands of 8 rows were 5-10% slower than the plane.
   */
  static final double BAND_BYTES = 32 * 1024;

  /**
   * The most a producer's bands may compute, all together, against its region computed whole: bands
   * of a tile of rows recompute the window's halo rows only (a 3x3 depthwise convolution in bands
   * of 8 rows: 10 rows each, 1.25x). Bands are of rows only: bands of the producer's columns copy
   * short rows, their halo columns again in each (the packed convolution over [32,64,56,56]x64,
   * tiles of 4 rows and one column: 47-57 ms in such bands, 37-40 ms whole, 2-core Zen 4).
   */
  static final double MAX_BAND_RECOMPUTE = 1.5;

  /**
   * The span a task's producer region is assumed to have along a symbolic axis the task runs whole
   * (an image's width, the input channels): the size of {@link CpuTiling#NOMINAL_EXTENT} there
   * would rank every materialized row as spilling L2, and the alternatives hold no rows but run
   * 3-7x slower (a 3x3 convolution over [n, c, h, w] to k channels, 2-core Zen 4).
   */
  static final long NOMINAL_SPAN = 64;

  /**
   * The axis of {@code local} (a position in its axes) per tile of which producer {@code t}, read
   * at {@code idx}, is computed: the next tiled axis after the parallel ones ({@code others}' first
   * {@code parallelAxes}) where a task's region of it is over {@link #BAND_BYTES}, that axis moves
   * along the producer's rows, not its columns, and the bands recompute at most {@link
   * #MAX_BAND_RECOMPUTE} of it; else -1 (per task). Constant extents only. (The notes keep the
   * task's region: the tiles rank as they were measured to.)
   */
  static int bandAxis(
      Stage local, List<Expr> idx, Tensor t, List<Integer> others, int parallelAxes, int[] tiles) {
    List<Integer> parallel = others.subList(0, parallelAxes);
    double region = of(local, idx, parallel, tiles);
    if (region * t.dtype().bytes() <= BAND_BYTES
        || others.size() <= parallelAxes
        || !constantExtents(local)) {
      return -1;
    }
    int next = others.get(parallelAxes);
    List<Integer> banded = new ArrayList<>(parallel);
    banded.add(next);
    double bands = Math.ceil((double) ComputeDag.extent(local.axis(next)) / tiles[next]);
    boolean alongRows = !FreeVars.uses(idx.get(idx.size() - 1), local.axis(next).var());
    return alongRows && of(local, idx, banded, tiles) * bands <= MAX_BAND_RECOMPUTE * region
        ? next
        : -1;
  }

  /**
   * About how many elements of a producer a parallel task computes, read by {@code st} at {@code
   * idx}: per dimension, the span of its index over the task (a tile of each parallel axis, the
   * whole extent of every other axis, reduce axes included), at most the dimension's extent.
   */
  static double of(Stage st, List<Expr> idx, List<Integer> parallel, int[] tiles) {
    double elements = 1;
    for (Expr i : idx) {
      double span = 1;
      for (Var x : FreeVars.of(i)) {
        long extent = 1;
        for (int d = 0; d < st.axis().size(); d++) {
          if (st.axis(d).var() == x) {
            long e = ComputeDag.extent(st.axis(d));
            extent = parallel.contains(d) ? tiles[d] : e > 0 ? e : NOMINAL_SPAN;
          }
        }
        for (IterVar r : st.reduceAxis()) {
          if (r.var() == x) {
            long e = ComputeDag.extent(r);
            extent = e > 0 ? e : NOMINAL_SPAN;
          }
        }
        span += extent - 1;
      }
      elements *= span;
    }
    return elements;
  }

  /**
   * Whether every axis of {@code local} has a constant extent: a symbolic one's region is a guess
   * ({@link #NOMINAL_SPAN}), not a size to band by.
   */
  private static boolean constantExtents(Stage local) {
    for (IterVar a : local.axis()) {
      if (ComputeDag.extent(a) <= 0) {
        return false;
      }
    }
    return CpuPackedTiling.constantReduction(local);
  }
}
