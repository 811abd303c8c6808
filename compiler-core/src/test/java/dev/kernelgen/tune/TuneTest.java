package dev.kernelgen.tune;

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
import dev.kernelgen.tir.PrimFunc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class TuneTest {

  @Test
  void divisorsAndFactorizations() {
    assertThat(Knobs.divisors(12)).containsExactly(1L, 2L, 3L, 4L, 6L, 12L);
    assertThat(Knobs.divisors(1)).containsExactly(1L);
    List<long[]> f = Knobs.factorizations(12, 2);
    assertThat(f).hasSize(6);
    assertThat(f.get(0)).containsExactly(1, 12);
    assertThat(f.get(5)).containsExactly(12, 1);
    // Ordered triples with product 8 = 2^3: C(3+2, 2) = 10.
    assertThat(Knobs.factorizations(8, 3)).hasSize(10);
    for (long[] t : Knobs.factorizations(36, 3)) {
      assertThat(t[0] * t[1] * t[2]).isEqualTo(36);
    }
    Knobs k = Knobs.configured(Map.of("tile", 2));
    assertThat(k.split("tile", 12, 2)).containsExactly(3, 4);
    assertThat(k.space().get("tile")).hasSize(6);
  }

  @Test
  void spaceEnumeratesEveryConfigurationOnce() {
    ConfigSpace s = new ConfigSpace(Map.of("a", List.of(1, 2, 3), "b", List.of(8, 16)));
    assertThat(s.size()).isEqualTo(6);
    assertThat(s.defaults().values()).isEqualTo(Map.of("a", 1, "b", 8));
    java.util.Set<String> keys = new java.util.HashSet<>();
    for (long i = 0; i < s.size(); i++) {
      Configuration c = s.get(i);
      assertThat(s.contains(c)).isTrue();
      keys.add(c.key());
    }
    assertThat(keys).hasSize(6);
    assertThat(s.contains(Configuration.of(Map.of("a", 4, "b", 8)))).isFalse();
    assertThat(s.contains(Configuration.of(Map.of("a", 1)))).isFalse();
    Random r = new Random(3);
    for (int i = 0; i < 50; i++) {
      Configuration c = s.random(r);
      Configuration n = s.neighbour(c, r);
      assertThat(s.contains(n)).isTrue();
      assertThat(n.key()).isNotEqualTo(c.key());
    }
  }

  private static TuningRecord record(String device, int tile, double us, String status) {
    return new TuningRecord(
        "Lib/op",
        "C",
        device,
        Map.of("toolchain", "cc 1"),
        List.of(List.of(4L, 8L), List.of(4L, 8L)),
        Configuration.of(Map.of("tile", tile)),
        List.of("A.split(i, " + tile + ")"),
        status,
        us,
        us * 0.9,
        status.equals("OK") ? "" : "boom \"quoted\"\nnext line",
        "2026-11-29T12:00:00Z");
  }

  @Test
  void logRoundTripsSkipsMalformedLinesAndPicksTheBestPerDevice(@TempDir Path dir)
      throws Exception {
    Path log = dir.resolve("tuning/Lib.jsonl");
    TuningLog.append(
        log,
        List.of(
            record("cpu A", 4, 10.0, "OK"),
            record("cpu A", 8, 7.5, "OK"),
            record("cpu A", 16, Double.NaN, "WRONG")));
    Files.writeString(
        log,
        "not json\n{\"format\": 99, \"operator\": \"x\"}\n{\"format\":1}\n\n",
        java.nio.file.StandardOpenOption.APPEND);
    TuningLog.append(log, List.of(record("gpu B", 2, 1.0, "OK")));
    List<String> warnings = new ArrayList<>();
    List<TuningRecord> rs = TuningLog.readDirectory(dir, warnings::add);
    assertThat(rs).hasSize(4);
    assertThat(warnings).hasSize(3);
    assertThat(warnings.get(1)).contains("Lib.jsonl:5").contains("format 99");
    assertThat(rs.get(2).status()).isEqualTo("WRONG");
    assertThat(rs.get(2).detail()).isEqualTo("boom \"quoted\"\nnext line");
    assertThat(rs.get(2).medianUs()).isNaN();
    assertThat(rs.get(0)).isEqualTo(record("cpu A", 4, 10.0, "OK"));

    List<List<Long>> shape = List.of(List.of(4L, 8L), List.of(4L, 8L));
    TuningLog.Lookup any = TuningLog.best(rs, "Lib/op", "C", shape, null);
    assertThat(any.best()).isEmpty();
    assertThat(any.reason()).contains("several devices").contains("cpu A").contains("gpu B");
    TuningLog.Lookup a = TuningLog.best(rs, "Lib/op", "C", shape, "cpu A");
    assertThat(a.best()).get().extracting(r -> r.config().values().get("tile")).isEqualTo(8);
    assertThat(TuningLog.best(rs, "Lib/op", "C", List.of(List.of(1L)), "cpu A").best()).isEmpty();
    assertThat(TuningLog.best(rs, "Lib/other", "C", shape, null).reason())
        .contains("no successful record");
  }

  /**
   * y[i, j] = sum_k a[i, k] * b[k, j], scheduled with tunable tiles for C; the measure module's
   * tests measure it too.
   */
  public static TuningTask matmulTask(int n) {
    Tensor a = placeholder("A", FLOAT32, n, n);
    Tensor b = placeholder("B", FLOAT32, n, n);
    IterVar k = reduceAxis(n, "k");
    Tensor c =
        compute(
            "C",
            shape(n, n),
            (i, j) -> sum(Binary.of(BinOp.MUL, a.at(i, k.var()), b.at(k.var(), j)), k));
    OperatorDef def = OperatorDef.of(List.of(a, b), c);
    return new TuningTask(
        "Test/matmul",
        Target.C,
        def,
        knobs -> {
          Schedule s = Schedule.create(def.outputs());
          Stage st = s.stage(c);
          long[] tj = knobs.split("tile_j", n, 2);
          int order = knobs.knob("k_outside", 0, 1);
          Stage.Split sj = st.split(st.axis(1), tj[1]);
          if (order == 1) {
            st.reorder(st.axis(0), st.reduceAxis(0), sj.outer(), sj.inner());
          }
          st.parallel(st.axis(0));
          return s;
        },
        "matmul");
  }

  @Test
  void taskSpaceComesFromTheSchedulesKnobs() {
    TuningTask t = matmulTask(16);
    ConfigSpace s = t.space();
    assertThat(s.knobs().keySet()).containsExactly("k_outside", "tile_j");
    assertThat(s.size()).isEqualTo(2 * 5);
    assertThat(t.shape()).containsExactly(List.of(16L, 16L), List.of(16L, 16L), List.of(16L, 16L));
  }

  /**
   * A measurer of a synthetic cost function, to test the search's logic (not a device): the time is
   * the distance from a known optimum, and one configuration fails.
   */
  static class SyntheticCost implements Measurer {
    final List<Configuration> asked = new ArrayList<>();

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
      List<Measurement> out = new ArrayList<>();
      for (Configuration c : batch) {
        asked.add(c);
        int x = c.values().getOrDefault("x", 0);
        int y = c.values().getOrDefault("y", 0);
        if (x == 3 && y == 3) {
          out.add(Measurement.failed(c, Measurement.Status.RUNTIME_ERROR, List.of(), "crash"));
          continue;
        }
        double t = 1 + Math.abs(x - 37) + Math.abs(y - 21);
        out.add(Measurement.ok(c, t, t, List.of()));
      }
      return out;
    }
  }

  static TuningTask gridTask(int n) {
    TuningTask base = matmulTask(4);
    int[] values = new int[n];
    for (int i = 0; i < n; i++) {
      values[i] = i;
    }
    return new TuningTask(
        "Test/grid",
        Target.C,
        base.def(),
        knobs -> {
          knobs.knob("x", values);
          knobs.knob("y", values);
          return base.schedule(base.space().defaults());
        },
        "grid");
  }

  @Test
  void smallSpacesAreSearchedExhaustivelyAndResumed() {
    TuningTask t = gridTask(5);
    SyntheticCost m = new SyntheticCost();
    List<TuningRecord> log = new ArrayList<>();
    Tuner.Options o = Tuner.Options.defaults().withTrials(100).withBatch(4);
    Tuner.Result r = Tuner.tune(t, m, o, log, batch -> log.addAll(records(t, m, batch)), p -> {});
    assertThat(r.exhaustive()).isTrue();
    assertThat(r.measured()).hasSize(25);
    assertThat(r.failed()).isEqualTo(1);
    assertThat(r.best().config().values()).isEqualTo(Map.of("x", 4, "y", 4));
    // Resuming measures nothing again.
    SyntheticCost again = new SyntheticCost();
    Tuner.Result r2 = Tuner.tune(t, again, o, log, b -> {}, p -> {});
    assertThat(again.asked).isEmpty();
    assertThat(r2.resumed()).isEqualTo(25);
    assertThat(r2.best().config().values()).isEqualTo(Map.of("x", 4, "y", 4));
  }

  @Test
  void configurationsThatScheduleAlikeAreMeasuredOnce() {
    // Sketch 1 reads no other knob, as a sketch ignores another sketch's knobs: its ten
    // configurations are one schedule.
    TuningTask base = matmulTask(4);
    TuningTask t =
        new TuningTask(
            "Test/sketches",
            Target.C,
            base.def(),
            knobs -> {
              if (knobs.knob("sketch", 0, 1) == 0) {
                knobs.knob("x", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
              }
              return base.schedule(base.space().defaults());
            },
            "sk");
    assertThat(t.space().size()).isEqualTo(20);
    SyntheticCost m = new SyntheticCost();
    List<TuningRecord> log = new ArrayList<>();
    Tuner.Options o = Tuner.Options.defaults().withTrials(100).withBatch(4);
    Tuner.Result r = Tuner.tune(t, m, o, log, batch -> log.addAll(records(t, m, batch)), p -> {});
    assertThat(m.asked).hasSize(11);
    assertThat(m.asked.stream().filter(c -> c.values().get("sketch") == 1)).hasSize(1);
    assertThat(r.measured()).hasSize(11);
    // Resumed from the log, the other nine are known without measuring.
    SyntheticCost again = new SyntheticCost();
    Tuner.tune(t, again, o, log, b -> {}, p -> {});
    assertThat(again.asked).isEmpty();
  }

  @Test
  void aSearchCutByItsTimeLimitFollowsTheModelNotTheIndexOrder() {
    // 256 configurations, all within the trial budget, but 150 ms a round and 1.8 s in all: at
    // most 12 rounds of 8. In index order those reach one corner of the grid (time 39 or more);
    // the model's order heads for the optimum at (15, 15), time 29.
    TuningTask t = gridTask(16);
    SyntheticCost slow =
        new SyntheticCost() {
          @Override
          public List<Measurement> measure(TuningTask task, List<Configuration> batch) {
            try {
              Thread.sleep(150);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return super.measure(task, batch);
          }
        };
    Tuner.Options o = new Tuner.Options(10_000, 8, 0, Duration.ofMillis(1800), 7, List.of());
    Tuner.Result r = Tuner.tune(t, slow, o, List.of(), b -> {}, p -> {});
    assertThat(slow.asked.size()).isLessThanOrEqualTo(12 * 8);
    assertThat(r.exhaustive()).isFalse();
    assertThat(r.best().medianUs()).isLessThanOrEqualTo(35.0);
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(Tuner.Strategy.class)
  void largeSpacesAreSearchedWithinTheBudgetAndFindGoodPoints(Tuner.Strategy strategy) {
    TuningTask t = gridTask(64);
    SyntheticCost m = new SyntheticCost();
    List<String> progress = new ArrayList<>();
    // The grid's knobs do not change the schedule: the learned model sees them only as knob
    // coordinates, next to loop features that are all alike.
    Tuner.Options o =
        new Tuner.Options(120, 8, 0, Duration.ofMinutes(1), 7, List.of()).withStrategy(strategy);
    Tuner.Result r = Tuner.tune(t, m, o, List.of(), b -> {}, p -> progress.add(p.line()));
    assertThat(r.space().size()).isEqualTo(64 * 64);
    assertThat(r.exhaustive()).isFalse();
    assertThat(m.asked).hasSize(120);
    assertThat(m.asked.stream().map(Configuration::key).distinct().count()).isEqualTo(120);
    // Random search alone would expect a best near 1 + 2 * 64 / (3 * 11) ~ 5; either guided search
    // gets much closer.
    assertThat(r.best().medianUs()).isLessThanOrEqualTo(4.0);
    assertThat(progress.get(progress.size() - 1)).startsWith("Test/grid: 120/120 trials, best ");
  }

  @Test
  void earlyStoppingEndsASearchThatDoesNotImprove() {
    TuningTask t = gridTask(64);
    Measurer flat =
        new SyntheticCost() {
          @Override
          public List<Measurement> measure(TuningTask task, List<Configuration> batch) {
            return batch.stream().map(c -> Measurement.ok(c, 5, 5, List.of())).toList();
          }
        };
    Tuner.Options o = new Tuner.Options(500, 4, 12, Duration.ofMinutes(1), 1, List.of());
    Tuner.Result r = Tuner.tune(t, flat, o, List.of(), b -> {}, p -> {});
    assertThat(r.measured().size()).isLessThanOrEqualTo(20);
  }

  @Test
  void knownConfigurationsGoFirstAndRejectedOnesCostNoBudget() {
    TuningTask t = gridTask(64);
    SyntheticCost m =
        new SyntheticCost() {
          @Override
          public List<Measurement> measure(TuningTask task, List<Configuration> batch) {
            List<Measurement> out = new ArrayList<>();
            for (Configuration c : batch) {
              asked.add(c);
              // Odd x is "over the device's limits".
              out.add(
                  c.values().get("x") % 2 == 1
                      ? Measurement.failed(c, Measurement.Status.INVALID, List.of(), "too big")
                      : Measurement.ok(c, 10 + c.values().get("y"), 10, List.of()));
            }
            return out;
          }
        };
    Configuration known = Configuration.of(Map.of("x", 40, "y", 0));
    Tuner.Options o = new Tuner.Options(10, 4, 0, Duration.ofMinutes(1), 3, List.of(known));
    Tuner.Result r = Tuner.tune(t, m, o, List.of(), b -> {}, p -> {});
    assertThat(m.asked.get(0)).isEqualTo(known);
    assertThat(r.best().config()).isEqualTo(known);
    assertThat(r.measured().stream().filter(x -> x.status() != Measurement.Status.INVALID))
        .hasSize(10);
    assertThat(r.measured().size()).isGreaterThan(10);
  }

  static List<TuningRecord> records(TuningTask t, Measurer m, List<Measurement> batch) {
    return batch.stream()
        .map(
            x ->
                new TuningRecord(
                    t.operator(),
                    t.target().name(),
                    m.deviceName(),
                    m.versions(),
                    t.shape(),
                    x.config(),
                    x.trace(),
                    x.status().name(),
                    x.medianUs(),
                    x.minUs(),
                    x.detail(),
                    ""))
        .toList();
  }

  @Test
  void gpuLimitsCountThreadsAndSharedMemory() {
    int n = 64;
    Tensor a = placeholder("A", FLOAT32, n, n);
    Tensor c = compute("C", shape(n, n), (i, j) -> Binary.of(BinOp.MUL, a.at(i, j), a.at(i, j)));
    Schedule s = Schedule.create(c);
    Tensor as = s.cacheRead(a, "shared", c);
    Stage st = s.stage(c);
    Stage.Split si = st.split(st.axis(0), 32);
    Stage.Split sj = st.split(st.axis(1), 32);
    st.reorder(si.outer(), sj.outer(), si.inner(), sj.inner());
    st.bind(si.outer(), "blockIdx.y");
    st.bind(sj.outer(), "blockIdx.x");
    st.bind(si.inner(), "threadIdx.y");
    st.bind(sj.inner(), "threadIdx.x");
    s.stage(as).computeAt(st, sj.outer());
    PrimFunc f = dev.kernelgen.lower.Lower.lower(s, "sq", List.of(a, c), Target.CUDA, null);
    assertThat(new GpuLimits(1024, 48 * 1024).check(f)).isNull();
    assertThat(new GpuLimits(512, 48 * 1024).check(f)).contains("1024 threads per block");
    assertThat(new GpuLimits(1024, 1024).check(f)).contains("4096 bytes of shared memory");
  }
}
