package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Stage;

/**
 * One rule of sketch generation, as Ansor's derivation rules: it looks at one stage of the compute
 * DAG in the schedule being built and, where it applies, schedules that stage (and the stages it
 * takes along, such as an epilogue fused into a tile), marking them {@linkplain SketchState#done
 * done}. The tunable parameters of what it builds (tile sizes, thread counts, staging on or off)
 * are knobs asked through {@link SketchState#knob}, so that the rules' configuration space is an
 * ordinary {@link dev.kernelgen.tune.ConfigSpace}.
 *
 * <p>{@link AutoScheduler} runs the rules in list order, each over every stage not yet done,
 * consumers first. A user extends the list with rules of their own ({@link SketchRules#defaults} is
 * the list to start from).
 */
public interface SketchRule {
  /** A short name, for traces and messages. */
  String name();

  /** Whether the rule schedules {@code stage} (not yet done) in the schedule of {@code state}. */
  boolean applies(SketchState state, Stage stage);

  /** Schedules {@code stage} and marks what it scheduled done. */
  void apply(SketchState state, Stage stage);
}
