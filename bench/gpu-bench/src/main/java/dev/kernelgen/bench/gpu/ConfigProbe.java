package dev.kernelgen.bench.gpu;

import dev.kernelgen.bench.CpuInfo;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.measure.CHarnessMeasurer;
import dev.kernelgen.measure.DeviceMeasurer;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuningTask;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Times chosen configurations of one of {@link TuningCostBench}'s operators' generated schedules on
 * the GPU, each checked against the oracle like a tuning trial: a probe of what a rule would pick
 * before the rule is written.
 *
 * <p>Usage: {@code ConfigProbe OPERATOR CONFIG...} (OPERATOR: a name of {@link TuningCostBench}'s
 * operators, large, extra or small, or of {@link FloorBench}'s or {@link NewUserOps}'), each CONFIG
 * {@code knob=value,knob=value} (knob names as the task's space prints them; a name without a dot
 * is taken as the operator's first tiled stage's, e.g. {@code reg2=8} for {@code
 * DepthwiseConv2d.reg2}); {@code untuned} is the rules' pick. {@code bench/gpu.sh probe OUT
 * OPERATOR CONFIG...} on the GPU machine.
 */
public final class ConfigProbe {
  private ConfigProbe() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      throw new IllegalArgumentException("usage: ConfigProbe OPERATOR CONFIG...");
    }
    Device device = TuningCostBench.gpu();
    System.out.println(CpuInfo.detect().line());
    System.out.println("device: " + device.name());
    List<String> texts = List.of(args).subList(1, args.length);
    List<Measurement> ms = probe(device, args[0], texts, System.out::println);
    for (Measurement r : ms) {
      System.out.printf(
          "%-10s %s%n",
          r.isOk() ? String.format("%.2f us", r.medianUs()) : r.status(),
          r.config().key() + (r.isOk() ? "" : " " + r.detail()));
    }
  }

  /**
   * Measures the configurations {@code texts} ({@code knob=value,...} or {@code untuned}) of the
   * generated schedules of the benchmark operator {@code name} on {@code device}, in order; {@code
   * log} gets the task's space.
   */
  static List<Measurement> probe(
      Device device, String name, List<String> texts, java.util.function.Consumer<String> log) {
    List<TuningCostBench.Op> all = new ArrayList<>(TuningCostBench.operators(false));
    all.addAll(TuningCostBench.extraOperators());
    all.addAll(TuningCostBench.operators(true));
    // And FloorBench's operators (the user operators among them) and the new-user set's, by name.
    List<FloorBench.Op> floor = new ArrayList<>(FloorBench.operators());
    floor.addAll(NewUserOps.all());
    for (FloorBench.Op op : floor) {
      all.add(new TuningCostBench.Op(op.name(), op.def()));
    }
    TuningCostBench.Op op =
        all.stream()
            .filter(o -> o.name().equals(name))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "no operator '"
                            + name
                            + "'; known: "
                            + all.stream().map(TuningCostBench.Op::name).toList()));
    TuningTask task = TuningCostBench.task(op, device.target());
    log.accept("space: " + task.space());
    String stage =
        task.space().knobs().keySet().stream()
            .filter(k -> k.contains("."))
            .map(k -> k.substring(0, k.indexOf('.')))
            .findFirst()
            .orElse("");
    List<Configuration> configs = new ArrayList<>();
    for (String text : texts) {
      configs.add(
          text.equals("untuned") ? TuningCostBench.untunedConfig(task, op) : parse(text, stage));
    }
    int cores = Runtime.getRuntime().availableProcessors();
    try (CHarnessMeasurer refs = CHarnessMeasurer.fromEnvironment();
        DeviceMeasurer m =
            new DeviceMeasurer(device, NativeToolchain.fromEnvironment(), cores)
                .referencesFrom(refs)) {
      return m.measure(task, configs);
    }
  }

  private static Configuration parse(String text, String stage) {
    SortedMap<String, Integer> m = new TreeMap<>();
    OpsGpuBench.knobValues(text, "configuration")
        .forEach(
            (name, value) ->
                m.put(
                    name.contains(".") || name.equals("sketch") ? name : stage + "." + name,
                    value));
    return new Configuration(m);
  }
}
