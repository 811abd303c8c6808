package dev.kernelgen.tune.search;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.Measurer;
import dev.kernelgen.tune.Tuner;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.TuningTask;
import dev.kernelgen.tune.features.LoopFeatures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EvolutionarySearchTest {
  static final int N = 64;

  /** A 64³ matmul with three-level rows, two-level columns and an optional vectorization. */
  static TuningTask tiledMatmul() {
    Tensor a = placeholder("A", FLOAT32, N, N);
    Tensor b = placeholder("B", FLOAT32, N, N);
    IterVar k = reduceAxis(N, "k");
    Tensor c =
        compute(
            "C",
            shape(N, N),
            (i, j) -> sum(Binary.of(BinOp.MUL, a.at(i, k.var()), b.at(k.var(), j)), k));
    OperatorDef def = OperatorDef.of(List.of(a, b), c);
    return new TuningTask(
        "Test/tiled",
        Target.C,
        def,
        knobs -> {
          long[] ti = knobs.split("tile_i", N, 3);
          long[] tj = knobs.split("tile_j", N, 2);
          int vec = knobs.knob("vectorize", 0, 1);
          Schedule s = Schedule.create(def.outputs());
          Stage st = s.stage(c);
          Stage.Split i1 = st.split(st.axis(0), ti[1] * ti[2]);
          Stage.Split i2 = st.split(i1.inner(), ti[2]);
          Stage.Split j1 = st.split(st.axis(1), tj[1]);
          st.reorder(i1.outer(), j1.outer(), i2.outer(), st.reduceAxis(0), i2.inner(), j1.inner());
          if (vec == 1) {
            st.vectorize(j1.inner());
          }
          return s;
        },
        "tiled");
  }

  /**
   * A synthetic device (to test the search, not a device): the time is a function of the tile sizes
   * that the schedule applies, best (1 us) at 4 x 16 register tiles, 8-row blocks, vectorized.
   */
  static class TileCost implements Measurer {
    final List<Configuration> asked = new ArrayList<>();

    static double time(Configuration c) {
      long[] ti = Knobs.factorizations(N, 3).get(c.values().get("tile_i"));
      long[] tj = Knobs.factorizations(N, 2).get(c.values().get("tile_j"));
      return 1
          + Math.abs(log2(ti[2]) - 2)
          + Math.abs(log2(tj[1]) - 4)
          + 0.5 * Math.abs(log2(ti[1]) - 1)
          + (c.values().get("vectorize") == 1 ? 0 : 3);
    }

    static double log2(long v) {
      return Math.log(v) / Math.log(2);
    }

    @Override
    public String deviceName() {
      return "synthetic";
    }

    @Override
    public Map<String, String> versions() {
      return Map.of();
    }

    @Override
    public List<Measurement> measure(TuningTask task, List<Configuration> batch) {
      asked.addAll(batch);
      return batch.stream().map(c -> Measurement.ok(c, time(c), time(c), List.of())).toList();
    }
  }

  private static Tuner.Options options(long seed) {
    return new Tuner.Options(48, 8, 0, Duration.ofMinutes(2), seed, List.of());
  }

  @Test
  void theLearnedModelGuidesTheSearchToTheOptimum() {
    TuningTask t = tiledMatmul();
    assertThat(t.space().size()).isEqualTo(28 * 7 * 2);
    double evolved = 0;
    double random = 0;
    int seeds = 3;
    for (long seed = 1; seed <= seeds; seed++) {
      TileCost m = new TileCost();
      Tuner.Result r = Tuner.tune(t, m, options(seed), List.of(), b -> {}, p -> {});
      assertThat(m.asked).hasSize(48);
      assertThat(m.asked.stream().map(Configuration::key).distinct()).hasSize(48);
      evolved += r.best().medianUs() / seeds;
      // Random search, same budget.
      java.util.Random rnd = new java.util.Random(seed);
      double best = Double.MAX_VALUE;
      for (int i = 0; i < 48; i++) {
        best = Math.min(best, TileCost.time(t.space().random(rnd)));
      }
      random += best / seeds;
      // Every measurement carries the candidate's loop features, for its record.
      assertThat(r.measured()).allMatch(x -> x.features().size() == LoopFeatures.SIZE);
    }
    assertThat(evolved).as("mean best of the evolutionary search").isLessThan(random);
    assertThat(evolved).isLessThanOrEqualTo(1.6);
  }

  @Test
  void anotherOperatorsRecordsWarmTheSearch() {
    TuningTask t = tiledMatmul();
    // An earlier search of another operator (renamed: the same loops, so the same features).
    TileCost first = new TileCost();
    List<TuningRecord> log = new ArrayList<>();
    Tuner.tune(
        t,
        first,
        new Tuner.Options(64, 8, 0, Duration.ofMinutes(2), 11, List.of()),
        List.of(),
        b ->
            b.forEach(
                x ->
                    log.add(
                        new TuningRecord(
                                "Test/earlier",
                                "C",
                                "synthetic",
                                Map.of(),
                                List.of(List.of(1L)),
                                x.config(),
                                List.of(),
                                x.status().name(),
                                x.medianUs(),
                                x.minUs(),
                                "",
                                "")
                            .withFeatures(x))),
        p -> {});
    assertThat(log).hasSize(64).allMatch(r -> r.features().size() == LoopFeatures.SIZE);
    int coldTrials = 0;
    int warmTrials = 0;
    double warmBest = 0;
    for (long seed = 1; seed <= 3; seed++) {
      Tuner.Options o = new Tuner.Options(24, 8, 0, Duration.ofMinutes(2), seed, List.of());
      Tuner.Result cold =
          Tuner.tune(t, new TileCost(), o.withTransfer(false), log, b -> {}, p -> {});
      Tuner.Result warm = Tuner.tune(t, new TileCost(), o, log, b -> {}, p -> {});
      coldTrials += cold.trialsTo90();
      warmTrials += warm.trialsTo90();
      warmBest = Math.max(warmBest, warm.best().medianUs());
    }
    assertThat(warmTrials).as("trials to 90%%, warm (cold: %d)", coldTrials).isLessThan(coldTrials);
    assertThat(warmBest).isLessThanOrEqualTo(1.5);
  }

  /**
   * Tiles of 8 rows or 32 columns, next to the optimum's 4 x 16 in the synthetic cost, are "over
   * the device's limits": rejected unmeasured.
   */
  static boolean overLimit(Configuration c) {
    long[] ti = Knobs.factorizations(N, 3).get(c.values().get("tile_i"));
    long[] tj = Knobs.factorizations(N, 2).get(c.values().get("tile_j"));
    return ti[2] == 8 || tj[1] == 32;
  }

  @Test
  void theModelLearnsToAvoidRejectedCandidates() {
    TuningTask t = tiledMatmul();
    var space = t.space();
    long rejected = 0;
    for (long i = 0; i < space.size(); i++) {
      rejected += overLimit(space.get(i)) ? 1 : 0;
    }
    double spaceFraction = (double) rejected / space.size();
    TileCost m =
        new TileCost() {
          @Override
          public List<Measurement> measure(TuningTask task, List<Configuration> batch) {
            asked.addAll(batch);
            return batch.stream()
                .map(
                    c ->
                        overLimit(c)
                            ? Measurement.failed(
                                c, Measurement.Status.INVALID, List.of(), "too many registers")
                            : Measurement.ok(c, time(c), time(c), List.of()))
                .toList();
          }
        };
    Tuner.tune(t, m, options(5), List.of(), b -> {}, p -> {});
    List<Configuration> late = m.asked.subList(m.asked.size() / 2, m.asked.size());
    double lateFraction =
        late.stream().filter(EvolutionarySearchTest::overLimit).count() / (double) late.size();
    assertThat(spaceFraction).isGreaterThan(0.2);
    System.out.printf(
        "rejected: %.3f of the space, %.3f of the later proposals%n", spaceFraction, lateFraction);
    assertThat(lateFraction).as("rejected among the later proposals").isLessThan(spaceFraction / 2);
  }

  @Test
  void aSearchIsDeterministicForASeed() {
    TuningTask t = tiledMatmul();
    TileCost a = new TileCost();
    TileCost b = new TileCost();
    Tuner.tune(t, a, options(4), List.of(), x -> {}, p -> {});
    Tuner.tune(t, b, options(4), List.of(), x -> {}, p -> {});
    assertThat(a.asked).isEqualTo(b.asked);
  }

  @Test
  void mutantsAndCrossoversStayInTheSpaceAndTheBatchIsUnmeasured() {
    TuningTask t = tiledMatmul();
    var space = t.space();
    CandidateFeatures features = new CandidateFeatures(t);
    LearnedCostModel model =
        new LearnedCostModel(
            dev.kernelgen.tune.model.GradientBoostedTrees.Params.defaults(), space.knobs().size());
    java.util.Random r = new java.util.Random(1);
    Map<String, Measurement> seen = new java.util.LinkedHashMap<>();
    for (int i = 0; i < 16; i++) {
      Configuration c = space.random(r);
      Measurement m = Measurement.ok(c, TileCost.time(c), TileCost.time(c), List.of());
      seen.put(c.key(), m);
      model.add(m, features.of(c), space.coordinates(c));
    }
    model.fit();
    assertThat(model.trained()).isTrue();
    List<Configuration> batch =
        EvolutionarySearch.defaults().propose(space, features, model, seen, 10, r);
    assertThat(batch).hasSize(10);
    for (Configuration c : batch) {
      assertThat(space.contains(c)).isTrue();
      assertThat(seen).doesNotContainKey(c.key());
    }
    Configuration x = space.random(r);
    Configuration y = space.random(r);
    Configuration child = EvolutionarySearch.crossover(x, y, r);
    assertThat(space.contains(child)).isTrue();
    child.values().forEach((k, v) -> assertThat(v).isIn(x.values().get(k), y.values().get(k)));
  }

  @Test
  void theResultSaysWhen90PercentOfTheFinalSpeedWasReached() {
    TuningTask t = tiledMatmul();
    TileCost m = new TileCost();
    List<TuningRecord> log = new ArrayList<>();
    Tuner.Result r = Tuner.tune(t, m, options(2), List.of(), b -> {}, p -> {});
    double within = r.best().medianUs() / 0.9;
    int expected = 0;
    for (Measurement x : r.measured()) {
      expected++;
      if (x.medianUs() <= within) {
        break;
      }
    }
    assertThat(r.trialsTo90()).isEqualTo(expected);
    assertThat(r.timeTo90()).isLessThanOrEqualTo(r.elapsed());
    assertThat(r.reachedLine()).contains("90% of the final speed").contains("after " + expected);
    assertThat(log).isEmpty();
  }
}
