package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Reduce;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Row reductions fused into the elementwise stage that reads them (softmax, layer norm, a mean
 * subtracted from its rows): the anchor is a root stage without reduction that reads reductions at
 * its <em>row axes</em> only (each index one of its axes or a constant, some axis missing), and the
 * group is those reductions plus the reductions only they read without reuse. The anchor's loops
 * are reordered row axes first; the group's reductions are computed in {@code local} scope at the
 * innermost row loop, once per row, so that the whole normalisation is one loop nest (one kernel)
 * and no reduction is recomputed per element. An injective stage that {@link InlineInjective} kept
 * because several stages of the group read it (softmax's {@code exp(x - max)}) joins the group:
 * computed once per row into a row buffer, where its row has a constant length of at most {@value
 * #MAX_ROW_BUFFER} elements, else inlined into its readers.
 *
 * <ul>
 *   <li>CPU: the row loops (two outer ones fused) run in parallel; the anchor's innermost loop is
 *       vectorized; a long sum, product, min or max runs in vector lanes.
 *   <li>GPU ({@link GpuRowReduction}): a thread per row, knob {@code rows_per_block} rows per
 *       block; a few threads per row (2 to 16), the rows of a block on {@code threadIdx.y}; or a
 *       block per row; the threads of a row share it and each reduction of the group (cross-thread
 *       reductions), by knob {@code threads_per_row}.
 * </ul>
 */
final class RowReduction implements SketchRule {
  /** The shortest constant reduction vectorized in lanes (a pooling window stays serial). */
  static final int MIN_VECTOR_REDUCTION = 16;

  /** The longest row an injective member of a group is buffered for: 32 KB of float32, in L1. */
  static final long MAX_ROW_BUFFER = 8192;

  @Override
  public String name() {
    return "row_reduction";
  }

  @Override
  public boolean applies(SketchState state, Stage st) {
    if (st.hasReduction() || group(state, st).isEmpty()) {
      return false;
    }
    Set<Integer> rows = rows(state, st);
    return rows != null && (state.gpu() || !rows.contains(innermost(st)));
  }

  /**
   * The anchor's innermost axis of more than one element, whose elements are adjacent in memory. On
   * CPUs a group whose rows run along it (a column's mean subtracted from its column, a norm over
   * the channels of NCHW) would put the strided axis innermost, vectorized: a [4096, 1024] column
   * centring ran 50 ms that way against 3.8 ms for its naive loops on a 2-core Zen 4. Its
   * reductions are then tiled as stages of their own, vectorized along the contiguous axis. (On
   * GPUs a thread per row reads such rows coalesced across threads.)
   */
  private static int innermost(Stage anchor) {
    for (int d = anchor.axis().size() - 1; d >= 0; d--) {
      if (!ComputeDag.isOne(anchor.axis(d))) {
        return d;
      }
    }
    return -1;
  }

  @Override
  public void apply(SketchState state, Stage anchor) {
    List<Stage> group = group(state, anchor);
    Set<Integer> rows = rows(state, anchor);
    List<IterVar> axes = anchor.axis();
    List<IterVar> rowAxes = new ArrayList<>();
    List<IterVar> order = new ArrayList<>();
    for (int d = 0; d < axes.size(); d++) {
      if (rows.contains(d)) {
        rowAxes.add(axes.get(d));
      }
    }
    order.addAll(rowAxes);
    for (int d = 0; d < axes.size(); d++) {
      if (!rows.contains(d)) {
        order.add(axes.get(d));
      }
    }
    if (rowAxes.isEmpty()) {
      return;
    }
    anchor.reorder(order.toArray(IterVar[]::new));
    IterVar at;
    GpuRowReduction.Placement gpu = null;
    if (state.gpu()) {
      gpu =
          GpuRowReduction.anchor(
              state, anchor, rowAxes, order.subList(rowAxes.size(), order.size()));
      at = gpu.at();
    } else {
      IterVar par =
          rowAxes.size() >= 2 ? anchor.fuse(rowAxes.get(0), rowAxes.get(1)) : rowAxes.get(0);
      anchor.parallel(par);
      at = rowAxes.size() <= 2 ? par : rowAxes.get(rowAxes.size() - 1);
      if (order.size() > rowAxes.size()) {
        anchor.vectorize(order.get(order.size() - 1));
      }
    }
    List<Stage> members = new ArrayList<>();
    for (Stage r : group) {
      if (!r.hasReduction() && rowElements(r, rows) > MAX_ROW_BUFFER) {
        r.computeInline();
        state.done(r);
      } else {
        members.add(r);
      }
    }
    group = members;
    for (Stage r : group) {
      r.setScope("local");
      r.computeAt(anchor, at);
      if (!state.gpu()) {
        if (r.hasReduction()) {
          vectorizeLongReduction(r);
        } else {
          r.vectorize(r.axis(r.axis().size() - 1));
        }
      }
      state.done(r);
    }
    if (gpu != null) {
      GpuRowReduction.reductions(state, anchor, group, gpu, gpu.threads());
    }
    state.note(anchor, "row_groups", 1);
    state.done(anchor);
  }

  /**
   * The stages fused into {@code anchor}, producers first; empty when there are none: the
   * reductions it reads at its row axes and those only they read without reuse, and the injective
   * stages read only by them and by the anchor, elementwise.
   */
  static List<Stage> group(SketchState state, Stage anchor) {
    Schedule s = state.schedule();
    List<Stage> group = new ArrayList<>();
    boolean grew = true;
    while (grew) {
      grew = false;
      List<Stage> stages = s.stages();
      for (int k = stages.size() - 1; k >= 0; k--) {
        Stage r = stages.get(k);
        if (r.isPlaceholder() || r.isOutput() || state.isDone(r) || group.contains(r)) {
          continue;
        }
        if (r.hasReduction()
            ? joinsAsReduction(s, anchor, group, r, state.gpu())
            : joinsAsRow(s, anchor, group, r)) {
          group.add(r);
          grew = true;
        }
      }
    }
    List<Stage> order = new ArrayList<>();
    for (Stage st : s.stages()) {
      if (group.contains(st)) {
        order.add(st);
      }
    }
    return order;
  }

  private static boolean joinsAsReduction(
      Schedule s, Stage anchor, List<Stage> group, Stage r, boolean gpu) {
    Set<Stage> readers = ComputeDag.readers(s, r);
    boolean ok = !readers.isEmpty();
    for (Stage c : readers) {
      if (c == anchor || group.contains(c) && !c.hasReduction()) {
        // Read per row (an injective member is computed per row, like the anchor). On GPUs a
        // reduction read at every axis is a stage of its own (softmax(q k^T): the product is not
        // computed per row of the softmax, and with it in the group no axis was left to be the
        // row). On CPUs that form was 2.3x slower for attention [1024, 64] (3.7 against 1.6 ms on
        // 2 Zen 4 cores; the product's tiling drawn with it was another), so it is not taken there.
        Set<Integer> rows = ComputeDag.rowAxes(s, c, r.tensor());
        ok &= gpu ? missesAnAxis(c, rows) : rows != null;
      } else {
        ok &= group.contains(c) && !ComputeDag.reuses(s, c, r.tensor());
      }
    }
    return ok;
  }

  /** Whether {@code rows} are row axes of {@code st}: not null, some axis of more than one left. */
  private static boolean missesAnAxis(Stage st, Set<Integer> rows) {
    if (rows == null) {
      return false;
    }
    for (int d = 0; d < st.axis().size(); d++) {
      if (!rows.contains(d) && !ComputeDag.isOne(st.axis(d))) {
        return true;
      }
    }
    return false;
  }

  /** An injective stage that a reduction of the group and the anchor (elementwise) read. */
  private static boolean joinsAsRow(Schedule s, Stage anchor, List<Stage> group, Stage r) {
    if (r.attachType() == dev.kernelgen.schedule.AttachType.INLINE) {
      return false;
    }
    Set<Stage> readers = ComputeDag.readers(s, r);
    boolean byGroup = false;
    for (Stage c : readers) {
      if (c == anchor) {
        if (!ComputeDag.readsElementwise(s, anchor, r.tensor())) {
          return false;
        }
      } else if (group.contains(c) && c.hasReduction()) {
        byGroup = true;
      } else {
        return false;
      }
    }
    return byGroup;
  }

  /** The elements of an injective member per row: its extents off the row axes (-1: symbolic). */
  private static long rowElements(Stage st, Set<Integer> rows) {
    long n = 1;
    for (int d = 0; d < st.axis().size(); d++) {
      if (!rows.contains(d)) {
        long e = ComputeDag.extent(st.axis(d));
        if (e <= 0) {
          return Long.MAX_VALUE;
        }
        n *= e;
      }
    }
    return n;
  }

  /** The anchor's row axes (positions) over the group it reads directly; null: not a row group. */
  private static Set<Integer> rows(SketchState state, Stage anchor) {
    Schedule s = state.schedule();
    Set<Integer> used = new TreeSet<>();
    boolean any = false;
    for (Stage r : group(state, anchor)) {
      if (!r.hasReduction()) {
        continue;
      }
      Set<Integer> u = ComputeDag.rowAxes(s, anchor, r.tensor());
      if (u != null) {
        used.addAll(u);
        any = true;
      }
    }
    if (!any) {
      return null;
    }
    for (int d = 0; d < anchor.axis().size(); d++) {
      if (!used.contains(d) && !ComputeDag.isOne(anchor.axis(d))) {
        return used;
      }
    }
    return null;
  }

  /**
   * A long sum, product, min or max over the innermost reduce axis, in vector lanes. Short
   * innermost reduce axes that every read walks as one contiguous run (a global average pool's 7x7
   * or 14x14 plane) are fused into one first: a reduction of 14 was a scalar chain per output
   * ([8,256,14,14] 120 us, 2-core Zen 4).
   */
  static void vectorizeLongReduction(Stage st) {
    if (!(st.body() instanceof Reduce red)) {
      return;
    }
    List<IterVar> leaves = st.leafIterVars();
    IterVar inner = leaves.get(leaves.size() - 1);
    long extent = constantExtent(inner);
    if (inner.isReduce() && extent > 0 && extent < MIN_VECTOR_REDUCTION && leaves.size() >= 2) {
      IterVar outer = leaves.get(leaves.size() - 2);
      long outerExtent = constantExtent(outer);
      if (outer.isReduce() && outerExtent > 0 && contiguous(st, outer, inner)) {
        inner = st.fuse(outer, inner);
        extent *= outerExtent;
      }
    }
    boolean longLoop = extent <= 0 || extent >= MIN_VECTOR_REDUCTION;
    if (inner.isReduce()
        && longLoop
        && List.of("sum", "prod", "min", "max").contains(red.combiner().name())) {
      st.vectorizeReduction(inner);
    }
  }

  /** The constant extent of an axis of the stage's own, or -1. */
  private static long constantExtent(IterVar iv) {
    return iv.dom() != null && iv.dom().extent() instanceof IntImm e ? e.value() : -1;
  }

  /**
   * Whether every read of {@code st} moves by one element with {@code inner} and by {@code inner}'s
   * extent with {@code outer} (both original reduce axes, the tensors of constant shape): the two
   * loops walk one contiguous run, as one loop would.
   */
  static boolean contiguous(Stage st, IterVar outer, IterVar inner) {
    if (!st.reduceAxis().contains(outer)
        || !st.reduceAxis().contains(inner)
        || !(inner.dom().extent() instanceof IntImm e)) {
      return false;
    }
    var reads = ComputeDag.directReads(st);
    if (reads.isEmpty()) {
      return false;
    }
    for (var r : reads.entrySet()) {
      List<dev.kernelgen.te.Expr> shape = r.getKey().shape();
      for (List<dev.kernelgen.te.Expr> idx : r.getValue()) {
        dev.kernelgen.te.Expr flat = null;
        for (int d = 0; d < idx.size(); d++) {
          if (!(dev.kernelgen.arith.Simplifier.simplify(shape.get(d)) instanceof IntImm dim)) {
            return false;
          }
          flat = flat == null ? idx.get(d) : flat.mul(dim).add(idx.get(d));
        }
        Long alongInner = dev.kernelgen.arith.Simplifier.step(flat, inner.var());
        Long alongOuter = dev.kernelgen.arith.Simplifier.step(flat, outer.var());
        if (alongInner == null
            || alongOuter == null
            || alongInner != 1
            || alongOuter != e.value()) {
          return false;
        }
      }
    }
    return true;
  }
}
