package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AnalyticPredictor;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.autosched.SketchRules;
import dev.kernelgen.bench.CpuInfo;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.driver.KernelDriver;
import dev.kernelgen.json.Json;
import dev.kernelgen.measure.CHarnessMeasurer;
import dev.kernelgen.measure.DeviceMeasurer;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Reduction;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.Tuner;
import dev.kernelgen.tune.TuningLog;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Issue 13's tuning cost: the auto-scheduler's generated schedules alone (no template), searched by
 * the evolutionary search over the learned cost model under a time budget per operator, once with a
 * cold model and once warmed with the other operators' records of the cold runs (transfer). For
 * each: the untuned pick's time, the best found, the trials and seconds after which 90% of the
 * final speed had been measured ({@link Tuner.Result#trialsTo90()}, {@code timeTo90()}).
 *
 * <p>Usage: {@code TuningCostBench OUT_JSON [--seconds S] [--only TEXT] [--small] [--ops NAMES]
 * [--modes cold,warm] [--log FILE] [--warm-from FILE]}; {@code bench/gpu.sh tuning-cost OUT} on the
 * GPU machine (CUDA; elsewhere the first OpenCL device). {@code --small} shrinks every shape for a
 * quick check on PoCL. References of large shapes come from the naive C loop nest, computed once
 * per task.
 *
 * <p>{@code --ops} names the operators to search, separated by commas, from the four of the issue
 * and {@link #extraOperators the extra ones} (default: the four). {@code --log} appends every
 * record of every search to a tuning log, which {@code OpsGpuBench --tuned} reads: the best record
 * of each operator is the "final speed" of issue 13 (the searches may span several runs that append
 * to one log). {@code --warm-from} warms the model with the records of such a log (of the other
 * operators) instead of this run's cold searches, so that the cold and warm runs can be two calls.
 */
public final class TuningCostBench {
  private TuningCostBench() {}

  record Op(String name, OperatorDef def) {}

  /** The four operators of the issue (or, with {@code small}, each at a shape PoCL runs fast). */
  static List<Op> operators(boolean small) {
    int rows = small ? 256 : 16384;
    int cols = small ? 128 : 1024;
    Tensor x = placeholder("X", FLOAT32, rows, cols);
    Tensor gamma = placeholder("Gamma", FLOAT32, cols);
    Tensor beta = placeholder("Beta", FLOAT32, cols);
    return List.of(
        matmul(small ? 96 : 2048),
        small ? conv2d(1, 8, 14) : conv2d(32, 64, 56),
        new Op(
            "layer_norm_" + rows + "x" + cols,
            OperatorDef.of(List.of(x, gamma, beta), Nn.layerNorm(x, gamma, beta, 1, 1e-5))),
        small ? depthwiseFused(1, 16, 24) : depthwiseFused(1, 256, 96));
  }

  /**
   * Operators searched only when named by {@code --ops}: the benchmark's other matmul and conv2d
   * shapes and the seed's fused depthwise at batch 32, so that {@code OpsGpuBench --tuned} has
   * records for them too.
   */
  static List<Op> extraOperators() {
    return List.of(
        matmul(1024),
        matmul(4096),
        depthwiseFused(32, 256, 96),
        conv2d(1, 64, 56),
        attention(256),
        attention(1024));
  }

  /**
   * One head of attention, {@code softmax(q k^T / 8) v} over {@code [seq, 64]}, as a user writes it
   * (bench/user-projects/attention-head).
   */
  static Op attention(int seq) {
    int d = 64;
    Tensor q = placeholder("q", FLOAT32, seq, d);
    Tensor k = placeholder("k", FLOAT32, seq, d);
    Tensor v = placeholder("v", FLOAT32, seq, d);
    Tensor weights = Reduction.softmax(Elementwise.scale(Linalg.dense(q, k), 0.125), 1);
    return new Op(
        "attention_" + seq + "x" + d, OperatorDef.of(List.of(q, k, v), Linalg.matmul(weights, v)));
  }

  /** A square float32 matmul of side {@code n}. */
  private static Op matmul(int n) {
    Tensor a = placeholder("A", FLOAT32, n, n);
    Tensor b = placeholder("B", FLOAT32, n, n);
    return new Op("matmul_" + n, OperatorDef.of(List.of(a, b), Linalg.matmul(a, b)));
  }

  /** A 3x3 conv2d (padding 1) of {@code [batch, c, hw, hw]} with {@code c} filters. */
  private static Op conv2d(int batch, int c, int hw) {
    Tensor in = placeholder("Input", FLOAT32, batch, c, hw, hw);
    Tensor f = placeholder("Filter", FLOAT32, c, c, 3, 3);
    return new Op(
        "conv2d_" + batch + "x" + c + "x" + hw + "x" + hw + "_f" + c,
        OperatorDef.of(List.of(in, f), Conv.conv2dNchw(in, f, 1, 1, new Padding(1, 1, 1, 1), 1)));
  }

  /**
   * The seed's fused depthwise (3x3, padding 1, + scale_shift + relu) of {@code [batch, ch, side,
   * side]}.
   */
  static Op depthwiseFused(int batch, int ch, int side) {
    Tensor input = placeholder("input", FLOAT32, batch, ch, side, side);
    Tensor filter = placeholder("filter", FLOAT32, ch, 1, 3, 3);
    Tensor scale = placeholder("scale", FLOAT32, ch);
    Tensor shift = placeholder("shift", FLOAT32, ch);
    Tensor conv = Nn.depthwiseConv2dNchw(input, filter, 1, 1, new Padding(1, 1, 1, 1), 1);
    return new Op(
        "depthwise_fused_" + batch + "x" + ch + "x" + side + "x" + side,
        OperatorDef.of(
            List.of(input, filter, scale, shift), Nn.relu(Nn.scaleShift(conv, scale, shift))));
  }

  /** The tuning task's operator name of the benchmark operator {@code name}. */
  static String taskName(String name) {
    return "TuningCostBench/" + name;
  }

  /** The CUDA device, else the first OpenCL device. */
  static Device gpu() {
    Optional<? extends Device> gpu = Devices.cuda().isPresent() ? Devices.cuda() : Devices.openCl();
    return gpu.orElseThrow(
        () -> new IllegalStateException("no CUDA or OpenCL device: " + Devices.describe()));
  }

  /** The generated schedules' space of {@code op}: what {@code kernels:tune} searches for it. */
  static TuningTask task(Op op, Target target) {
    return new TuningTask(
        taskName(op.name()),
        target,
        op.def(),
        knobs -> AutoScheduler.generate(target, op.def().outputs(), knobs),
        "k");
  }

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 && !args[0].startsWith("--") ? args[0] : "tuning-cost.json");
    List<String> a = List.of(args);
    int seconds =
        a.contains("--seconds") ? Integer.parseInt(a.get(a.indexOf("--seconds") + 1)) : 60;
    String only = a.contains("--only") ? a.get(a.indexOf("--only") + 1) : null;
    boolean small = a.contains("--small");
    List<String> names =
        a.contains("--ops") ? List.of(a.get(a.indexOf("--ops") + 1).split(",")) : List.of();
    List<String> modes =
        a.contains("--modes")
            ? List.of(a.get(a.indexOf("--modes") + 1).split(","))
            : List.of("cold", "warm");
    Path log = a.contains("--log") ? Path.of(a.get(a.indexOf("--log") + 1)) : null;
    Path warmFrom = a.contains("--warm-from") ? Path.of(a.get(a.indexOf("--warm-from") + 1)) : null;
    Device device = gpu();
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    int cores = Runtime.getRuntime().availableProcessors();
    CpuInfo cpu = CpuInfo.detect();
    System.out.println(cpu.line());
    System.out.println("device: " + device.name() + ", budget " + seconds + " s per search");
    List<Op> all = new ArrayList<>(operators(small));
    all.addAll(extraOperators());
    for (String n : names) {
      if (all.stream().noneMatch(o -> o.name().equals(n))) {
        throw new IllegalArgumentException(
            "--ops: no operator '" + n + "'; known: " + all.stream().map(Op::name).toList());
      }
    }
    List<Op> ops =
        (names.isEmpty() ? operators(small) : all)
            .stream()
                .filter(o -> names.isEmpty() || names.contains(o.name()))
                .filter(o -> only == null || o.name().contains(only))
                .toList();
    Map<String, List<TuningRecord>> coldRecords = new LinkedHashMap<>();
    if (warmFrom != null) {
      for (TuningRecord r : TuningLog.read(warmFrom, w -> System.err.println("warning: " + w))) {
        coldRecords.computeIfAbsent(r.operator(), k -> new ArrayList<>()).add(r);
      }
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    try (CHarnessMeasurer refs = CHarnessMeasurer.fromEnvironment();
        DeviceMeasurer m = new DeviceMeasurer(device, tc, cores).referencesFrom(refs)) {
      System.out.printf(
          "%-32s %-5s %10s %10s %8s %7s %8s %8s%n",
          "operator", "model", "untuned_us", "best_us", "trials", "to90", "to90_s", "search_s");
      for (String mode : modes) {
        for (Op op : ops) {
          TuningTask task = task(op, device.target());
          List<TuningRecord> previous = new ArrayList<>();
          if (mode.equals("warm")) {
            coldRecords.forEach(
                (name, recs) -> {
                  if (!name.equals(taskName(op.name()))) {
                    previous.addAll(recs);
                  }
                });
          }
          Measurement untuned = untuned(m, task, op);

          List<TuningRecord> records = new ArrayList<>();
          Tuner.Options o =
              Tuner.Options.defaults()
                  .withTrials(100_000)
                  .withBatch(Math.max(2, cores))
                  .withPatience(0)
                  .withTimeLimit(Duration.ofSeconds(seconds))
                  .withTransfer(mode.equals("warm"))
                  .withFirst(KernelDriver.firstCandidates(task));
          Tuner.Result r =
              Tuner.tune(
                  task,
                  m,
                  o,
                  previous,
                  batch -> {
                    List<TuningRecord> made = TuningRecord.of(task, m, batch);
                    records.addAll(made);
                    if (log != null) {
                      TuningLog.append(log, made);
                    }
                  },
                  p -> {});
          if (mode.equals("cold")) {
            coldRecords.put(task.operator(), records);
          }
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("operator", op.name());
          row.put("model", mode);
          row.put("untuned_us", untuned.isOk() ? untuned.medianUs() : null);
          row.put("best_us", r.best() != null && r.best().isOk() ? r.best().medianUs() : null);
          row.put("best_config", r.best() != null ? r.best().config().key() : null);
          row.put("trials", r.measured().size());
          row.put("failed", r.failed());
          row.put("trials_to_90", r.trialsTo90());
          row.put("seconds_to_90", r.timeTo90().toMillis() / 1e3);
          row.put("search_seconds", r.elapsed().toMillis() / 1e3);
          row.put("warmed_with_records", previous.size());
          rows.add(row);
          System.out.printf(
              "%-32s %-5s %10s %10s %8d %7d %8.1f %8.1f%n",
              op.name(),
              mode,
              untuned.isOk() ? String.format("%.1f", untuned.medianUs()) : untuned.status(),
              row.get("best_us") == null ? "-" : String.format("%.1f", (Double) row.get("best_us")),
              r.measured().size(),
              r.trialsTo90(),
              r.timeTo90().toMillis() / 1e3,
              r.elapsed().toMillis() / 1e3);
        }
      }
    }
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("machine", cpu.toJson());
    report.put("device", device.name());
    report.put("seconds_per_search", seconds);
    report.put("rows", rows);
    Files.writeString(out, Json.pretty(report));
  }

  /**
   * The untuned pick (what {@code generate} embeds without a record): the rules' configuration
   * chosen by the shipped model, measured as a trial of the task.
   */
  private static Measurement untuned(DeviceMeasurer m, TuningTask task, Op op) {
    return m.measure(task, List.of(untunedConfig(task, op))).get(0);
  }

  /** The rules' configuration of {@code op}'s task chosen by the shipped model. */
  static Configuration untunedConfig(TuningTask task, Op op) {
    return AutoScheduler.untunedConfig(
        task.target(), op.def().outputs(), SketchRules.defaults(), new AnalyticPredictor());
  }
}
