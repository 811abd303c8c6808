package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * The shared-memory tiles of {@link GpuTiling}: what a block's tile of a reused input spans (its
 * footprint, which the model weighs), and how it is laid out (reduction-major, rows padded against
 * bank conflicts).
 */
final class SharedTiles {
  private SharedTiles() {}

  /**
   * The elements of {@code t} that {@code local} reads over a block's tile ({@code range} points
   * along each data axis, {@code tileK} along the first reduce axis, the others whole): per
   * dimension the span of its index over those ranges (sums of axes times constants; any other
   * index spans the dimension), at most the dimension's extent.
   */
  static double footprint(Schedule s, Stage local, Tensor t, long[] range, int tileK) {
    List<List<dev.kernelgen.te.Expr>> reads = ComputeDag.readsOrOwn(s, local, t);
    if (reads.isEmpty()) {
      return 0;
    }
    long[] widths = tileWidths(local, t, reads.get(0), range, tileK);
    List<Integer> order = reductionMajorOrder(local, reads.get(0));
    double stride = 1;
    for (int k = widths.length - 1; k >= 0; k--) {
      int d = order == null ? k : order.get(k);
      if (order != null && k == widths.length - 2 && padsRows(widths[order.get(k + 1)])) {
        stride = ROW_ALIGN.apply((long) stride); // stored reduction-major: see storeReductionMajor
      }
      stride *= widths[d];
    }
    return stride;
  }

