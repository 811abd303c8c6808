package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
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

/**
 * The untuned pick ({@link AutoScheduler#untunedConfig}): a seeded search over the rules' sketches
 * ranked by a {@link Predictor}, without measurement, so that two builds pick the same schedule.
 */
final class UntunedPick {
  private final Target target;
  private final VectorUnit vectors;
  private final List<Tensor> outputs;
  private final List<SketchRule> rules;
  private final Predictor predictor;

  /**
   * Each configuration built and weighed once, and lowered once: the climb offers the same
   * configuration again (each knob's current value, each round).
   */
  private final Map<String, Double> costs = new HashMap<>();

  private final Map<String, Boolean> fit = new HashMap<>();

  private UntunedPick(
      Target target,
      VectorUnit vectors,
      List<Tensor> outputs,
      List<SketchRule> rules,
      Predictor predictor) {
    this.target = target;
    this.vectors = vectors;
    this.outputs = outputs;
    this.rules = rules;
    this.predictor = predictor;
  }

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

  /** {@link AutoScheduler#untunedConfig}, C's tiles sized for {@code vectors}. */
  static Configuration config(
      Target target,
      VectorUnit vectors,
      List<Tensor> outputs,
      List<SketchRule> rules,
      Predictor predictor) {
    return new UntunedPick(target, vectors, outputs, rules, predictor).config();
  }

  private Configuration config() {
    ConfigSpace space = new ConfigSpace(AutoScheduler.spaceOf(target, vectors, outputs, rules));
    // Each sketch is searched over its own knobs (the others keep their first choice).
    ConfigSpace direct = WinogradSketch.knobsOf(space, false);
    Configuration pick = pick(direct, AutoScheduler.RULES);
    if (direct != space) {
      // The Winograd sketch's knobs: picked on C, at their defaults elsewhere.
      ConfigSpace rewritten = WinogradSketch.knobsOf(space, true);
      Configuration w =
          target == Target.C ? pick(rewritten, AutoScheduler.WINOGRAD) : space.defaults();
      return WinogradSketch.merged(space, pick, w, WinogradSketch.pays(target, outputs));
    }
    return pick;
  }

  /** The predicted cost of {@code c} ({@link #score}), once per configuration. */
  private double cost(Configuration c) {
    return costs.computeIfAbsent(c.key(), k -> score(c));
  }

  /** Whether {@code c} fits ({@link #lowersWithinLimits}), once per configuration. */
  private boolean fits(Configuration c) {
    return fit.computeIfAbsent(c.key(), k -> lowersWithinLimits(c));
  }

  /**
   * The untuned pick of {@code sketch} over {@code space} ({@link AutoScheduler#untunedConfig}).
   */
  private Configuration pick(ConfigSpace space, int sketch) {
    Random r = new Random(SEED);
    List<Configuration> drawn = new ArrayList<>();
    drawn.add(AutoScheduler.withSketch(space.defaults(), sketch));
    for (int k = 0; k < DRAWS && space.size() > 1; k++) {
      Configuration c = AutoScheduler.withSketch(space.random(r), sketch);
      if (!drawn.contains(c)) {
        drawn.add(c);
      }
    }
    record Scored(Configuration config, double cost, int order) {}
    List<Scored> scored = new ArrayList<>();
    for (int k = 0; k < drawn.size(); k++) {
      double cost = cost(drawn.get(k));
      if (!Double.isNaN(cost)) {
        scored.add(new Scored(drawn.get(k), cost, k));
      }
    }
    scored.sort(Comparator.comparingDouble(Scored::cost).thenComparingInt(Scored::order));
    List<Configuration> candidates = new ArrayList<>();
    Scored fitting = scored.stream().filter(x -> fits(x.config())).findFirst().orElse(null);
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
      Configuration c = Climb.shrinkToFit(space, x.config(), this::cost, this::fits);
      if (c != null && (start == null || cost(c) < start.cost())) {
        start = new Scored(c, cost(c), x.order());
      }
    }
    if (start != null) {
      // Wide on GPUs where every tiled stage is a reduction with little reuse (Climb).
      boolean wide =
          AutoScheduler.littleReuse(
                  target, AutoScheduler.build(target, vectors, outputs, start.config(), rules))
              != null;
      candidates.add(
          Climb.from(space, start.config(), start.cost(), this::cost, this::fits, wide).getKey());
    }
    for (Scored s : scored.subList(0, Math.min(4, scored.size()))) {
      candidates.add(s.config());
    }
    for (Configuration c : candidates) {
      if (fits(c)) {
        return naiveAtLeastAsFast(c) ? AutoScheduler.withSketch(c, AutoScheduler.NAIVE) : c;
      }
    }
    return AutoScheduler.withSketch(space.defaults(), AutoScheduler.NAIVE);
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
  private boolean naiveAtLeastAsFast(Configuration c) {
    if (target != Target.CUDA && target != Target.OPENCL) {
      return false;
    }
    if (NaiveSchedule.masksByOutput(outputs)) {
      return true;
    }
    AutoScheduler.Built b = AutoScheduler.build(target, vectors, outputs, c, rules);
    Map<String, Double> naive = AutoScheduler.littleReuse(target, b);
    if (naive == null) {
      return false;
    }
    Configuration n = AutoScheduler.withSketch(c, AutoScheduler.NAIVE);
    Schedule ns = AutoScheduler.build(target, vectors, outputs, n, rules).schedule();
    double pick = predictor.cost(new Candidate(target, outputs, c, b.schedule(), b.notes()));
    return predictor.cost(new Candidate(target, outputs, n, ns, naive)) <= pick;
  }

  /** The predicted cost of {@code c}; NaN where it is not a legal point. */
  private double score(Configuration c) {
    try {
      AutoScheduler.Built b = AutoScheduler.build(target, vectors, outputs, c, rules);
      return predictor.cost(new Candidate(target, outputs, c, b.schedule(), b.notes()));
    } catch (UserError e) {
      return Double.NaN; // too many threads per block
    }
  }

  /**
   * Whether {@code c} lowers, to at most {@value #MAX_STATEMENTS} statements ({@value
   * #ROW_FORM_MAX_STATEMENTS} in the row form), and on GPUs within the limits every CUDA device
   * meets (a kernel over them cannot launch anywhere).
   */
  private boolean lowersWithinLimits(Configuration c) {
    AutoScheduler.Built b = AutoScheduler.build(target, vectors, outputs, c, rules);
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
}
