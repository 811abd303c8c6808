package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.IterVar;
import java.util.ArrayList;
import java.util.List;

/**
 * A long reduction into a small output on a CPU (a vector's sum or maximum, a dot product, the rows
 * of a matrix with few rows): Ansor's rfactor rule. With few outputs there is no output loop to run
 * in parallel or in vector lanes, and a serial reduction carries every addition in one dependency
 * chain. The innermost reduce axis is factored ({@link Schedule#rfactor}) into {@code parts x
 * LANES} partial results side by side: the parts run in parallel, each part's {@value #LANES} lanes
 * in a vector, and the output then combines the partial results.
 *
 * <p>Applies where the output has at most {@value #MAX_OUTPUTS} elements and the innermost reduce
 * axis is at least {@value #MIN_EXTENT} long (or symbolic), read contiguously. Knob {@code parts}:
 * the partial results per lane (8 by default; 1 keeps the reduction serial in lanes).
 */
final class RfactorReduction implements SketchRule {
  /** The most output elements the rule factors: beyond, the output loops give the parallelism. */
  static final long MAX_OUTPUTS = 4;

  /** The shortest constant reduce axis factored. */
  static final long MIN_EXTENT = 4096;

  @Override
  public String name() {
    return "rfactor";
  }

  @Override
  public boolean applies(SketchState state, Stage st) {
    if (state.gpu() || !st.hasReduction() || state.isDone(st) || !st.relations().isEmpty()) {
      return false;
    }
    if (st.axis().stream().anyMatch(iv -> ComputeDag.extent(iv) < 0)) {
      return false;
    }
    long outputs = outputs(st);
    IterVar k = st.reduceAxis(st.reduceAxis().size() - 1);
    long extent = ComputeDag.extent(k);
    return outputs <= MAX_OUTPUTS
        && (extent < 0 || extent >= MIN_EXTENT)
        && !ComputeDag.stridedAlong(state.schedule(), st, k.var());
  }

  @Override
  public void apply(SketchState state, Stage red) {
    Schedule s = state.schedule();
    int parts = state.knob(red, "parts", 8, 4, 16, 2);
    IterVar k = red.reduceAxis(red.reduceAxis().size() - 1);
    Stage st = s.stage(s.rfactorParts(red.tensor(), k, parts));
    // The outputs and the parts in one parallel loop, each task a contiguous chunk of one output's
    // reduction, in vector lanes.
    List<IterVar> axes = st.axis();
    List<IterVar> order = new ArrayList<>(axes);
    order.addAll(st.reduceAxis());
    st.reorder(order.toArray(IterVar[]::new));
    IterVar tasks = axes.get(0);
    for (int d = 1; d < axes.size(); d++) {
      tasks = st.fuse(tasks, axes.get(d));
    }
    st.parallel(tasks);
    RowReduction.vectorizeLongReduction(st);
    state.note(red, "cpu.tasks", parts * outputs(red));
    state.done(st);
    state.done(red);
  }

  private static long outputs(Stage st) {
    long n = 1;
    for (IterVar iv : st.axis()) {
      n *= Math.max(1, ComputeDag.extent(iv));
    }
    return n;
  }
}
