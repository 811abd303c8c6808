package dev.kernelgen.maven.tune;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.driver.GenerateRequest;
import dev.kernelgen.driver.KernelDriver;
import dev.kernelgen.maven.generate.Generator;
import dev.kernelgen.measure.CHarnessMeasurer;
import dev.kernelgen.measure.DeviceMeasurer;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.Measurer;
import dev.kernelgen.tune.Tuner;
import dev.kernelgen.tune.TuningLog;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Runs {@code kernels:tune}: see the package documentation. */
public final class TuneRunner {
  private TuneRunner() {}

  /** One operator's search, for the summary. */
  public record Tuned(TuningTask task, Tuner.Result result, String device) {}

  /**
   * Tunes every operator of fixed shape of the specs on the devices present.
   *
   * @throws UserError when a spec does not compile or a search cannot start
   */
  public static List<Tuned> run(TuneSettings s) {
    List<Path> specs = Generator.specFiles(s.specDirectory());
    if (specs.isEmpty()) {
      s.info().accept("no kernel specs in " + s.specDirectory() + ": nothing to tune");
      return List.of();
    }
    NativeToolchain tc =
        NativeToolchain.fromEnvironment()
            .withCc(s.cc())
            .withNvcc(s.nvcc())
            .withIsaLevels(s.cpuIsaLevels());
    GenerateRequest.Builder req = GenerateRequest.builder();
    if (Generator.loadSpecs(specs, s.classPath(), req) == 0) {
      s.info().accept("no class in " + s.specDirectory() + " is annotated @KernelLibrary");
      return List.of();
    }
    req.targets(s.targets())
        .toolchain(tc)
        .resourcesDir(s.tuningDirectory().resolve("unused"))
        .log(s.info());
    List<TuningTask> tasks = KernelDriver.tuningTasks(req.build(), s.raceGenerated());
    tasks =
        tasks.stream()
            .filter(
                t ->
                    s.operators().isEmpty()
                        || s.operators().stream().anyMatch(t.operator()::contains))
            .toList();
    if (tasks.isEmpty()) {
      s.info().accept("no operator of fixed shape to tune");
      return List.of();
    }
    List<TuningRecord> previous =
        TuningLog.readDirectory(s.tuningDirectory(), w -> s.info().accept("warning: " + w));
    Map<Target, Measurer> measurers = new EnumMap<>(Target.class);
    Map<Target, String> missing = new EnumMap<>(Target.class);
    List<Tuned> out = new ArrayList<>();
    try {
      tuneAll(tasks, tc, s, previous, measurers, missing, out);
    } finally {
      // The C harness's reference data, the device measurer's reference tensors.
      for (Measurer m : measurers.values()) {
        m.close();
      }
    }
    missing.forEach(
        (t, why) -> s.info().accept("not tuned for " + t + ": no device (" + why + ")"));
    return out;
  }

  private static void tuneAll(
      List<TuningTask> tasks,
      NativeToolchain tc,
      TuneSettings s,
      List<TuningRecord> previous,
      Map<Target, Measurer> measurers,
      Map<Target, String> missing,
      List<Tuned> out) {
    for (TuningTask task : tasks) {
      Measurer m = measurer(task.target(), tc, s, measurers, missing);
      if (m == null) {
        continue;
      }
      String library = task.operator().substring(0, task.operator().indexOf('/'));
      Path log = s.tuningDirectory().resolve(library + ".jsonl");
      long size = task.space().size();
      s.info()
          .accept(
              String.format(
                  Locale.ROOT,
                  "tuning %s (%s) for %s on %s: %d configuration(s) of %s",
                  task.operator(),
                  task.kernelName()
                      + (KernelDriver.generatedSchedules(task) ? ", generated schedules" : ""),
                  task.target(),
                  m.deviceName(),
                  size,
                  task.space().knobs().keySet()));
      Tuner.Options o =
          Tuner.Options.defaults()
              .withTrials(s.trials())
              .withPatience(s.patience())
              .withTimeLimit(s.timeLimit())
              .withFirst(
                  KernelDriver.firstCandidates(
                      task, m instanceof CHarnessMeasurer c ? c.isaLevel() : null));
      Tuner.Result r =
          Tuner.tune(
              task,
              m,
              o,
              previous,
              batch -> TuningLog.append(log, TuningRecord.of(task, m, batch)),
              p -> s.info().accept("  " + bar(p.done(), p.planned()) + " " + p.line()));
      out.add(new Tuned(task, r, m.deviceName()));
      String table = table(r, previous, task, m.deviceName());
      if (table != null) {
        s.info().accept("  median us, " + table.strip().replace("\n", "\n  "));
      }
      s.info()
          .accept(
              String.format(
                  Locale.ROOT,
                  "  %s %s: %s; %d trial(s) (%d failed), %d already in the log, %.1f s -> %s",
                  task.operator(),
                  task.target(),
                  r.best() == null
                      ? "no configuration ran"
                      : String.format(
                          Locale.ROOT, "best %.2f us %s", r.best().medianUs(), r.best().config()),
                  r.measured().size(),
                  r.failed(),
                  r.resumed(),
                  r.elapsed().toMillis() / 1000.0,
                  log));
      s.info().accept("  " + task.operator() + " " + task.target() + ": " + r.reachedLine());
    }
  }

