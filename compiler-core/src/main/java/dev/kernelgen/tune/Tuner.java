package dev.kernelgen.tune;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.tune.model.GradientBoostedTrees;
import dev.kernelgen.tune.search.CandidateFeatures;
import dev.kernelgen.tune.search.EvolutionarySearch;
import dev.kernelgen.tune.search.LearnedCostModel;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Searches a task's configuration space. A space no larger than the trial budget is measured whole
 * (the article's brute force); a larger one by a guided search: the default and random samples
 * first, then each batch proposed by the {@link Strategy}: by default {@link
 * Strategy#EVOLUTIONARY}, Ansor's evolutionary search ({@link EvolutionarySearch}) over a learned
 * model ({@link LearnedCostModel}, gradient-boosted trees over {@link
 * dev.kernelgen.tune.features.LoopFeatures} of the lowered candidates) retrained after each batch
 * and warmed with the records of other operators and shapes that store features (transfer); or
 * {@link Strategy#ANNEALING}, simulated annealing over a nearest-neighbour {@link CostModel} fit on
 * everything measured so far, with a few random points mixed in. Under the evolutionary strategy
 * every measurement carries its candidate's features, for its record. The search stops at the trial
 * budget, at the time limit, or when {@code patience} trials in a row did not improve on the best
 * (early stopping). Configurations the log already holds for this device are not measured again
 * (resuming).
 */
public final class Tuner {
  private Tuner() {}

  /**
   * A space the budget covers is measured in index order only up to this size; a larger one is
   * searched in the model's order (so that a time limit ends a search at its best candidates, not
   * at the first indices), the rest appended in index order.
   */
  static final long ENUMERATED_SPACE = 16;

  /** How a large space is searched. */
  public enum Strategy {
    /** Evolution guided by gradient-boosted trees over loop features (Ansor's); the default. */
    EVOLUTIONARY,
    /** Simulated annealing over a nearest-neighbour model of the knobs' values (AutoTVM-like). */
    ANNEALING
  }

  /**
   * How much to search.
   *
   * @param trials the most configurations to measure (not counting those already in the log)
   * @param batch configurations measured per round (compiled in parallel)
   * @param patience stop after this many trials without improvement; 0 never stops early
   * @param timeLimit stop starting rounds after this long
   * @param seed of the random choices, so that a search can be repeated
   * @param first configurations measured before the search proper (skipped when not in the space)
   * @param strategy how a space larger than the budget is searched
   * @param transfer whether the learned model is warmed with other tasks' records
   */
  public record Options(
      int trials,
      int batch,
      int patience,
      Duration timeLimit,
      long seed,
      List<Configuration> first,
      Strategy strategy,
      boolean transfer) {
    /** Evolutionary search with transfer. */
    public Options(
        int trials,
        int batch,
        int patience,
        Duration timeLimit,
        long seed,
        List<Configuration> first) {
      this(trials, batch, patience, timeLimit, seed, first, Strategy.EVOLUTIONARY, true);
    }

    public Options {
      first = List.copyOf(first);
      java.util.Objects.requireNonNull(strategy, "strategy");
      UserError.check(trials > 0, "the trial budget must be positive, not %d", trials);
      UserError.check(batch > 0, "the batch size must be positive, not %d", batch);
      UserError.check(patience >= 0, "patience must not be negative, not %d", patience);
    }

    public static Options defaults() {
      return new Options(
          64,
          Math.max(2, Runtime.getRuntime().availableProcessors()),
          32,
          Duration.ofMinutes(10),
          1,
          List.of());
    }

    public Options withTrials(int t) {
      return new Options(t, batch, patience, timeLimit, seed, first, strategy, transfer);
    }

    public Options withBatch(int b) {
      return new Options(trials, b, patience, timeLimit, seed, first, strategy, transfer);
    }

    public Options withPatience(int p) {
      return new Options(trials, batch, p, timeLimit, seed, first, strategy, transfer);
    }

    public Options withTimeLimit(Duration d) {
      return new Options(trials, batch, patience, d, seed, first, strategy, transfer);
    }

    /** Configurations to measure before any other (known good ones, such as a hand-tuned one). */
    public Options withFirst(List<Configuration> configs) {
      return new Options(trials, batch, patience, timeLimit, seed, configs, strategy, transfer);
    }

    public Options withStrategy(Strategy s) {
      return new Options(trials, batch, patience, timeLimit, seed, first, s, transfer);
    }

    public Options withSeed(long s) {
      return new Options(trials, batch, patience, timeLimit, s, first, strategy, transfer);
    }

    /** Whether the learned model starts from other tasks' records (false: a cold model). */
    public Options withTransfer(boolean t) {
      return new Options(trials, batch, patience, timeLimit, seed, first, strategy, t);
    }
  }

  /** Where a search stands, after each round. */
  public record Progress(
      String operator, int done, int planned, Measurement best, Duration elapsed, Duration left) {
    /** {@code matmul: 12/64 trials, best 41.2 us {tile=8}, 3.1 s, about 13 s left}. */
    public String line() {
      return String.format(
          java.util.Locale.ROOT,
          "%s: %d/%d trials, best %s, %.1f s, about %.0f s left",
          operator,
          done,
          planned,
          best == null
              ? "none yet"
              : String.format(java.util.Locale.ROOT, "%.2f us %s", best.medianUs(), best.config()),
          elapsed.toMillis() / 1000.0,
          left.toMillis() / 1000.0);
    }
  }

  /**
   * What a search found.
   *
   * @param best the fastest successful configuration, measured now or before (null when none ran)
   * @param measured the trials of this run, in order
   * @param resumed how many configurations the log already held
   * @param exhaustive whether the whole space was measured
   * @param trialsTo90 the trials of this run (invalid ones not counted) after which a configuration
   *     within 90% of the final speed had been measured ({@code best}'s time over 0.9 or less): 0
   *     when the log already held one; -1 when nothing ran
   * @param timeTo90 how long after the start that was (zero when the log held one)
   */
  public record Result(
      ConfigSpace space,
      Measurement best,
      List<Measurement> measured,
      int resumed,
      boolean exhaustive,
      Duration elapsed,
      int trialsTo90,
      Duration timeTo90) {
    public long failed() {
      return measured.stream().filter(m -> !m.isOk()).count();
    }

    /**
     * {@code 90% of the final speed (41.20 us) after 12 trials, 3.4 s}: the tuning cost.
     */
    public String reachedLine() {
      if (best == null) {
        return "no configuration ran, so no speed was reached";
      }
      return String.format(
          java.util.Locale.ROOT,
          "90%% of the final speed (best %.2f us, so %.2f us or less) after %d trial(s), %.1f s%s",
          best.medianUs(),
          best.medianUs() / 0.9,
          trialsTo90,
          timeTo90.toMillis() / 1000.0,
          trialsTo90 == 0 ? " (the log held it)" : "");
    }
  }

  /**
   * Tunes {@code task}.
   *
   * @param previous records already measured (of any task: those of this task and device count)
   * @param onBatch receives each round's measurements (to append them to the log at once)
   * @param progress receives a progress report after each round
   */
  public static Result tune(
      TuningTask task,
      Measurer measurer,
      Options options,
      List<TuningRecord> previous,
      Consumer<List<Measurement>> onBatch,
      Consumer<Progress> progress) {
    Instant start = Instant.now();
    ConfigSpace space = task.space();
    Map<String, Measurement> seen = new LinkedHashMap<>();
    String target = task.target().name();
    for (TuningRecord r : previous) {
      if (r.operator().equals(task.operator())
          && r.target().equals(target)
          && r.device().equals(measurer.deviceName())
          && r.shape().equals(task.shape())
          && space.contains(r.config())) {
        seen.put(
            r.config().key(),
            new Measurement(
                r.config(),
                Measurement.Status.valueOf(r.status()),
                r.medianUs(),
                r.minUs(),
                r.trace(),
                r.detail()));
      }
    }
    int resumed = seen.size();
    KnownSchedules known = new KnownSchedules(task);
    seen.values().forEach(known::add);
    CostModel model = new CostModel(space, 3);
    seen.values().forEach(model::add);
    boolean evolutionary = options.strategy() == Strategy.EVOLUTIONARY;
    CandidateFeatures features = evolutionary ? new CandidateFeatures(task) : null;
    LearnedCostModel learned = null;
    if (evolutionary) {
      learned =
          new LearnedCostModel(
              new GradientBoostedTrees.Params(100, 6, 0.15, 0.8, 0.8, 1.0, 1.0, 64, options.seed()),
              space.knobs().size());
      for (Measurement m : seen.values()) {
        learned.add(m, features.of(m.config()), space.coordinates(m.config()));
      }
      if (options.transfer()) {
        for (TuningRecord r : previous) {
          boolean sameDevice =
              r.target().equals(target) && r.device().equals(measurer.deviceName());
          boolean seenHere =
              r.operator().equals(task.operator())
                  && r.shape().equals(task.shape())
                  && space.contains(r.config());
          // This space's own records are in already (their features recomputed); the rest of
          // the device's records with features warm the model, another space of this operator
          // and shape (a template and a generated sketch) included.
          if (sameDevice && !seenHere) {
            learned.addTransfer(
                r, 1.0, space.contains(r.config()) ? space.coordinates(r.config()) : null);
          }
        }
      }
      learned.fit();
    }
    EvolutionarySearch evolution = EvolutionarySearch.defaults();
    Measurement best = bestOf(seen.values());
    Random random = new Random(options.seed());
    long size = space.size();
    boolean exhaustive = size <= options.trials() + resumed;
    long remaining = Math.max(0, size - resumed);
    int planned = (int) Math.min(options.trials(), remaining);
    List<Measurement> measured = new ArrayList<>();
    // Configurations rejected before measuring (over the device's limits, or refused by the
    // schedule) cost no device time: they do not count against the budget.
    int spent = 0;
    List<Integer> spentAt = new ArrayList<>();
    List<Duration> doneAt = new ArrayList<>();
    int rounds = 0;
    long sinceImprovement = 0;
    long nextIndex = 0;
    List<Configuration> first = new ArrayList<>();
    for (Configuration c : options.first()) {
      if (space.contains(c) && !seen.containsKey(c.key())) {
        first.add(c);
      }
    }
    while (spent < planned && rounds++ < 50 + 20 * planned) {
      Duration elapsed = Duration.between(start, Instant.now());
      if (elapsed.compareTo(options.timeLimit()) >= 0) {
        break;
      }
      if (!exhaustive && options.patience() > 0 && sinceImprovement >= options.patience()) {
        break;
      }
      int want = Math.min(options.batch(), planned - spent);
      List<Configuration> batch = new ArrayList<>();
      while (!first.isEmpty() && batch.size() < want) {
        batch.add(first.remove(0));
      }
      if (!batch.isEmpty()) {
        // Known configurations first, alone in their rounds.
      } else if (exhaustive && (!evolutionary || size <= ENUMERATED_SPACE)) {
        // A small space, or no learned model: all of it in index order, below.
      } else if (evolutionary) {
        batch = evolution.propose(space, features, learned, seen, want, random);
      } else {
        batch = AnnealingSearch.propose(space, model, seen, want, random);
      }
      if (exhaustive && batch.size() < want) {
        // A space the budget covers: in index order, after what the model proposed.
        Set<String> taken = new HashSet<>();
        batch.forEach(c -> taken.add(c.key()));
        while (batch.size() < want && nextIndex < size) {
          Configuration c = space.get(nextIndex++);
          if (!seen.containsKey(c.key()) && taken.add(c.key())) {
            batch.add(c);
          }
        }
      }
      if (batch.isEmpty()) {
        break;
      }
      batch = known.unmeasured(batch, seen);
      if (batch.isEmpty()) {
        continue;
      }
      List<Measurement> got = measurer.measure(task, batch);
      if (evolutionary) {
        List<Measurement> withFeatures = new ArrayList<>();
        for (Measurement m : got) {
          // Rejected ones too (over the device's limits): the model learns to avoid them.
          double[] x = features.of(m.config());
          learned.add(m, x, space.coordinates(m.config()));
          withFeatures.add(m.withFeatures(x));
        }
        got = withFeatures;
        learned.fit();
      }
      Duration finished = Duration.between(start, Instant.now());
      for (Measurement m : got) {
        seen.put(m.config().key(), m);
        known.add(m);
        model.add(m);
        measured.add(m);
        if (m.status() != Measurement.Status.INVALID) {
          spent++;
        }
        spentAt.add(spent);
        doneAt.add(finished);
        if (m.isOk() && (best == null || m.medianUs() < best.medianUs())) {
          best = m;
          sinceImprovement = 0;
        } else if (m.status() != Measurement.Status.INVALID) {
          sinceImprovement++;
        }
      }
      onBatch.accept(got);
      Duration now = Duration.between(start, Instant.now());
      double perTrial = (double) now.toNanos() / Math.max(1, spent);
      Duration left = Duration.ofNanos((long) (perTrial * Math.max(0, planned - spent)));
      Duration budgetLeft = options.timeLimit().minus(now);
      if (left.compareTo(budgetLeft) > 0) {
        left = budgetLeft.isNegative() ? Duration.ZERO : budgetLeft;
      }
      progress.accept(new Progress(task.operator(), spent, planned, best, now, left));
    }
    int trialsTo90 = -1;
    Duration timeTo90 = Duration.ZERO;
    if (best != null) {
      double within = best.medianUs() / 0.9;
      Measurement before =
          bestOf(seen.values().stream().filter(m -> !measured.contains(m)).toList());
      if (before != null && before.medianUs() <= within) {
        trialsTo90 = 0;
      } else {
        for (int i = 0; i < measured.size(); i++) {
          Measurement m = measured.get(i);
          if (m.isOk() && m.medianUs() <= within) {
            trialsTo90 = spentAt.get(i);
            timeTo90 = doneAt.get(i);
            break;
          }
        }
      }
    }
    return new Result(
        space,
        best,
        measured,
        resumed,
        exhaustive && measured.size() + resumed >= size,
        Duration.between(start, Instant.now()),
        trialsTo90,
        timeTo90);
  }

  private static Measurement bestOf(Iterable<Measurement> ms) {
    Measurement best = null;
    for (Measurement m : ms) {
      if (m.isOk() && (best == null || m.medianUs() < best.medianUs())) {
        best = m;
      }
    }
    return best;
  }
}
