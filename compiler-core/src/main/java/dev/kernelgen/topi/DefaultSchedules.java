package dev.kernelgen.topi;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.autosched.VectorUnit;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IterVar;
import java.util.ArrayList;
import java.util.List;

/**
 * The schedules an operator gets for a target that its spec does not schedule.
 *
 * <p>A matmul or conv2d (recognized by its tag) gets the library's template of {@link
 * OpSchedules#defaultSchedule} where it lowers, except a conv2d on C, whose generated schedule (the
 * direct convolution, or Winograd's F(2x2, 3x3) where it pays) was faster on every shape timed;
 * every other operator (and a template that cannot be built for its symbolic shape) gets the
 * schedule generated from its compute DAG by {@link dev.kernelgen.autosched.AutoScheduler}: its
 * rules' untuned pick, or the configured knobs of a tuning record.
 *
 * <p>The plain schedules below (every injective stage that is not an output inlined, each remaining
 * root stage one loop nest) were the default of operators with several outputs.
 *
 * <ul>
 *   <li>C: the outermost data axis of each root stage (batch and channel fused, when the stage has
 *       three or more axes) runs in parallel; the innermost axis of a stage without reduction is
 *       vectorized.
 *   <li>Java: loops as written.
 *   <li>CUDA and OpenCL: the data axes of each root stage are fused, split by knob {@code threads}
 *       (256 by default) and bound to blockIdx.x and threadIdx.x; reduce axes stay loops inside
 *       each thread.
 * </ul>
 */
public final class DefaultSchedules {
  private DefaultSchedules() {}

  /**
   * The default schedule of {@code op} for {@code target}: the library's template where the
   * operator is a matmul or conv2d (by tag) on C, CUDA or OpenCL and the template lowers at its
   * default knobs (a symbolic reduction extent can keep it from sizing its local buffers; on GPUs a
   * matmul only where it reads {@code B[k, j]}, not a dense layer's {@code W[j, k]}), else the
   * schedule generated from the compute DAG ({@link dev.kernelgen.autosched.AutoScheduler}) at its
   * untuned pick or at the configured knobs.
   */
  public static Schedule forTarget(Target target, OperatorDef op, Knobs knobs) {
    return forTarget(target, VectorUnit.AVX512, op, knobs);
  }

  /**
   * As above; a generated C schedule's untuned pick sized for {@code vectors} (an ISA level's
   * {@link VectorUnit}: the pick differs by level, the space does not). The C matmul template's
   * tiles are AVX-512's (8 rows of 64 floats: 32 registers): for a smaller unit the generated
   * schedule is taken instead (capped at x86-64-v3 on a Zen 4, matmul 1024 and 2048 ran 106-108
   * GFLOP/s by the template and 156-168 by AVX2's pick, the floor table's matmul and dense layer
   * 1.4x and 2.0x; at v4 the two are within 7% either way: bench/results/cpu-2026-12-07-f/).
   */
  public static Schedule forTarget(Target target, VectorUnit vectors, OperatorDef op, Knobs knobs) {
    if (!generatedConfiguration(knobs)
        && usesTemplate(target, op)
        && (target != Target.C || vectors.equals(VectorUnit.AVX512))) {
      return OpSchedules.defaultSchedule(target, op.output(), knobs);
    }
    return AutoScheduler.schedule(target, vectors, op.outputs(), knobs);
  }

  /**
   * Whether {@code knobs} are a configuration of the generated schedules (a tuning record of the
   * auto-scheduler's space, which always sets its {@code sketch} knob), so that they select the
   * generated schedule even where a template or a schedule method exists: {@code kernels:tune}
   * races the two, and the faster one's record wins.
   */
  public static boolean generatedConfiguration(Knobs knobs) {
    return knobs.configuredValues().containsKey(AutoScheduler.SKETCH);
  }

  /**
   * Whether {@link #forTarget} gives {@code op} a library template for {@code target} (a matmul, or
   * a conv2d off C, that lowers at the template's defaults, on GPUs within the limits every CUDA
   * device meets) rather than a generated schedule.
   */
  public static boolean usesTemplate(Target target, OperatorDef op) {
    return op.outputs().size() == 1 && hasTemplate(target, op);
  }

