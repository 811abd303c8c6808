package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An elementwise stage that reads an operand transposed (a transpose, a permute that moves the last
 * axis, a layout change such as NHWC to NCHW): the operand's contiguous axis is not the output's.
 * Written row by row, each vector of the output gathers one element from each of 16 rows of the
 * operand (on the CPU, rows a power of two apart that share L1's sets: a [4,1024,1024] transpose of
 * its last two axes took 8.2 ms so on a 2-core Zen 4, 4 GB/s); on a GPU each warp reads 32 rows.
 *
 * <p>In tiles of {@code tile x tile} (knob {@code tile}; 0: row by row) of the two axes (the
 * output's last, and the one the operand's last index moves with), the operand's tile copied along
 * its own rows (contiguous: vectorized on the CPU, coalesced on a GPU), at a pitch of {@code tile +
 * 1} (its columns in other cache sets, or shared-memory banks), then the output's rows written
 * whole from the copy. On the CPU each tile is a parallel task and its copy a local buffer: the
 * same transpose took 0.9-1.2 ms in tiles of 16, 1.5-2.3 ms of 32, 3.6-4.6 ms of 32 at no extra
 * pitch (by hand, the same machine). On a GPU each tile is a block of {@value #GPU_THREADS} threads
 * and its copy in shared memory, as CUDA's classic transpose.
 */
final class TransposeTiles {
  private TransposeTiles() {}

  /** A GPU tile's threads. */
  static final int GPU_THREADS = 256;

  /** The least constant extent of either tiled axis: below it the rows are short anyway. */
  static final int MIN_EXTENT = 16;

  /**
   * The operands {@code st} reads transposed, each with the position of the output axis its last
   * index moves with; empty where the rule does not apply (a reduction, symbolic or short axes, or
   * an operand read both ways).
   */
  static Map<Tensor, Integer> transposedReads(SketchState state, Stage st) {
    Map<Tensor, Integer> out = new LinkedHashMap<>();
    int n = st.axis().size();
    if (st.hasReduction() || n < 2 || ComputeDag.extent(st.axis(n - 1)) < MIN_EXTENT) {
      return out;
    }
    Var col = st.axis(n - 1).var();
    for (var e : ComputeDag.expandedReads(state.schedule(), st).entrySet()) {
      if (readers(state.schedule(), st, e.getKey()) == null) {
        continue;
      }
      Integer along = null;
      boolean all = true;
      for (List<Expr> idx : e.getValue()) {
        Integer a = transposedAlong(st, idx, col);
        if (a == null || (along != null && !along.equals(a))) {
          all = false;
          break;
        }
        along = a;
      }
      if (all && along != null && ComputeDag.extent(st.axis(along)) >= MIN_EXTENT) {
        out.put(e.getKey(), along);
      }
    }
    return out;
  }

  /**
   * The position of the output axis a read at {@code idx} is contiguous along, where that is not
   * the output's last axis {@code col} and {@code col} moves another index; else null.
   */
  private static Integer transposedAlong(Stage st, List<Expr> idx, Var col) {
    int m = idx.size();
    if (m < 2) {
      return null;
    }
    Expr last = idx.get(m - 1);
    if (FreeVars.uses(last, col)) {
      return null;
    }
    Integer along = null;
    for (int d = 0; d < st.axis().size() - 1; d++) {
      Var v = st.axis(d).var();
      if (FreeVars.uses(last, v)) {
        Long step = Simplifier.step(last, v);
        if (along != null || step == null || step != 1) {
          return null;
        }
        along = d;
      }
    }
    if (along == null) {
      return null;
    }
    boolean strided = false;
    for (int k = 0; k < m - 1; k++) {
      if (FreeVars.uses(idx.get(k), col)) {
        Long step = Simplifier.step(idx.get(k), col);
        if (step == null || step <= 0) {
          return null;
        }
        strided = true;
      }
    }
    return strided ? along : null;
  }

  /**
   * The stages whose own bodies read {@code t} for {@code st} alone, whose reads of {@code t} the
   * tile's copy replaces: {@code st} and the stages inlined into it only (a transpose of a relu);
   * null where there are none.
   */
  private static Tensor[] readers(Schedule s, Stage st, Tensor t) {
    List<Tensor> out = new ArrayList<>();
    if (ComputeDag.directReads(st).containsKey(t)) {
      out.add(st.tensor());
    }
    for (Stage r : s.readers(s.stage(t))) {
      if (r == st) {
        continue;
      }
      if (ComputeDag.isInlined(s, r.tensor())
          && ComputeDag.readers(s, r).equals(java.util.Set.of(st))) {
        out.add(r.tensor());
      }
    }
    return out.isEmpty() ? null : out.toArray(Tensor[]::new);
  }

  /**
   * Tiles {@code st} by {@code tile} along the output's last axis and the axis {@code reads}' first
   * operand is contiguous along, and copies each operand's tile to a local buffer per tile.
   */
  static void applyCpu(SketchState state, Stage st, Map<Tensor, Integer> reads, int tile) {
    List<IterVar> order = tile(st, reads, tile);
    IterVar task = GpuTiling.fuseAll(st, order.subList(0, order.size() - 2));
    st.parallel(task);
    boolean c = state.target() == Target.C;
    for (Stage copy : copies(state, st, reads, "local", task, c ? tile : 0)) {
      copy.vectorize(copy.axis(copy.axis().size() - 1));
    }
    st.vectorize(order.get(order.size() - 1));
  }

  /**
   * Tiles {@code st} as on the CPU, each tile a block of {@link #GPU_THREADS} threads, consecutive
   * threads along the output's rows; each operand's tile copied to shared memory by the same
   * threads, consecutive threads along the operand's rows.
   */
  static void applyGpu(SketchState state, Stage st, Map<Tensor, Integer> reads, int tile) {
    List<IterVar> order = tile(st, reads, tile);
    IterVar block = GpuTiling.fuseAll(st, order.subList(0, order.size() - 2));
    st.bind(block, ThreadTag.BLOCK_X);
    IterVar inner = st.fuse(order.get(order.size() - 2), order.get(order.size() - 1));
    Stage.Split threads = st.split(inner, GPU_THREADS);
    st.bind(threads.inner(), ThreadTag.THREAD_X);
    for (Stage copy : copies(state, st, reads, "shared", block, tile)) {
      Stage.Split ct = copy.split(GpuTiling.fuseAll(copy, copy.axis()), GPU_THREADS);
      copy.bind(ct.inner(), ThreadTag.THREAD_X);
    }
    state.note(st, "gpu.threads", GPU_THREADS);
  }

  /**
   * The copies, in memory {@code scope}, of the operands contiguous along the tiled axis (others,
   * contiguous along another axis, are read in place), each computed at {@code at} and marked done;
   * where {@code pitchTile} is not 0, at a row pitch of {@code pitchTile + 1}.
   */
  private static List<Stage> copies(
      SketchState state,
      Stage st,
      Map<Tensor, Integer> reads,
      String scope,
      IterVar at,
      int pitchTile) {
    Schedule s = state.schedule();
    int a = reads.values().iterator().next();
    List<Stage> out = new ArrayList<>();
    for (var e : reads.entrySet()) {
      if (e.getValue() != a) {
        continue;
      }
      Stage copy = s.stage(s.cacheRead(e.getKey(), scope, readers(s, st, e.getKey())));
      copy.computeAt(st, at);
      if (pitchTile > 0) {
        copy.storageAlign(copy.axis(copy.axis().size() - 2), pitchTile, 1);
      }
      state.done(copy);
      out.add(copy);
    }
    return out;
  }

  /**
   * Splits the output's last axis and the axis {@code reads}' first operand is contiguous along by
   * {@code tile}; returns the loops in order: the other axes, the two tiles' outer loops, their
   * inner loops (the operand's axis, then the output's last).
   */
  private static List<IterVar> tile(Stage st, Map<Tensor, Integer> reads, int tile) {
    int n = st.axis().size();
    List<IterVar> axes = new ArrayList<>(st.axis());
    int a = reads.values().iterator().next();
    Stage.Split rows = st.split(axes.get(a), tile);
    Stage.Split cols = st.split(axes.get(n - 1), tile);
    List<IterVar> order = new ArrayList<>();
    for (int d = 0; d < n - 1; d++) {
      if (d != a) {
        order.add(axes.get(d));
      }
    }
    order.add(rows.outer());
    order.add(cols.outer());
    order.add(rows.inner());
    order.add(cols.inner());
    st.reorder(order.toArray(IterVar[]::new));
    return order;
  }
}
