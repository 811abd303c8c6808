package dev.kernelgen.topi;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fusion of library operators into as few loop nests (GPU kernels) as TVM's rules allow:
 *
 * <ol>
 *   <li>every injective stage (no reduction) that is not an output is inlined into its consumers;
 *   <li>a reduction whose only consumers are one output stage (through inlined stages) and other
 *       reductions fused into it becomes part of that output's loop nest: the output stage is the
 *       anchor, and the reduction is computed in {@code local} scope at the anchor's loop over the
 *       axes the reduction's value depends on, once per row of the anchor, not once per element;
 *   <li>what is left (reductions read by other reductions, reductions read through indices that no
 *       loop of the consumer fixes, such as a global sum) is computed at root: a kernel of its own.
 * </ol>
 *
 * <p>The anchor's <em>row axes</em> are its leading axes up to the last one used to index a fused
 * reduction (all of them for conv + bias + relu; the row for softmax). On a GPU they are fused and
 * bound to blockIdx.x and threadIdx.x ({@code threads} per block), the remaining axes loop inside
 * each thread. On the CPU the row axes run in parallel (batch and channel fused) and the innermost
 * axis of a stage without reduction is vectorized.
 */
public final class Fusion {
  private Fusion() {}

  /** What {@link #plan} decided for one schedule: each anchor's fused reductions and row axes. */
  public record Group(Stage anchor, List<Stage> reductions, int rowAxes) {}

  /**
   * Inlines the injective stages of {@code s} and returns the groups of stages that become one loop
   * nest each, anchors in producer-first order; schedules nothing else.
   */
  public static List<Group> plan(Schedule s) {
    for (Stage st : s.stages()) {
      if (!st.isPlaceholder() && !st.isOutput() && !st.hasReduction()) {
        st.computeInline();
      }
    }
    Map<Stage, List<Stage>> fusedInto = new LinkedHashMap<>();
    Map<Stage, Stage> anchorOf = new LinkedHashMap<>();
    List<Stage> stages = s.stages();
    // Consumers before producers, so that a reduction read by a fused reduction sees its anchor.
    for (int k = stages.size() - 1; k >= 0; k--) {
      Stage st = stages.get(k);
      if (st.isPlaceholder() || st.attachType() == AttachType.INLINE) {
        continue;
      }
      if (st.isOutput()) {
        anchorOf.put(st, st);
        fusedInto.put(st, new ArrayList<>());
        continue;
      }
      Stage anchor = null;
      boolean ok = true;
      for (Stage r : effectiveReaders(s, st)) {
        Stage a = anchorOf.get(r);
        if (a == null || (anchor != null && a != anchor) || (r != a && !r.hasReduction())) {
          ok = false;
          break;
        }
        anchor = a;
      }
      // The anchor's loops that fix this reduction's value: those indexing it, or indexing the
      // fused reductions that read it (softmax's partial sums are read only by the fused sum).
      List<Stage> withReaders = new ArrayList<>(List.of(st));
      if (anchor != null) {
        for (Stage r : fusedInto.get(anchor)) {
          if (consumes(s, r, st)) {
            withReaders.add(r);
          }
        }
      }
      if (ok && anchor != null && rowAxes(s, anchor, withReaders) > 0) {
        anchorOf.put(st, anchor);
        fusedInto.get(anchor).add(0, st);
      } else {
        anchorOf.put(st, st);
        fusedInto.put(st, new ArrayList<>());
      }
    }
    List<Group> groups = new ArrayList<>();
    for (Stage st : stages) {
      List<Stage> fused = fusedInto.get(st);
      if (fused != null) {
        int rows = fused.isEmpty() ? st.axis().size() : rowAxes(s, st, fused);
        groups.add(new Group(st, fused, rows));
      }
    }
    return groups;
  }

  /** The fused schedule of {@code outputs} for {@code target}, with the default knobs. */
  public static Schedule schedule(Target target, List<Tensor> outputs) {
    return schedule(target, outputs, 256);
  }

  /**
   * The fused schedule of {@code outputs} for {@code target}; {@code threads} is the GPU block
   * size.
   */
  public static Schedule schedule(Target target, List<Tensor> outputs, int threads) {
    Schedule s = Schedule.create(outputs);
    for (Group g : plan(s)) {
      switch (target) {
        case CUDA, OPENCL -> gpu(g, threads);
        case C -> cpu(g);
        case JAVA -> java(g);
      }
    }
    return s;
  }

  /**
   * The anchor's leading axes bound to GPU threads, its reductions computed locally at the
   * innermost of them; returns the thread loop.
   */
  public static IterVar gpu(Group g, int threads) {
    Stage st = g.anchor();
    List<IterVar> axes = st.axis();
    if (axes.isEmpty()) {
      return null;
    }
    int rows = Math.max(1, g.rowAxes());
    IterVar fused = axes.get(0);
    for (int d = 1; d < rows; d++) {
      fused = st.fuse(fused, axes.get(d));
    }
    Stage.Split sp = st.split(fused, threads);
    st.bind(sp.outer(), ThreadTag.BLOCK_X);
    st.bind(sp.inner(), ThreadTag.THREAD_X);
    for (Stage r : g.reductions()) {
      r.setScope("local");
      r.computeAt(st, sp.inner());
    }
    return sp.inner();
  }

