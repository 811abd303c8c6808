package dev.kernelgen.autosched;

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
 * runs over the same tile, vectorized. Short constant reduce axes (filter taps) are unrolled.
 */
final class CpuTiling {
  private CpuTiling() {}

  /** The largest tile of the innermost axis (AVX-512 holds 16 floats; 4 vectors). */
  static final int MAX_INNER_TILE = 64;

  /** The largest tile of the second innermost axis (rows of the register tile). */
  static final int MAX_ROW_TILE = 16;

  /** The largest tile of the other axes. */
  static final int MAX_OUTER_TILE = 4;

  /** The most iterations unrolled: loops of a tile beyond it stay loops (code size). */
  static final int MAX_UNROLLED = 64;

  /** The longest constant reduce axis that is unrolled. */
  static final int MAX_UNROLLED_REDUCTION = 8;

  static void apply(SketchState state, Stage red, Stage tiled, Stage local) {
    List<IterVar> axes = tiled.axis();
    int n = axes.size();
    int[] tiles = new int[n];
    long regTile = 1;
    double tasks = 1;
    double waste = 1;
    for (int d = 0; d < n; d++) {
      long e = ComputeDag.extent(axes.get(d));
      boolean inner = d == n - 1;
      tiles[d] =
          state.knob(
              red,
              "tile" + d,
              TileChoices.of(
                  e,
                  inner ? MAX_INNER_TILE : d == n - 2 ? MAX_ROW_TILE : MAX_OUTER_TILE,
                  inner ? 32 : (d == n - 2 ? 8 : 1)));
      regTile *= tiles[d];
      long ext = e > 0 ? e : 1024;
      long count = (ext + tiles[d] - 1) / tiles[d];
      waste *= (double) count * tiles[d] / ext;
      if (d < Math.min(2, n - 1) || n == 1) {
        tasks *= count;
      }
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
    long rows = regTile / tiles[n - 1];
    boolean unrollRows = rows <= MAX_UNROLLED;
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
      if (e > 0 && e <= MAX_UNROLLED_REDUCTION && rows * e <= MAX_UNROLLED) {
        local.unroll(r);
      }
    }
    for (int d = 0; d < n - 1 && unrollRows; d++) {
      local.unroll(local.axis(d));
    }
    local.vectorize(local.axis(n - 1));
    // Per reduction step: one vector load per 16 columns of the innermost tile and a broadcast per
    // row of the others, for regTile / 16 vector multiply-adds.
    double loads = Math.ceil(tiles[n - 1] / 16.0);
    for (int d = 0; d < n - 1; d++) {
      loads += tiles[d];
    }
    state.note("cpu.intensity", regTile / 16.0 / loads);
    state.note("cpu.reg_tile", regTile);
    state.note("cpu.inner_tile", tiles[n - 1]);
    state.note("cpu.tasks", tasks);
    state.note("cpu.waste", waste);
  }
}
