package dev.kernelgen.autosched;

import java.util.List;

/** The default rule list, in the order {@link AutoScheduler} runs it. */
public final class SketchRules {
  private SketchRules() {}

  /**
   * Pad inputs that windows read through bounds selects (CPUs); inline injective stages; fuse row
   * reductions into the stage that normalises with them; factor long reductions into a small output
   * (CPU); tile the remaining reductions with their epilogues; on C compute large producers per
   * batch element of their reader; schedule what is left elementwise.
   */
  public static List<SketchRule> defaults() {
    return List.of(
        new PadWindowReads(),
        new InlineInjective(),
        new RowReduction(),
        new RfactorReduction(),
        new MultiLevelTiling(),
        new BatchSlices(),
        new ElementwiseRoot());
  }
}