  private static Measurer measurer(
      Target t,
      NativeToolchain tc,
      TuneSettings s,
      Map<Target, Measurer> measurers,
      Map<Target, String> missing) {
    if (measurers.containsKey(t)) {
      return measurers.get(t);
    }
    if (missing.containsKey(t)) {
      return null;
    }
    int cpus = Runtime.getRuntime().availableProcessors();
    Measurer m =
        switch (t) {
          case C -> {
            tc.cc(); // a missing compiler is a user error naming it
            yield new CHarnessMeasurer(tc, cpus, 3, s.repeats(), 120)
                .cachingReferencesIn(s.tuningDirectory().resolve("references"));
          }
          case CUDA, OPENCL -> {
            var probe = Devices.probe(t);
            if (probe.device().isEmpty()) {
              missing.put(t, probe.detail());
              yield null;
            }
            yield new DeviceMeasurer(probe.device().get(), tc, cpus)
                .referencesFrom(
                    new CHarnessMeasurer(tc, 1, 0, 1, 600)
                        .cachingReferencesIn(s.tuningDirectory().resolve("references")));
          }
          case JAVA -> null;
        };
    if (m != null) {
      measurers.put(t, m);
    }
    return m;
  }

  /**
   * A two-knob space measured whole, as a table of median microseconds (the seed article's
   * thread-pair table): rows are the first knob's values, columns the second's; null for other
   * spaces.
   */
  static String table(Tuner.Result r, List<TuningRecord> previous, TuningTask task, String device) {
    Map<String, List<Integer>> knobs = r.space().knobs();
    if (knobs.size() != 2 || !r.exhaustive()) {
      return null;
    }
    Map<String, Double> us = new java.util.HashMap<>();
    for (TuningRecord p : previous) {
      if (p.isOk()
          && p.operator().equals(task.operator())
          && p.target().equals(task.target().name())
          && p.device().equals(device)
          && p.shape().equals(task.shape())) {
        us.put(p.config().key(), p.medianUs());
      }
    }
    for (Measurement x : r.measured()) {
      if (x.isOk()) {
        us.put(x.config().key(), x.medianUs());
      }
    }
    List<String> names = new ArrayList<>(knobs.keySet());
    List<Integer> rows = knobs.get(names.get(0)).stream().sorted().toList();
    List<Integer> cols = knobs.get(names.get(1)).stream().sorted().toList();
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%s \\ %s:%n", names.get(0), names.get(1)));
    sb.append(String.format(Locale.ROOT, "%8s", ""));
    for (int c : cols) {
      sb.append(String.format(Locale.ROOT, " %9d", c));
    }
    sb.append('\n');
    for (int row : rows) {
      sb.append(String.format(Locale.ROOT, "%8d", row));
      for (int c : cols) {
        Double v =
            us.get(
                dev.kernelgen.tune.Configuration.of(Map.of(names.get(0), row, names.get(1), c))
                    .key());
        sb.append(
            v == null
                ? String.format(Locale.ROOT, " %9s", "-")
                : String.format(Locale.ROOT, " %9.2f", v));
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  /** {@code [#####---------------]}: how much of the planned trials are done. */
  static String bar(int done, int planned) {
    int width = 20;
    int full = planned == 0 ? width : (int) Math.round((double) width * done / planned);
    return "[" + "#".repeat(full) + "-".repeat(width - full) + "]";
  }
}
