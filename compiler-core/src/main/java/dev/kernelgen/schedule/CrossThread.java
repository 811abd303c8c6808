package dev.kernelgen.schedule;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.tir.ForKind;
import java.util.List;

/**
 * Cross-thread reductions, as TVM has them: a reduce axis (typically the inner part of a split)
 * bound to {@code threadIdx.*}. Each thread of the block accumulates its share of the reduction in
 * its own copy of the stage, then the block combines the partial results (an all-reduce through
 * shared memory) so that every thread holds the whole result. The consumer's loops over the row,
 * bound to the same threads, read it.
 *
 * <p>The all-reduce reassociates the reduction, so only the built-in commutative reducers (sum,
 * product, min, max) are accepted. The stage must be in {@code local} scope and computed inside a
 * loop of its consumer bound to the same thread index ({@link #checkPlacement}), so that the whole
 * block runs it together; on targets without GPU threads it is an error.
 */
public final class CrossThread {
  private CrossThread() {}

  /** The reducers whose partial results may be combined in any order. */
  public static final List<String> COMMUTATIVE = List.of("sum", "prod", "min", "max");

  /** Checks {@code bind(iv, tag)} of reduce axis {@code iv} of {@code st}. */
  static void checkBind(Stage st, IterVar iv, String tag) {
    UserError.check(
        tag.startsWith("threadIdx."),
        "bind of reduce axis '%s' of stage '%s' to %s: a reduce axis can only be bound to a thread"
            + " index (threadIdx.x, .y, .z), which makes it a cross-thread reduction",
        iv.name(),
        st.name(),
        tag);
    String reducer = st.body() instanceof Reduce r ? r.combiner().name() : "";
    UserError.check(
        COMMUTATIVE.contains(reducer),
        "bind of reduce axis '%s' of stage '%s' to %s: its reducer '%s' is not sum, prod, min or"
            + " max, whose partial results the threads can combine in any order",
        iv.name(),
        st.name(),
        tag,
        reducer);
    for (IterVar other : st.leafIterVars()) {
      Stage.IterVarAttr a = st.attr(other);
      UserError.check(
          !(other.isReduce() && a.kind() == ForKind.THREAD_BINDING),
          "bind of reduce axis '%s' of stage '%s' to %s: reduce axis '%s' is bound to %s already;"
              + " a cross-thread reduction spreads one reduce axis over the threads (fuse them"
              + " first)",
          iv.name(),
          st.name(),
          tag,
          other.name(),
          a.threadTag());
    }
  }

  /** The reduce leaf of {@code st} bound to a thread index, or null: not a cross-thread stage. */
  public static IterVar threadReduceLeaf(Stage st) {
    for (IterVar leaf : st.leafIterVars()) {
      if (leaf.isReduce() && st.attr(leaf).kind() == ForKind.THREAD_BINDING) {
        return leaf;
      }
    }
    return null;
  }

  /**
   * Checks where cross-thread stage {@code st} is computed, at lowering for a target with ({@code
   * gpu}) or without GPU threads.
   */
  public static void checkPlacement(Stage st, boolean gpu, String target) {
    IterVar kt = threadReduceLeaf(st);
    if (kt == null) {
      return;
    }
    String tag = st.attr(kt).threadTag();
    UserError.check(
        gpu,
        "stage '%s' binds reduce axis '%s' to %s, a cross-thread reduction, but target %s has no"
            + " GPU threads; schedule it for CUDA or OpenCL, or leave the axis unbound",
        st.name(),
        kt.name(),
        tag,
        target);
    UserError.check(
        st.scope() == dev.kernelgen.te.MemoryScope.LOCAL,
        "cross-thread reduction '%s' (reduce axis '%s' bound to %s) must be in local scope, so that"
            + " every thread holds the result; it is in %s scope (set_scope local)",
        st.name(),
        kt.name(),
        tag,
        st.scope());
    boolean inside = false;
    if (st.attachType() == AttachType.SCOPE) {
      Stage parent = st.attachStage();
      for (IterVar leaf : parent.leafIterVars()) {
        inside |= tag.equals(parent.attr(leaf).threadTag());
        if (leaf == st.attachIterVar()) {
          break;
        }
      }
    }
    UserError.check(
        inside,
        "cross-thread reduction '%s' (reduce axis '%s' bound to %s) must be computed at a loop of"
            + " its consumer bound to %s, or inside one, so that the block's threads run it"
            + " together; compute_at it there",
        st.name(),
        kt.name(),
        tag,
        tag);
    for (IterVar leaf : st.leafIterVars()) {
      String t = st.attr(leaf).threadTag();
      UserError.check(
          leaf == kt || t == null,
          "cross-thread reduction '%s': its axis '%s' is bound to %s; only the reduce axis '%s'"
              + " may be bound to a thread index",
          st.name(),
          leaf.name(),
          t,
          kt.name());
    }
  }
}
