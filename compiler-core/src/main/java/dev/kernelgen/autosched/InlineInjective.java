package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Stage;

/**
 * Inlines an injective stage (no reduction, not an output) into its consumers, as Ansor's "always
 * inline" rule: padding, bias, activation cost nothing where they are read. Except where that would
 * recompute it: a stage that calls an intrinsic (exp, tanh, sqrt, ...) and is read by a reduction
 * that reads each of its elements for several outputs stays a stage of its own.
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
    for (Stage r : ComputeDag.readers(state.schedule(), st)) {
      if (r.hasReduction() && ComputeDag.reuses(state.schedule(), r, st.tensor())) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void apply(SketchState state, Stage st) {
    st.computeInline();
    state.done(st);
  }
}
