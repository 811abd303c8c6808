package dev.kernelgen.topi;

import dev.kernelgen.annotations.Target;
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
 * <p>An operator with one output gets {@link OpSchedules#defaultSchedule}: the library's schedules
 * for matmul and conv2d (recognized by their tags, with knobs), else the fusion rules of {@link
 * Fusion} (injective stages inlined; reductions read only by the output computed per thread or per
 * row inside the output's kernel).
 *
 * <p>Operators with several outputs get the plain schedules below: every injective stage that is
 * not an output is inlined into its consumers, and each remaining (root) stage gets one loop nest
 * of its own.
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

  /** The default schedule of {@code op} for {@code target}. */
  public static Schedule forTarget(Target target, OperatorDef op, Knobs knobs) {
    if (op.outputs().size() == 1) {
      return OpSchedules.defaultSchedule(target, op.output(), knobs);
    }
    return switch (target) {
      case C -> cpu(op);
      case JAVA -> java(op);
      case CUDA, OPENCL -> gpu(op, knobs);
    };
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
