package dev.kernelgen.tune.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.measure.CHarnessMeasurer;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuneTasks;
import dev.kernelgen.tune.Tuner;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The old search (simulated annealing over the nearest-neighbour model) against the new (evolution
 * over gradient-boosted trees, cold and warmed with another shape's records) on C matmul spaces,
 * same trial budget, real timings. Not part of the build (minutes of compiling and timing); run it
 * with
 *
 * <pre>
 * ./mvnw -o -q -pl compiler-core -am test -Dtest=StrategyComparisonTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dkernelgen.compareStrategies=512
 * </pre>
 *
 * The value is the matmul's size; {@code -Dkernelgen.compareSpace=tiled} takes {@link
 * TuneTasks#tiledMatmul}'s large space instead of the topi template's 64 configurations ({@code
 * kernelgen.compareTrials}, {@code kernelgen.compareSeeds}, {@code kernelgen.compareThreads} set
 * the budget, the seeds and {@code OMP_NUM_THREADS}, default 24, 3 and 1). Warm runs find in the
 * log the records of the half-size matmul: its whole space (topi) or a 64-trial search (tiled). It
 * prints a table and writes it to {@code target/tune-comparison-<space>-<n>.txt}.
 */
@Isolated("compares searches by real timings")
class StrategyComparisonTest {

  record Row(String name, Tuner.Strategy strategy, boolean warm) {}

  record Run(Row row, int seed, Tuner.Result result) {}