  /** Whether {@code op} has a library template for {@code target} that lowers. */
  private static boolean hasTemplate(Target target, OperatorDef op) {
    String tag = OpSchedules.anchorTag(op.output());
    if (target == Target.JAVA
        || !(tag.equals(OpSchedules.MATMUL) || tag.equals(OpSchedules.CONV2D_NCHW))) {
      return false;
    }
    if (target == Target.C && tag.equals(OpSchedules.CONV2D_NCHW)) {
      // The generated schedules beat the C template on every shape timed side by side: the
      // direct kernel alike on large planes and up to 4x faster on small ones, Winograd's taken
      // where it pays (bench/results/cpu-2026-12-07-c/).
      return false;
    }
    // A template schedules its anchor reduction and the injective stages around it; any other
    // reduction (an attention head's q k^T and softmax before its matmul with v) it would leave
    // unscheduled: on a GPU, one thread running the whole stage.
    long reductions =
        Schedule.create(op.outputs()).stages().stream().filter(Stage::hasReduction).count();
    if (reductions > 1) {
      return false;
    }
    boolean gpu = target == Target.CUDA || target == Target.OPENCL;
    if (gpu
        && tag.equals(OpSchedules.MATMUL)
        && !MatmulSchedules.readsBReductionMajor(OpSchedules.reductionOf(op.output()))) {
      return false; // a dense layer's W[j, k]: the GPU template's tiles assume B[k, j]
    }
    try {
      Schedule probe = OpSchedules.defaultSchedule(target, op.output(), Knobs.defaults());
      var f = dev.kernelgen.lower.Lower.lower(probe, "probe", op.args(), target, null);
      // A kernel past the limits every CUDA device meets (a large filter's shared tiles) could not
      // launch anywhere: the generated schedules, which keep within them, take its place.
      return !gpu || dev.kernelgen.tune.GpuLimits.cudaDefault().check(f) == null;
    } catch (dev.kernelgen.diag.UserError e) {
      return false;
    }
  }

  /** C: inline injective stages, parallel outer loop, vectorized inner loop. */
  public static Schedule cpu(OperatorDef op) {
    Schedule s = Schedule.create(op.outputs());
    for (Stage st : inlineInjective(s)) {
      List<IterVar> axes = st.axis();
      if (axes.isEmpty()) {
        continue;
      }
      IterVar outer = axes.size() >= 3 ? st.fuse(axes.get(0), axes.get(1)) : axes.get(0);
      st.parallel(outer);
      if (!st.hasReduction() && axes.size() >= 2) {
        st.vectorize(axes.get(axes.size() - 1));
      }
    }
    return s;
  }

  /** Java: inline injective stages. */
  public static Schedule java(OperatorDef op) {
    Schedule s = Schedule.create(op.outputs());
    inlineInjective(s);
    return s;
  }

  /** CUDA and OpenCL: one thread per output element of each root stage. */
  public static Schedule gpu(OperatorDef op, Knobs knobs) {
    int threads = knobs.knob("threads", 256, 128, 512, 64, 1024);
    Schedule s = Schedule.create(op.outputs());
    for (Stage st : inlineInjective(s)) {
      List<IterVar> axes = st.axis();
      if (axes.isEmpty()) {
        continue;
      }
      IterVar fused = axes.get(0);
      for (IterVar a : axes.subList(1, axes.size())) {
        fused = st.fuse(fused, a);
      }
      Stage.Split sp = st.split(fused, threads);
      st.bind(sp.outer(), ThreadTag.BLOCK_X);
      st.bind(sp.inner(), ThreadTag.THREAD_X);
    }
    return s;
  }

  /**
   * Inlines every computed stage that is neither an output nor a reduction; returns the stages left
   * at root (outputs and reductions), producers first.
   */
  public static List<Stage> inlineInjective(Schedule s) {
    List<Stage> roots = new ArrayList<>();
    for (Stage st : s.stages()) {
      if (st.isPlaceholder()) {
        continue;
      }
      if (!st.isOutput() && !st.hasReduction()) {
        st.computeInline();
      } else {
        roots.add(st);
      }
    }
    return roots;
  }
}
