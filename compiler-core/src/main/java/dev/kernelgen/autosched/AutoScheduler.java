package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Schedules generated from the compute DAG: a function (operator, target, knobs) to {@link
 * Schedule}, like a hand template, whose knobs form a {@link ConfigSpace} that the tuner searches.
 *
 * <p>Knob {@value #SKETCH} picks the sketch: 0 is what the {@link SketchRule}s derive, 1 is the
 * {@linkplain NaiveSchedule naive floor}. Every knob is in the space whatever the sketch, so that
 * the space is the same for every configuration; the naive sketch reads none of the rules' knobs
 * ({@link SketchState#declareOnly}), so a search measures it once.
 */
public final class AutoScheduler {
  private AutoScheduler() {}

  /** The knob that picks the sketch: 0 the rules' sketch, 1 the naive floor. */
  public static final String SKETCH = "sketch";

  /** The rules' sketch. */
  public static final int RULES = 0;

  /** The naive floor. */
  public static final int NAIVE = 1;

  /**
   * The rules' sketch of the DAG rewritten by Winograd's F(2x2, 3x3) in place of its direct 3x3
   * convolutions ({@link WinogradSketch}): offered where it has some, on every target but Java.
   */
  public static final int WINOGRAD = 2;

  /** The generated schedule of {@code outputs} for {@code target}, with the default rules. */
  public static Schedule generate(Target target, List<Tensor> outputs, Knobs knobs) {
    return generate(target, outputs, knobs, SketchRules.defaults(), Map.of());
  }

  /**
   * The schedule that {@code rules} derive for {@code outputs}, each knob taking its configured
   * value, else its {@code preferred} value, else its first choice.
   */
  public static Schedule generate(
      Target target,
      List<Tensor> outputs,
      Knobs knobs,
      List<SketchRule> rules,
      Map<String, Integer> preferred) {
    return generate(target, VectorUnit.AVX512, outputs, knobs, rules, preferred);
  }

  /** As above, C's tiles sized for {@code vectors}. */
  public static Schedule generate(
      Target target,
      VectorUnit vectors,
      List<Tensor> outputs,
      Knobs knobs,
      List<SketchRule> rules,
      Map<String, Integer> preferred) {
    return build(target, vectors, outputs, knobs, rules, preferred, true).schedule();
  }

  /** The configuration space of the generated schedules of {@code outputs}. */
  public static ConfigSpace space(Target target, List<Tensor> outputs) {
    Knobs k = Knobs.defaults();
    generate(target, outputs, k);
    return new ConfigSpace(k.space());
  }

  /**
   * What {@code generate} builds for an operator without a tuning record: the rules' schedule at
   * the {@linkplain #untunedConfig untuned pick}, unless {@code knobs} are configured (a tuning
   * record), which then take their values.
   */
  public static Schedule schedule(Target target, List<Tensor> outputs, Knobs knobs) {
    return schedule(target, VectorUnit.AVX512, outputs, knobs);
  }

  /** As above, C's tiles sized for {@code vectors} (an ISA level's: {@link VectorUnit}). */
  public static Schedule schedule(
      Target target, VectorUnit vectors, List<Tensor> outputs, Knobs knobs) {
    List<SketchRule> rules = SketchRules.defaults();
    Map<String, Integer> preferred = Map.of();
    // A full configuration (the tuner's candidates, a tuning record) needs no pick.
    if (!knobs
        .configuredValues()
        .keySet()
        .containsAll(spaceOf(target, vectors, outputs, rules).keySet())) {
      preferred = untunedConfig(target, vectors, outputs, rules, new AnalyticPredictor()).values();
    }
    return generate(target, vectors, outputs, knobs, rules, preferred);
  }

  /** The untuned pick's schedule of {@code outputs} for {@code target}. */
  public static Schedule untuned(Target target, List<Tensor> outputs) {
    return schedule(target, outputs, Knobs.defaults());
  }

  /**
   * The configuration chosen without measurement: the defaults and {@value UntunedPick#DRAWS}
   * configurations drawn with a fixed seed from the rules' sketch, ranked by {@code predictor}, the
   * best of them improved one knob at a time, or by doubling one knob and halving another (any
   * exchange that keeps the product, on GPUs where every tiled stage reduces with little reuse:
   * {@link Climb}), while the predicted cost drops; the pick is the first of that one and the best
   * drawn that lowers (ties: the earlier drawn), else the naive floor; on GPUs the naive floor also
   * where the predictor ranks it at least as fast. On C, where the DAG has a direct 3x3
   * convolution, the {@link #WINOGRAD} sketch is picked so too, and taken by {@link
   * WinogradSketch#pays}; the configuration holds both picks.
   */
  public static Configuration untunedConfig(
      Target target, List<Tensor> outputs, List<SketchRule> rules, Predictor predictor) {
    return untunedConfig(target, VectorUnit.AVX512, outputs, rules, predictor);
  }

  /** As above, C's tiles sized for {@code vectors}. */
  public static Configuration untunedConfig(
      Target target,
      VectorUnit vectors,
      List<Tensor> outputs,
      List<SketchRule> rules,
      Predictor predictor) {
    return UntunedPick.config(target, vectors, outputs, rules, predictor);
  }

  /** The notes the rules leave for {@code c} ({@code stage/key}): what the predictor weighs. */
  static Map<String, Double> notes(Target target, List<Tensor> outputs, Configuration c) {
    return notes(target, VectorUnit.AVX512, outputs, c);
  }

  /** As above, C's notes weighed for {@code vectors}. */
  static Map<String, Double> notes(
      Target target, VectorUnit vectors, List<Tensor> outputs, Configuration c) {
    return build(target, vectors, outputs, c, SketchRules.defaults()).notes();
  }

  static Map<String, java.util.List<Integer>> spaceOf(
      Target target, VectorUnit vectors, List<Tensor> outputs, List<SketchRule> rules) {
    Knobs k = Knobs.defaults();
    build(target, vectors, outputs, k, rules, Map.of(), true);
    return k.space();
  }

  static Configuration withSketch(Configuration c, int sketch) {
    Map<String, Integer> v = new TreeMap<>(c.values());
    v.put(SKETCH, sketch);
    return Configuration.of(v);
  }

  /** A schedule built by the rules and the notes they left. */
  record Built(Schedule schedule, Map<String, Double> notes) {}

  /** The rules' schedule and notes for a full configuration {@code c}. */
  static Built build(
      Target target,
      VectorUnit vectors,
      List<Tensor> outputs,
      Configuration c,
      List<SketchRule> rules) {
    return build(target, vectors, outputs, Knobs.configured(c.values()), rules, Map.of(), false);
  }

  /**
   * On GPUs where every tiled stage of {@code b} is a reduction with little reuse, the notes of its
   * naive kernel ({@link GpuTiling#naiveNotes}); null otherwise.
   */
  static Map<String, Double> littleReuse(Target target, Built b) {
    boolean gpu = target == Target.CUDA || target == Target.OPENCL;
    return gpu ? GpuTiling.naiveNotes(b.notes()) : null;
  }

  private static Built build(
      Target target,
      VectorUnit vectors,
      List<Tensor> outputs,
      Knobs knobs,
      List<SketchRule> rules,
      Map<String, Integer> preferred,
      boolean declareAll) {
    SketchState state =
        new SketchState(Schedule.create(outputs), target, vectors, knobs, preferred, "");
    List<Tensor> winograd = WinogradSketch.rewrite(target, outputs);
    int sketch =
        winograd == null
            ? state.knob(SKETCH, RULES, NAIVE)
            : state.knob(SKETCH, RULES, NAIVE, WINOGRAD);
    if (sketch != RULES) {
      state.declareOnly();
    }
    if (declareAll || sketch != WINOGRAD) {
      derive(state, rules, sketch == RULES);
    }
    SketchState alt = null;
    // The untuned pick's search builds and weighs one sketch at a time: the other DAG's knobs are
    // declared only where the space is read (a conv's pick took twice as long with them).
    if (winograd != null && (declareAll || sketch == WINOGRAD)) {
      // The rewritten DAG's knobs are in the space whatever the sketch, under their own names.
      alt =
          new SketchState(
              Schedule.rewritten(outputs, winograd),
              target,
              vectors,
              knobs,
              preferred,
              WinogradSketch.KNOBS);
      if (sketch != WINOGRAD) {
        alt.declareOnly();
      }
      derive(alt, rules, sketch == WINOGRAD);
    }
    return switch (sketch) {
      case NAIVE -> new Built(NaiveSchedule.of(target, outputs), state.notes());
      case WINOGRAD -> new Built(alt.schedule(), alt.notes());
      default -> new Built(state.schedule(), state.notes());
    };
  }

  /**
   * Runs each rule, in order, over the stages not yet done, consumers first; where {@code taken} is
   * false (another sketch is built, these knobs only declared), a rule that gives up ends the run.
   */
  private static void derive(SketchState state, List<SketchRule> rules, boolean taken) {
    try {
      for (SketchRule rule : rules) {
        List<Stage> stages = List.copyOf(state.schedule().stages());
        for (int k = stages.size() - 1; k >= 0; k--) {
          Stage st = stages.get(k);
          if (!st.isPlaceholder()
              && !state.isDone(st)
              && st.attachType() == AttachType.ROOT
              && rule.applies(state, st)) {
            rule.apply(state, st);
          }
        }
      }
    } catch (UserError e) {
      if (taken) {
        throw e;
      }
    }
  }
}