  /** The anchor's row axes in parallel, its reductions at the innermost row axis. */
  public static void cpu(Group g) {
    Stage st = g.anchor();
    List<IterVar> axes = st.axis();
    if (axes.isEmpty()) {
      return;
    }
    int rows = Math.max(1, g.rowAxes());
    IterVar at = axes.get(rows - 1);
    IterVar par = rows >= 2 && axes.size() >= 3 ? st.fuse(axes.get(0), axes.get(1)) : axes.get(0);
    if (rows == 2 && axes.size() >= 3) {
      at = par;
    }
    st.parallel(par);
    for (Stage r : g.reductions()) {
      r.setScope("local");
      r.computeAt(st, at);
      vectorizeRowReduction(r);
    }
    vectorizeRowReduction(st);
    if (!st.hasReduction() && axes.size() >= 2 && rows < axes.size()) {
      st.vectorize(axes.get(axes.size() - 1));
    } else if (!st.hasReduction() && g.reductions().isEmpty() && axes.size() >= 2) {
      st.vectorize(axes.get(axes.size() - 1));
    }
  }

  /**
   * Vectorizes the innermost loop of {@code st} when it is a reduce axis of a sum, product, min or
   * max that is not short (a constant extent under {@value #MIN_VECTOR_REDUCTION}, such as a
   * pooling window, is left serial): the reduction then runs in vector lanes combined at the end.
   */
  static void vectorizeRowReduction(Stage st) {
    if (!st.hasReduction() || !(st.body() instanceof Reduce red)) {
      return;
    }
    IterVar inner = st.leafIterVars().get(st.leafIterVars().size() - 1);
    boolean longLoop =
        !(inner.dom().extent() instanceof IntImm e) || e.value() >= MIN_VECTOR_REDUCTION;
    if (inner.isReduce()
        && longLoop
        && List.of("sum", "prod", "min", "max").contains(red.combiner().name())) {
      st.vectorizeReduction(inner);
    }
  }

  /** The shortest constant reduction that {@link #vectorizeRowReduction} vectorizes. */
  static final int MIN_VECTOR_REDUCTION = 16;

  /** Java: loops as written, reductions computed at the innermost row axis. */
  public static void java(Group g) {
    Stage st = g.anchor();
    if (st.axis().isEmpty()) {
      return;
    }
    IterVar at = st.axis().get(Math.max(1, g.rowAxes()) - 1);
    for (Stage r : g.reductions()) {
      r.computeAt(st, at);
    }
  }

  /**
   * How many kernels {@code s} becomes on a GPU target: one per loop nest left at root after
   * lowering.
   */
  public static int kernelCount(Schedule s, List<Tensor> args, Target target) {
    return SplitHostDevice.split(Lower.lower(s, "count", args, target, null)).kernels().size();
  }

  /** Whether {@code consumer} reads {@code producer}, directly or through other stages. */
  private static boolean consumes(Schedule s, Stage consumer, Stage producer) {
    for (Stage r : s.readers(producer)) {
      if (r == consumer || consumes(s, consumer, r)) {
        return true;
      }
    }
    return false;
  }

  /** The stages that read {@code st}, looking through inlined stages to their readers. */
  static Set<Stage> effectiveReaders(Schedule s, Stage st) {
    Set<Stage> out = new java.util.LinkedHashSet<>();
    for (Stage r : s.readers(st)) {
      if (r.attachType() == AttachType.INLINE) {
        out.addAll(effectiveReaders(s, r));
      } else {
        out.add(r);
      }
    }
    return out;
  }

  /**
   * One more than the index of the last axis of {@code anchor} that the reads of the {@code
   * reductions} (directly or through inlined stages) depend on; 0 when they depend on none.
   */
  static int rowAxes(Schedule s, Stage anchor, List<Stage> reductions) {
    Set<Tensor> dependent = new HashSet<>();
    for (Stage r : reductions) {
      dependent.add(r.tensor());
    }
    // The anchor's body with the inlined stages substituted, as lowering will compute it: the
    // reductions' reads then carry the indices they are really read at.
    Expr body = expandInlined(s, anchor.body());
    Set<Var> used = new HashSet<>();
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        if (e instanceof TensorRead r && dependent.contains(r.tensor())) {
          for (Expr i : r.indices()) {
            used.addAll(FreeVars.of(i));
          }
        }
        super.visit(e);
      }
    }.visit(body);
    int last = 0;
    List<IterVar> axes = anchor.axis();
    for (int d = 0; d < axes.size(); d++) {
      if (used.contains(axes.get(d).var())) {
        last = d + 1;
      }
    }
    return last;
  }

  /** {@code body} with every read of an inlined stage replaced by that stage's body. */
  private static Expr expandInlined(Schedule s, Expr body) {
    return new ExprMutator() {
      @Override
      public Expr mutate(Expr e) {
        if (e instanceof TensorRead r
            && !(r.tensor().op() instanceof dev.kernelgen.te.PlaceholderOp)
            && s.stage(r.tensor()).attachType() == AttachType.INLINE) {
          Stage st = s.stage(r.tensor());
          Map<Var, Expr> sub = new java.util.HashMap<>();
          for (int d = 0; d < st.axis().size(); d++) {
            sub.put(st.axis().get(d).var(), mutate(r.indices().get(d)));
          }
          return mutate(Substitute.apply(st.body(), sub));
        }
        return super.mutate(e);
      }
    }.mutate(body);
  }
}