  /**
   * Whether every read of {@code t} in {@code local} is at the first read's index plus constants (a
   * stencil's {@code x[i]} and {@code x[i + 1]}): their union over a block's tile is then a box of
   * constant size at a place that moves with the block, the one kind of tile a fetch copies.
   */
  static boolean oneTile(Schedule s, Stage local, Tensor t) {
    List<List<dev.kernelgen.te.Expr>> reads = ComputeDag.readsOrOwn(s, local, t);
    for (List<dev.kernelgen.te.Expr> idx : reads) {
      for (int d = 0; d < idx.size(); d++) {
        dev.kernelgen.te.Expr diff =
            dev.kernelgen.arith.Simplifier.simplify(idx.get(d).sub(reads.get(0).get(d)));
        if (!(diff instanceof dev.kernelgen.te.IntImm)) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The distinct elements of {@code t} that one thread reads for its register tile ({@code reg}
   * points along each data axis): over a whole reduction step ({@code tileK} along the first reduce
   * axis, the others whole) or, with {@code onePoint}, at one point of the reduction (each reduce
   * axis fixed). Without row padding: registers, not a shared tile.
   */
  static double threadElems(
      Schedule s, Stage local, Tensor t, long[] reg, int tileK, boolean onePoint) {
    List<List<dev.kernelgen.te.Expr>> reads = ComputeDag.readsOrOwn(s, local, t);
    if (reads.isEmpty()) {
      return 0;
    }
    double n = 1;
    for (long w : tileWidths(local, t, reads.get(0), reg, tileK, onePoint)) {
      n *= w;
    }
    return n;
  }

  private static long[] tileWidths(
      Stage local, Tensor t, List<dev.kernelgen.te.Expr> idx, long[] range, int tileK) {
    return tileWidths(local, t, idx, range, tileK, false);
  }

  /**
   * Per dimension of {@code t}, the span of the index {@code idx} that {@code local} reads it at
   * over a block's tile ({@code range} points along each data axis, {@code tileK} along the first
   * reduce axis, the others whole; with {@code onePoint} every reduce axis one point): sums of axes
   * times constants; any other index spans the dimension; at most the dimension's extent.
   */
  private static long[] tileWidths(
      Stage local,
      Tensor t,
      List<dev.kernelgen.te.Expr> idx,
      long[] range,
      int tileK,
      boolean onePoint) {
    java.util.Map<dev.kernelgen.te.Var, Long> span = new java.util.HashMap<>();
    for (int d = 0; d < local.axis().size(); d++) {
      span.put(local.axis(d).var(), range[d]);
    }
    List<IterVar> rs = local.reduceAxis();
    for (int k = 0; k < rs.size(); k++) {
      long e = ComputeDag.extent(rs.get(k));
      span.put(
          rs.get(k).var(),
          onePoint
              ? 1L
              : k == 0 ? (long) tileK : e > 0 ? e : (long) MultiLevelTiling.SYMBOLIC_EXTENT);
    }
    long[] widths = new long[idx.size()];
    for (int d = 0; d < idx.size(); d++) {
      long dim =
          t.shape().get(d) instanceof dev.kernelgen.te.IntImm c
              ? c.value()
              : (long) MultiLevelTiling.SYMBOLIC_EXTENT;
      long[] lh = interval(idx.get(d), span);
      long w = lh == null ? dim : lh[1] - lh[0] + 1;
      widths[d] = Math.min(w, dim);
    }
    return widths;
  }

  /** The least and greatest value of {@code e} with each variable in [0, span); null if unknown. */
  private static long[] interval(
      dev.kernelgen.te.Expr e, java.util.Map<dev.kernelgen.te.Var, Long> span) {
    if (e instanceof dev.kernelgen.te.IntImm c) {
      return new long[] {c.value(), c.value()};
    }
    if (e instanceof dev.kernelgen.te.Var v) {
      Long r = span.get(v);
      return r == null ? null : new long[] {0, r - 1};
    }
    if (e instanceof dev.kernelgen.te.Cast c) {
      return interval(c.value(), span);
    }
    if (e instanceof dev.kernelgen.te.Binary b) {
      long[] x = interval(b.a(), span);
      long[] y = interval(b.b(), span);
      if (x == null || y == null) {
        return null;
      }
      return switch (b.op()) {
        case ADD -> new long[] {x[0] + y[0], x[1] + y[1]};
        case SUB -> new long[] {x[0] - y[1], x[1] - y[0]};
        case MUL -> {
          long[] p = {x[0] * y[0], x[0] * y[1], x[1] * y[0], x[1] * y[1]};
          yield new long[] {
            Math.min(Math.min(p[0], p[1]), Math.min(p[2], p[3])),
            Math.max(Math.max(p[0], p[1]), Math.max(p[2], p[3]))
          };
        }
        case FLOOR_DIV, FLOOR_MOD -> quotient(b, x, y, span);
        default -> null;
      };
    }
    return null;
  }

  /**
   * The interval of {@code floordiv(a, c)} or {@code floormod(a, c)}, {@code a} in {@code x}, for a
   * positive constant {@code c}: a grouped convolution's input channel {@code o / g * g + c}. A
   * tile of a variable starts at a multiple of its span (blocks and reduction steps are tiles of
   * it), so where the span and {@code c} divide one another the tile's quotients are the fewest;
   * else the tile may straddle one more multiple of {@code c}.
   */
  private static long[] quotient(
      dev.kernelgen.te.Binary b,
      long[] x,
      long[] y,
      java.util.Map<dev.kernelgen.te.Var, Long> span) {
    long c = y[0];
    if (y[0] != y[1] || c <= 0) {
      return null;
    }
    long width = x[1] - x[0] + 1;
    boolean aligned =
        b.a() instanceof dev.kernelgen.te.Var v
            && span.containsKey(v)
            && (c % width == 0 || width % c == 0);
    long quotients = aligned ? (width - 1) / c + 1 : (width - 1 + c - 1) / c + 1;
    if (b.op() == dev.kernelgen.te.BinOp.FLOOR_DIV) {
      long lo = Math.floorDiv(x[0], c);
      return new long[] {lo, lo + quotients - 1};
    }
    return new long[] {0, quotients > 1 ? c - 1 : Math.min(width, c) - 1};
  }

  /**
   * The row stride of a shared tile stored reduction-major, where its rows are a multiple of 32
   * words ({@link #padsRows}): 8k + 4 words. The fetch's neighbouring threads walk the reduction
   * dimension, which is now the rows: rows 128 words apart put a warp's stores in 4 banks (8-way
   * conflicts); 132 apart, in all 32, and rows still start on 16 bytes for the reads' 128-bit loads
   * (2048^3 matmul on the H200, with the 16-byte alignment: 543 -> 486 us).
   */
  static final dev.kernelgen.schedule.Stage.StorageAlign ROW_ALIGN =
      new dev.kernelgen.schedule.Stage.StorageAlign(8, 4);

  /**
   * Whether rows of {@code width} words get {@link #ROW_ALIGN}'s padding: where they are a multiple
   * of 32, so that a column lies in one bank. Shorter rows spread a column over several banks
   * already (8 words: 4 banks, 2-way conflicts over 8 rows), and padding them costs a large part of
   * the tile (12 words for 8: the conv2d [1,64,56,56] pick's filter tile, whose growth sent the
   * untuned pick to a tile 1.2x slower on the H200).
   */
  static boolean padsRows(long width) {
    return width >= 32 && width % 32 == 0;
  }

  /**
   * The dimensions of a shared tile of a tensor that {@code local} reads at {@code idx}, the ones
   * the reduction indexes first (see {@link #storeReductionMajor}); null where that is the
   * row-major order already.
   */
  private static List<Integer> reductionMajorOrder(Stage local, List<dev.kernelgen.te.Expr> idx) {
    java.util.Set<dev.kernelgen.te.Var> reduceVars = new java.util.HashSet<>();
    for (IterVar r : local.reduceAxis()) {
      reduceVars.add(r.var());
    }
    dev.kernelgen.te.Var inner = local.axis(local.axis().size() - 1).var();
    List<Integer> first = new ArrayList<>();
    List<Integer> windows = new ArrayList<>();
    List<Integer> rest = new ArrayList<>();
    for (int d = 0; d < idx.size(); d++) {
      boolean reduced = false;
      boolean data = false;
      java.util.Set<dev.kernelgen.te.Var> vars = dev.kernelgen.te.FreeVars.of(idx.get(d));
      for (dev.kernelgen.te.Var v : vars) {
        reduced |= reduceVars.contains(v);
        data |= !reduceVars.contains(v);
      }
      // A window sliding along the output's innermost axis (x + dx, 2t + k) stays innermost:
      // neighbouring threads read it at neighbouring words.
      reduced &= !vars.contains(inner);
      // Dimensions of the reduction alone (a convolution's input channels) before windows over a
      // data axis (y + dy): threads that differ along that axis then read neighbouring words. An
      // NHWC input's tile stored [y][x][c] put threads of neighbouring pixels 64 words apart, in
      // one bank (the 3x3 conv over [1,56,56,64] 1.5x slower than its naive kernel on an H100).
      (!reduced ? rest : data ? windows : first).add(d);
    }
    first.addAll(windows);
    first.addAll(rest);
    for (int d = 0; d < first.size(); d++) {
      if (first.get(d) != d) {
        return first;
      }
    }
    return null;
  }

  /**
   * A block's tile of a shared stage: the index {@code local} reads it at, and per dimension the
   * span of that index over the tile ({@link #tileWidths}).
   */
  record Tile(List<dev.kernelgen.te.Expr> index, long[] widths) {
    /** The tile of {@code fetch}, a cache read of what {@code local} reads. */
    static Tile of(Schedule s, Stage fetch, Stage local, long[] range, int tileK) {
      List<List<dev.kernelgen.te.Expr>> reads = ComputeDag.reads(s, local, fetch.tensor());
      dev.kernelgen.diag.CompilerBug.check(
          !reads.isEmpty(), "%s does not read its shared tile %s", local.name(), fetch.name());
      return new Tile(reads.get(0), tileWidths(local, fetch.tensor(), reads.get(0), range, tileK));
    }
  }

  /**
   * Lays out a shared tile with the dimensions that the reduction indexes outermost: the threads of
   * a warp, which differ in their data axes, then read consecutive words at each reduction step
   * (dense's {@code W[j, k]} tile stored {@code [k][j]}), not words a row apart in one bank. The
   * rows of such a tile are padded ({@link #ROW_ALIGN}), since the fetch now writes down columns.
   */
  static void storeReductionMajor(Stage fetch, Stage local, Tile tile) {
    List<Integer> order = reductionMajorOrder(local, tile.index());
    if (order == null) {
      return;
    }
    fetch.reorderStorage(order.stream().map(fetch::axis).toArray(IterVar[]::new));
    int n = order.size();
    if (n >= 2 && padsRows(tile.widths()[order.get(n - 1)])) {
      fetch.storageAlign(fetch.axis(order.get(n - 2)), ROW_ALIGN.factor(), ROW_ALIGN.offset());
    }
  }

  /** The elements of a tile that one thread of the fetch loads together where it can. */
  static final int VECTOR = 4;

  /**
   * Spreads the loads of the shared tile {@code fetch} over the block's {@code threads}: its axes
   * fused, neighbouring threads on neighbouring elements (coalesced), and each thread loading
   * {@link #VECTOR} consecutive elements at once where every such group starts on a multiple of
   * {@link #VECTOR} in the tensor (the tile's innermost width and the tensor's last dimension both
   * a multiple of it: nvcc then issues one 128-bit load, the buffers being aligned by the runtime).
   */
  static void distribute(Stage fetch, Tile tile, long threads) {
    Tensor t = fetch.tensor();
    boolean vector =
        t.shape().get(t.ndim() - 1) instanceof dev.kernelgen.te.IntImm last
            && last.value() % VECTOR == 0
            && tile.widths()[tile.widths().length - 1] % VECTOR == 0;
    IterVar all = GpuTiling.fuseAll(fetch, fetch.axis());
    if (vector) {
      Stage.Split v = fetch.split(all, VECTOR);
      fetch.unroll(v.inner());
      all = v.outer();
    }
    Stage.Split sp = fetch.split(all, threads);
    fetch.bind(sp.inner(), dev.kernelgen.schedule.ThreadTag.THREAD_X);
  }
}
