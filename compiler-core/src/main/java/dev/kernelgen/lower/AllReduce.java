package dev.kernelgen.lower;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Range;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.ProducerRealize;
import dev.kernelgen.tir.ProducerStore;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import java.util.ArrayList;
import java.util.List;

/**
 * The second half of a cross-thread reduction ({@link dev.kernelgen.schedule.CrossThread}): after
 * each thread has accumulated its partial result in its own copy of the stage, the block combines
 * them through a shared array of one slot per thread, as a tree ({@code red[t] = red[t] (+) red[t +
 * s]} for {@code t < s}, halving {@code s}; a first step folds the slots beyond the largest power
 * of two when the thread count is not one), and every thread reads the total back into its copy.
 * The steps are sequential statements over the same shared array, so {@link InsertBarriers} puts a
 * barrier between each two; they run in every thread of the block, with the stage's data loops
 * (uniform across threads) around them.
 *
 * <p>Where the consumer spreads several rows over another thread index of the block ({@code
 * threadIdx.y}: a few threads per row, several rows per block, as for softmax over rows of 16), the
 * array has a row of slots per such thread, and each row of threads combines its own.
 */
final class AllReduce {
  private AllReduce() {}

  /**
   * The all-reduce of stage {@code s} (body {@code r}, element {@code index} in terms of its loop
   * variables) over its thread-bound reduce leaf {@code kt}.
   */
  static Stmt of(
      Stage s, Reduce r, List<Expr> index, IterVar kt, InferBounds.Bounds b, List<IterVar> leaves) {
    Expr ext = b.extent(kt);
    UserError.check(
        ext instanceof IntImm,
        "cross-thread reduction '%s': its thread-bound reduce axis '%s' has extent %s; it needs a"
            + " constant thread count (split the reduce axis by a constant factor first)",
        s.name(),
        kt.name(),
        ext.show());
    int threads = (int) ((IntImm) ext).value();
    String tag = s.attr(kt).threadTag();
    checkSameThreads(s, kt, tag, threads, b);
    Var t = b.loopVar(kt);
    // The consumer's other thread indices (rows of the block): a row of slots for each.
    List<Expr> rowIndex = new ArrayList<>();
    List<Range> ranges = new ArrayList<>();
    List<Long> shape = new ArrayList<>();
    for (IterVar other : otherThreads(s, tag)) {
      Expr e = b.extent(other);
      UserError.check(
          e instanceof IntImm,
          "cross-thread reduction '%s': its consumer's thread index %s (loop '%s') has extent %s;"
              + " the rows of a block need a constant thread count",
          s.name(),
          s.attachStage().attr(other).threadTag(),
          other.name(),
          e.show());
      rowIndex.add(b.loopVar(other));
      ranges.add(Range.of(0, ((IntImm) e).value()));
      shape.add(((IntImm) e).value());
    }
    shape.add((long) threads);
    ranges.add(Range.of(0, threads));
    Tensor red = TE.placeholder(s.name() + "_red", s.tensor().dtype(), shape.toArray());
    // A step may wait on a warp barrier only where each row of threads lies within one warp: the
    // reduction's threads are the block's innermost index, a warp a whole number of rows or a row
    // a whole number of warps.
    boolean rowsInWarps =
        rowIndex.isEmpty()
            || tag.equals(ThreadTag.THREAD_X)
                && (threads % ThreadTag.WARP == 0 || ThreadTag.WARP % threads == 0);
    List<Stmt> steps = new ArrayList<>();
    steps.add(thread(t, threads, tag, new ProducerStore(red, at(rowIndex, t), read(s, index))));
    int p = Integer.highestOneBit(threads);
    if (p != threads) {
      addStep(steps, step(r, red, rowIndex, t, threads, tag, p, threads - p), threads, rowsInWarps);
    }
    for (int half = p / 2; half >= 1; half /= 2) {
      addStep(steps, step(r, red, rowIndex, t, threads, tag, half, half), 2 * half, rowsInWarps);
    }
    Expr total = TensorRead.of(red, at(rowIndex, IntImm.like(t, 0)));
    steps.add(thread(t, threads, tag, new ProducerStore(s.tensor(), index, total)));
    Stmt stmt = new ProducerRealize(red, ranges, MemoryScope.SHARED, Seq.of(steps));
    for (int k = leaves.size() - 1; k >= 0; k--) {
      IterVar leaf = leaves.get(k);
      if (!leaf.isReduce()) {
        stmt = For.serial(b.loopVar(leaf), IntImm.like(b.extent(leaf), 0), b.extent(leaf), stmt);
      }
    }
    return stmt;
  }

