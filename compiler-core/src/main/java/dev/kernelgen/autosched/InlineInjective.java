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
 *
 * <p>On GPUs a stage that normalises rows by reductions ({@link RowReduction}'s anchor: a softmax's
 * quotient) stays a stage of its own where a reduction reads it with reuse (attention's {@code
 * softmax(q k^T) v}): one kernel, a block per row, then computes the row's reductions and the row,
 * where inlined into the product it left the reductions to {@link RfactorReduction}, four kernels
 * whose combining threads each read 256 partial results one by one. (On CPUs the inlined form was
 * 2.3x faster: attention [1024, 64] 1.64 against 3.73 ms on 2 Zen 4 cores.)
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
    java.util.Set<Stage> readers = ComputeDag.readers(state.schedule(), st);
    if (state.gpu() && !RowReduction.group(state, st).isEmpty()) {
      for (Stage r : readers) {
        if (r.hasReduction() && ComputeDag.reuses(state.schedule(), r, st.tensor())) {
          return false;
        }
      }
    }
    if (!ComputeDag.callsIntrinsic(st.body())) {
      return true;
    }
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
