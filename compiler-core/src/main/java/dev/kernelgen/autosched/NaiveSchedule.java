package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.List;

/**
 * The floor: the naive loop nest of the compute definition itself, a sketch of the space of its own
 * so that no pick need be slower. On the CPU (C, Java) the unscheduled loops, serially; on a GPU
 * every injective stage that is not an output inlined and one thread per element of each stage left
 * (blocks of {@value #THREADS}), a reduction accumulated in a local register.
 */
final class NaiveSchedule {
  private NaiveSchedule() {}

  static final int THREADS = 256;

  static Schedule of(Target target, List<Tensor> outputs) {
    Schedule s = Schedule.create(outputs);
    if (target == Target.C || target == Target.JAVA) {
      return s;
    }
    for (Stage st : List.copyOf(s.stages())) {
      if (st.isPlaceholder()) {
        continue;
      }
      if (!st.isOutput() && !st.hasReduction()) {
        st.computeInline();
        continue;
      }
      Stage local = st.hasReduction() ? s.stage(s.cacheWrite(st.tensor(), "local")) : null;
      List<IterVar> axes = st.axis();
      IterVar fused = axes.get(0);
      for (IterVar a : axes.subList(1, axes.size())) {
        fused = st.fuse(fused, a);
      }
      Stage.Split sp = st.split(fused, THREADS);
      st.bind(sp.outer(), ThreadTag.BLOCK_X);
      st.bind(sp.inner(), ThreadTag.THREAD_X);
      if (local != null) {
        local.computeAt(st, sp.inner());
      }
    }
    return s;
  }
}