  /**
   * Adds a step that reads the slots below {@code reads}. Slot {@code t} is only written by thread
   * {@code t}, so where every slot read is below {@value ThreadTag#WARP}, all the writes it waits
   * for were made by the first warp: a warp barrier orders them ({@code __syncwarp} on CUDA, where
   * a block barrier would hold every warp of the block); otherwise {@link InsertBarriers} puts a
   * block barrier before it.
   */
  private static void addStep(List<Stmt> steps, Stmt step, int reads, boolean rowsInWarps) {
    if (reads <= ThreadTag.WARP && rowsInWarps) {
      steps.add(Barrier.warp());
    }
    steps.add(step);
  }

  /**
   * Every thread of the block takes part in the all-reduce (its barriers are the block's), so the
   * reduction's thread count must be the one its consumer's loop on the same thread index runs.
   */
  private static void checkSameThreads(
      Stage s, IterVar kt, String tag, int threads, InferBounds.Bounds b) {
    Stage parent = s.attachStage();
    for (IterVar leaf : parent.leafIterVars()) {
      if (tag.equals(parent.attr(leaf).threadTag())) {
        Expr e = b.extent(leaf);
        UserError.check(
            e instanceof IntImm c && c.value() == threads,
            "cross-thread reduction '%s' spreads reduce axis '%s' over %d threads of %s, but its"
                + " consumer '%s' runs %s on it (loop '%s'): every thread of the block takes part"
                + " in the reduction, so split both by the same factor",
            s.name(),
            kt.name(),
            threads,
            tag,
            parent.name(),
            e instanceof IntImm c ? String.valueOf(c.value()) : e.show(),
            leaf.name());
      }
      if (leaf == s.attachIterVar()) {
        return;
      }
    }
  }

  /**
   * The leaves of the consumer, down to where {@code s} is computed, bound to a thread index other
   * than the reduction's {@code tag}.
   */
  private static List<IterVar> otherThreads(Stage s, String tag) {
    List<IterVar> out = new ArrayList<>();
    Stage parent = s.attachStage();
    for (IterVar leaf : parent.leafIterVars()) {
      String other = parent.attr(leaf).threadTag();
      if (other != null && other.startsWith("threadIdx.") && !other.equals(tag)) {
        out.add(leaf);
      }
      if (leaf == s.attachIterVar()) {
        break;
      }
    }
    return out;
  }

  /** The slot of thread {@code t} in the row {@code rowIndex}. */
  private static List<Expr> at(List<Expr> rowIndex, Expr t) {
    List<Expr> out = new ArrayList<>(rowIndex);
    out.add(t);
    return out;
  }

  /** {@code red[.., t] = red[.., t] (+) red[.., t + stride]} for the threads {@code t < active}. */
  private static Stmt step(
      Reduce r,
      Tensor red,
      List<Expr> rowIndex,
      Var t,
      int threads,
      String tag,
      int stride,
      int active) {
    Expr other = TensorRead.of(red, at(rowIndex, t.add(IntImm.like(t, stride))));
    Expr mine = TensorRead.of(red, at(rowIndex, t));
    Stmt store = new ProducerStore(red, at(rowIndex, t), r.combiner().apply(mine, other));
    return thread(t, threads, tag, IfThenElse.of(t.lt(IntImm.like(t, active)), store));
  }

  private static Expr read(Stage s, List<Expr> index) {
    return TensorRead.of(s.tensor(), index);
  }

  private static Stmt thread(Var t, int threads, String tag, Stmt body) {
    return new For(
        t,
        IntImm.like(t, 0),
        IntImm.like(t, threads),
        ForKind.THREAD_BINDING,
        tag,
        List.of(),
        body);
  }
}
