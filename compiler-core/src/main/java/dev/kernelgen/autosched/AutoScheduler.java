package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.GpuLimits;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

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

  /** The seed of the untuned pick's search: fixed, so that builds are reproducible. */
  static final long SEED = 0x5eedL;

  /** How many configurations the untuned pick draws beside the defaults. */
  static final int DRAWS = 128;

  /** The most rounds of coordinate descent after the draws. */
  static final int CLIMB_ROUNDS = 8;

  /**
   * The most statements the untuned pick's lowered kernel may have. Compile time grows much faster
   * than the code: over symbolic shapes every unrolled point of a register tile carries a tail
   * guard, and a conv + bn + swish kernel of 1010 statements took gcc 170 s at -O3 against 16 s for
   * one of 353 (this many or fewer: the picks of the library's operators have 30 to 450).
   */
  static final int MAX_STATEMENTS = 512;

  /**
   * The most statements of a kernel in the CPU row form ({@link CpuRowWindow}): vector loops of
   * unguarded multiply-adds, which gcc compiles quickly. A 7x7 depthwise filter padded by a select
   * in the user's definition, its loops over the borders partitioned, lowers to 590 statements that
   * compile in 1.3 s at -O3 (the register tile picked instead, of 322 statements, took 3.8 s, and
   * ran 2.0 ms against the row form's 0.3-0.6).
   */
  static final int ROW_FORM_MAX_STATEMENTS = 1024;

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
    return build(target, outputs, knobs, rules, preferred, true).schedule();
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
    List<SketchRule> rules = SketchRules.defaults();
    Map<String, Integer> preferred = Map.of();
    // A full configuration (the tuner's candidates, a tuning record) needs no pick.
    if (!knobs.configuredValues().keySet().containsAll(spaceOf(target, outputs, rules).keySet())) {
      preferred = untunedConfig(target, outputs, rules, new AnalyticPredictor()).values();
    }
    return generate(target, outputs, knobs, rules, preferred);
  }

  /** The untuned pick's schedule of {@code outputs} for {@code target}. */
  public static Schedule untuned(Target target, List<Tensor> outputs) {
    return schedule(target, outputs, Knobs.defaults());
  }

  /**
   * The configuration chosen without measurement: the defaults and {@value #DRAWS} configurations
   * drawn with a fixed seed from the rules' sketch, ranked by {@code predictor}, the best of them
   * improved one knob at a time, or by doubling one knob and halving another (any exchange that
   * keeps the product, on GPUs where every tiled stage reduces with little reuse: {@link Climb}),
   * while the predicted cost drops; the pick is the first of that one and the best drawn that
   * lowers (ties: the earlier drawn), else the naive floor; on GPUs the naive floor also where the
   * predictor ranks it at least as fast ({@link #naiveAtLeastAsFast}). On C, where the DAG has a
   * direct 3x3 convolution, the {@link #WINOGRAD} sketch is picked so too, and taken by {@link
   * WinogradSketch#pays}; the configuration holds both picks.
   */
  public static Configuration untunedConfig(
      Target target, List<Tensor> outputs, List<SketchRule> rules, Predictor predictor) {
    ConfigSpace space = new ConfigSpace(spaceOf(target, outputs, rules));
    // The climb offers the same configuration again (each knob's current value, each round): a
    // configuration is built and weighed once.
    Map<String, Double> costs = new HashMap<>();
    ToDoubleFunction<Configuration> costOf =
        c -> costs.computeIfAbsent(c.key(), k -> score(target, outputs, c, rules, predictor));
    // Each sketch is searched over its own knobs (the others keep their first choice).
    ConfigSpace direct = WinogradSketch.knobsOf(space, false);
    Configuration pick = pick(target, outputs, rules, predictor, direct, RULES, costOf);
    if (direct != space) {
      // The Winograd sketch's knobs: picked on C, at their defaults elsewhere.
      ConfigSpace rewritten = WinogradSketch.knobsOf(space, true);
      Configuration w =
          target == Target.C
              ? pick(target, outputs, rules, predictor, rewritten, WINOGRAD, costOf)
              : space.defaults();
      return WinogradSketch.merged(space, pick, w, WinogradSketch.pays(target, outputs));
    }
    return pick;
  }

  /** The untuned pick of {@code sketch} over {@code space} ({@link #untunedConfig}). */
  private static Configuration pick(
      Target target,
      List<Tensor> outputs,
      List<SketchRule> rules,
      Predictor predictor,
      ConfigSpace space,
      int sketch,
      ToDoubleFunction<Configuration> costOf) {
    Random r = new Random(SEED);
    List<Configuration> drawn = new ArrayList<>();
    drawn.add(withSketch(space.defaults(), sketch));
    for (int k = 0; k < DRAWS && space.size() > 1; k++) {
      Configuration c = withSketch(space.random(r), sketch);
      if (!drawn.contains(c)) {
        drawn.add(c);
      }
    }
    record Scored(Configuration config, double cost, int order) {}
    List<Scored> scored = new ArrayList<>();
    for (int k = 0; k < drawn.size(); k++) {
      double cost = costOf.applyAsDouble(drawn.get(k));
      if (!Double.isNaN(cost)) {
        scored.add(new Scored(drawn.get(k), cost, k));
      }
    }
    scored.sort(Comparator.comparingDouble(Scored::cost).thenComparingInt(Scored::order));
    Map<String, Boolean> fit = new HashMap<>();
    java.util.function.Predicate<Configuration> fits =
        c -> fit.computeIfAbsent(c.key(), k -> fits(target, outputs, c, rules));
    List<Configuration> candidates = new ArrayList<>();
    Scored fitting = scored.stream().filter(x -> fits.test(x.config())).findFirst().orElse(null);
    Scored start = fitting;
    // On CPUs, drawn configurations ranked above the first that fits, too long as drawn (a 3-d
    // padding's copies split at every border: a 3x3x3 convolution's packed tiles), shrunk until
    // they fit: the climb from a degenerate tile that fits did not reach them (the 3x3x3 conv over
    // [1,16,16,28,28] x 16 in C: 58 ms so, 1.0 ms repaired, 2-core Zen 4). Not on GPUs, where the
    // repaired pick of that convolution ran 45.8 us against its naive kernel's 32.6 (H100).
    int repaired = target == Target.C || target == Target.JAVA ? 0 : REPAIRS;
    for (Scored x : scored) {
      if (x == fitting || repaired == REPAIRS) {
        break;
      }
      repaired++;
      Configuration c = Climb.shrinkToFit(space, x.config(), costOf, fits);
      if (c != null && (start == null || costOf.applyAsDouble(c) < start.cost())) {
        start = new Scored(c, costOf.applyAsDouble(c), x.order());
      }
    }
    if (start != null) {
      // Wide on GPUs where every tiled stage is a reduction with little reuse (Climb).
      boolean wide = littleReuse(target, build(target, outputs, start.config(), rules)) != null;
      candidates.add(Climb.from(space, start.config(), start.cost(), costOf, fits, wide).getKey());
    }
    for (Scored s : scored.subList(0, Math.min(4, scored.size()))) {
      candidates.add(s.config());
    }
    for (Configuration c : candidates) {
      if (fits.test(c)) {
        return naiveAtLeastAsFast(target, outputs, c, rules, predictor) ? withSketch(c, NAIVE) : c;
      }
    }
    return withSketch(space.defaults(), NAIVE);
  }

  /** The drawn configurations that do not fit shrunk by {@link Climb#shrinkToFit}, at most. */
  static final int REPAIRS = 3;

  /**
   * Whether the naive kernel skips work a tiling does (a reduction masked by its output's indices:
   * {@link NaiveSchedule#masksByOutput}), or {@code predictor} ranks it at least as fast as the
   * rules' pick {@code c}: weighed on GPUs where every tiled stage is a reduction with little reuse
   * ({@link GpuTiling#naiveNotes}). There a tiling the model cannot tell apart from a thread per
   * output gains nothing it can see, and the naive kernel is the simpler one (on an H200 it was
   * 1-7% faster than such picks: depthwise, max pool, the seed's fused depthwise at 9.0 against
   * 10.2 us).
   */
  private static boolean naiveAtLeastAsFast(
      Target target,
      List<Tensor> outputs,
      Configuration c,
      List<SketchRule> rules,
      Predictor predictor) {
    if (target != Target.CUDA && target != Target.OPENCL) {
      return false;
    }
    if (NaiveSchedule.masksByOutput(outputs)) {
      return true;
    }
    Built b = build(target, outputs, c, rules);
    Map<String, Double> naive = littleReuse(target, b);
    if (naive == null) {
      return false;
    }
    Configuration n = withSketch(c, NAIVE);
    Schedule ns = build(target, outputs, n, rules).schedule();
    double pick = predictor.cost(new Candidate(target, outputs, c, b.schedule(), b.notes()));
    return predictor.cost(new Candidate(target, outputs, n, ns, naive)) <= pick;
  }

  /** The notes the rules leave for {@code c} ({@code stage/key}): what the predictor weighs. */
  static Map<String, Double> notes(Target target, List<Tensor> outputs, Configuration c) {
    return build(target, outputs, c, SketchRules.defaults()).notes();
  }

  /** The predicted cost of {@code c}; NaN where it is not a legal point. */
  private static double score(
      Target target,
      List<Tensor> outputs,
      Configuration c,
      List<SketchRule> rules,
      Predictor predictor) {
    try {
      Built b = build(target, outputs, c, rules);
      return predictor.cost(new Candidate(target, outputs, c, b.schedule(), b.notes()));
    } catch (UserError e) {
      return Double.NaN; // too many threads per block
    }
  }

  private static Map<String, java.util.List<Integer>> spaceOf(
      Target target, List<Tensor> outputs, List<SketchRule> rules) {
    Knobs k = Knobs.defaults();
    build(target, outputs, k, rules, Map.of(), true);
    return k.space();
  }

  /**
   * Whether {@code c} lowers, to at most {@value #MAX_STATEMENTS} statements ({@value
   * #ROW_FORM_MAX_STATEMENTS} in the row form), and on GPUs within the limits every CUDA device
   * meets (a kernel over them cannot launch anywhere).
   */
  private static boolean fits(
      Target target, List<Tensor> outputs, Configuration c, List<SketchRule> rules) {
    Built b = build(target, outputs, c, rules);
    Schedule s = b.schedule();
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    boolean rowForm = b.notes().keySet().stream().anyMatch(k -> k.endsWith("/cpu.row_window"));
    try {
      PrimFunc f = Lower.lower(s, "probe", args, target, null);
      boolean gpu = target == Target.CUDA || target == Target.OPENCL;
      int limit = rowForm ? ROW_FORM_MAX_STATEMENTS : MAX_STATEMENTS;
      return statements(f) <= limit && (!gpu || GpuLimits.cudaDefault().check(f) == null);
    } catch (UserError | CompilerBug e) {
      return false;
    }
  }

  /**
   * The statements of a lowered kernel, an if with an else counted by its larger branch: the full
   * tiles' copy of a nest ({@code lower.VersionFullTiles}) does not make the nest a bigger choice.
   */
  static int statements(PrimFunc f) {
    return statements(f.body());
  }

  private static int statements(Stmt s) {
    if (s instanceof dev.kernelgen.tir.IfThenElse i && i.elseCase() != null) {
      return 1 + Math.max(statements(i.thenCase()), statements(i.elseCase()));
    }
    int[] n = {1};
    new StmtVisitor() {
      @Override
      public void visit(Stmt st) {
        if (st == s) {
          super.visit(st);
        } else {
          n[0] += statements(st);
        }
      }
    }.visit(s);
    return n[0];
  }

  private static Configuration withSketch(Configuration c, int sketch) {
    Map<String, Integer> v = new TreeMap<>(c.values());
    v.put(SKETCH, sketch);
    return Configuration.of(v);
  }

  /** A schedule built by the rules and the notes they left. */
  private record Built(Schedule schedule, Map<String, Double> notes) {}

  /** The rules' schedule and notes for a full configuration {@code c}. */
  private static Built build(
      Target target, List<Tensor> outputs, Configuration c, List<SketchRule> rules) {
    return build(target, outputs, Knobs.configured(c.values()), rules, Map.of(), false);
  }

  /**
   * On GPUs where every tiled stage of {@code b} is a reduction with little reuse, the notes of its
   * naive kernel ({@link GpuTiling#naiveNotes}); null otherwise.
   */
  private static Map<String, Double> littleReuse(Target target, Built b) {
    boolean gpu = target == Target.CUDA || target == Target.OPENCL;
    return gpu ? GpuTiling.naiveNotes(b.notes()) : null;
  }

  private static Built build(
      Target target,
      List<Tensor> outputs,
      Knobs knobs,
      List<SketchRule> rules,
      Map<String, Integer> preferred,
      boolean declareAll) {
    SketchState state = new SketchState(Schedule.create(outputs), target, knobs, preferred);
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
