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
 * so that no pick need be slower. On the CPU (C, Java) the unscheduled loops, serially. On a GPU
 * one thread per output element (blocks of {@value #THREADS}): injective stages inlined, the
 * output's reduction accumulated in a local register, and (one output) every other reduction
 * computed by that thread into local memory, as the loop nest of one element would.
 */
final class NaiveSchedule {
  private NaiveSchedule() {}

  static final int THREADS = 256;

  static Schedule of(Target target, List<Tensor> outputs) {
    Schedule s = Schedule.create(outputs);
    if (target == Target.C || target == Target.JAVA) {
      return s;
    }
    List<Stage> stages = List.copyOf(s.stages());
    for (Stage st : stages) {
      if (!st.isPlaceholder() && !st.isOutput() && !st.hasReduction()) {
        st.computeInline();
      }
    }
    IterVar thread = null;
    for (Stage st : stages) {
      if (st.isPlaceholder() || !(st.isOutput() || (outputs.size() > 1 && st.hasReduction()))) {
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
      thread = sp.inner();
    }
    if (outputs.size() == 1) {
      Stage out = s.stage(outputs.get(0));
      for (Stage st : stages) {
        if (!st.isPlaceholder() && !st.isOutput() && st.hasReduction()) {
          st.setScope("local");
          st.computeAt(out, thread);
        }
      }
    }
    return s;
  }
}
