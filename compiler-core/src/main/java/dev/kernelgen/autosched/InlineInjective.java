package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Stage;

/**
 * Inlines an injective stage (no reduction, not an output) into its consumers, as Ansor's "always
 * inline" rule: padding, bias, activation cost nothing where they are read. Except where that would
 * recompute it: a stage that calls an intrinsic (exp, tanh, sqrt, ...) stays a stage of its own
 * where a reduction reads each of its elements for several outputs, and on CPUs where several
 * stages read it (softmax's {@code exp(x - max)}, read by the sum and by the quotient: {@link
 * RowReduction} then computes it once per row, or inlines it where a row does not fit). GPUs
 * recompute such a stage in each reader: their exp is cheap beside the memory it saves.
 */
final class InlineInjective implements SketchRule {
  @Override
  public String name() {
    return "inline_injective";
  }

  @Override
  public boolean applies(SketchState state, Stage st) {
    if (st.isOutput() || st.hasReduction()) {
      return false;
    }
    if (!ComputeDag.callsIntrinsic(st.body())) {
      return true;
    }
    java.util.Set<Stage> readers = ComputeDag.readers(state.schedule(), st);
    for (Stage r : readers) {
      if (r.hasReduction() && ComputeDag.reuses(state.schedule(), r, st.tensor())) {
        return false;
      }
    }
    return state.gpu() || readers.size() < 2;
  }

  @Override
  public void apply(SketchState state, Stage st) {
    st.computeInline();
    state.done(st);
  }
}