  @Test
  void compareSearchStrategies() throws Exception {
    String size = System.getProperty("kernelgen.compareStrategies");
    assumeThat(size)
        .as("-Dkernelgen.compareStrategies=<matmul size> runs the comparison")
        .isNotNull();
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    int n = Integer.parseInt(size);
    int trials = Integer.getInteger("kernelgen.compareTrials", 24);
    int seeds = Integer.getInteger("kernelgen.compareSeeds", 3);
    String threads = System.getProperty("kernelgen.compareThreads", "1");
    boolean tiled = System.getProperty("kernelgen.compareSpace", "topi").equals("tiled");
    CHarnessMeasurer m =
        new CHarnessMeasurer(NativeToolchain.fromEnvironment(), 2, 1, 7, 120)
            .withEnvironment(Map.of("OMP_NUM_THREADS", threads));
    TuningTask task =
        tiled ? TuneTasks.tiledMatmul(n, Target.C) : TuneTasks.matmul(n, n, n, Target.C);
    TuningTask warmup =
        tiled
            ? TuneTasks.tiledMatmul(n / 2, Target.C)
            : TuneTasks.matmul(n / 2, n / 2, n / 2, Target.C);
    List<TuningRecord> log = new ArrayList<>();
    if (tiled) {
      Tuner.tune(
          warmup,
          m,
          new Tuner.Options(64, 8, 0, Duration.ofMinutes(30), 99, List.of()),
          List.of(),
          b -> b.forEach(x -> log.add(record(warmup, m, x))),
          p -> {});
    } else {
      CandidateFeatures wf = new CandidateFeatures(warmup);
      ConfigSpace ws = warmup.space();
      List<Configuration> all = new ArrayList<>();
      for (long i = 0; i < ws.size(); i++) {
        all.add(ws.get(i));
      }
      for (Measurement x : m.measure(warmup, all)) {
        log.add(record(warmup, m, x.withFeatures(wf.of(x.config()))));
      }
    }
    ConfigSpace s = task.space();
    double optimum = Double.MAX_VALUE;
    String reference = "the best any search found";
    if (!tiled) {
      List<Configuration> everything = new ArrayList<>();
      for (long i = 0; i < s.size(); i++) {
        everything.add(s.get(i));
      }
      for (Measurement x : m.measure(task, everything)) {
        if (x.isOk()) {
          optimum = Math.min(optimum, x.medianUs());
        }
      }
      reference = "the best of the whole space, measured once";
    }
    List<Row> rows =
        List.of(
            new Row("annealing + kNN", Tuner.Strategy.ANNEALING, false),
            new Row("evolutionary + GBT, cold", Tuner.Strategy.EVOLUTIONARY, false),
            new Row("evolutionary + GBT, warm", Tuner.Strategy.EVOLUTIONARY, true));
    List<Run> runs = new ArrayList<>();
    for (Row row : rows) {
      for (int seed = 1; seed <= seeds; seed++) {
        Tuner.Options o =
            new Tuner.Options(trials, 8, 0, Duration.ofMinutes(30), seed, List.of())
                .withStrategy(row.strategy())
                .withTransfer(row.warm());
        Tuner.Result r = Tuner.tune(task, m, o, row.warm() ? log : List.of(), b -> {}, p -> {});
        assertThat(r.best()).isNotNull();
        runs.add(new Run(row, seed, r));
        if (tiled) {
          optimum = Math.min(optimum, r.best().medianUs());
        }
      }
    }
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "CPU: %s, ISA: %s; OMP_NUM_THREADS=%s; %s%n",
            m.deviceName(),
            isa(),
            threads,
            m.versions().get("toolchain")));
    out.append(
        String.format(
            Locale.ROOT,
            "matmul %d^3, %s, %d configurations; %d trials per search, batch 8, seeds 1..%d;"
                + " warm: the log holds %d records of matmul %d^3 with features;"
                + " 'vs best' is over %s (%.1f us)%n",
            n,
            tiled ? "a tiled space like a sketch's" : "the topi C template",
            s.size(),
            trials,
            seeds,
            log.size(),
            n / 2,
            reference,
            optimum));
    out.append(
        String.format(
            Locale.ROOT,
            "%-26s %5s %10s %8s %8s %8s%n",
            "search",
            "seed",
            "best us",
            "vs best",
            "to 90%",
            "s to 90%"));
    for (Row row : rows) {
      double sumBest = 0;
      double sumTrials = 0;
      double sumSeconds = 0;
      for (Run run : runs.stream().filter(x -> x.row() == row).toList()) {
        Tuner.Result r = run.result();
        sumBest += r.best().medianUs() / seeds;
        sumTrials += (double) r.trialsTo90() / seeds;
        sumSeconds += r.timeTo90().toMillis() / 1000.0 / seeds;
        out.append(
            String.format(
                Locale.ROOT,
                "%-26s %5d %10.1f %8.2f %8d %8.1f%n",
                row.name(),
                run.seed(),
                r.best().medianUs(),
                r.best().medianUs() / optimum,
                r.trialsTo90(),
                r.timeTo90().toMillis() / 1000.0));
      }
      out.append(
          String.format(
              Locale.ROOT,
              "%-26s %5s %10.1f %8.2f %8.1f %8.1f%n",
              row.name(),
              "mean",
              sumBest,
              sumBest / optimum,
              sumTrials,
              sumSeconds));
    }
    System.out.print(out);
    Files.writeString(
        Path.of("target/tune-comparison-" + (tiled ? "tiled" : "topi") + "-" + n + ".txt"),
        out.toString());
  }

  private static TuningRecord record(TuningTask t, CHarnessMeasurer m, Measurement x) {
    return new TuningRecord(
            t.operator(),
            "C",
            m.deviceName(),
            m.versions(),
            t.shape(),
            x.config(),
            x.trace(),
            x.status().name(),
            x.medianUs(),
            x.minUs(),
            x.detail(),
            "")
        .withFeatures(x);
  }

  private static String isa() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("flags")) {
          List<String> isa = new ArrayList<>();
          for (String f :
              List.of("avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_bf16")) {
            if ((" " + line + " ").contains(" " + f + " ")) {
              isa.add(f);
            }
          }
          return String.join(" ", isa);
        }
      }
    } catch (Exception e) {
      // Not Linux.
    }
    return System.getProperty("os.arch");
  }
}
