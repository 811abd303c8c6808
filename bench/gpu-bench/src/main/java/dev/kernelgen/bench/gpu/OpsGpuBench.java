package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.bench.Workload;
import dev.kernelgen.json.Json;
import dev.kernelgen.measure.LaunchTiming;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.topi.DepthwiseSchedules.DirectConfig;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Reduction;
import dev.kernelgen.tune.TuningLog;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The operator benchmark on a GPU: matmul 1024/2048/4096 (float32), softmax over the rows of [4096,
 * 4096] (the library's lanes formulation), softmax and layer norm over [4096, 4096] and [16384,
 * 1024] as written ({@link RowNormCases}: the auto-scheduler's untuned pick, no template), 3x3
 * conv2d on [1,64,56,56] and [32,64,56,56] with 64 filters, each with kernelgen's untuned default
 * schedule ({@link DefaultSchedules}, knobs at their defaults), and again ({@code _auto} rows) with
 * the auto-scheduler's untuned pick (no template); and the conv + batch norm + swish sample through
 * its generated launcher ({@link ConvBnSwishGpu}: its tuned configuration).
 *
 * <p>First every default schedule is checked against the oracle on small ragged shapes, on this
 * device; then each workload is compiled, run once and spot-checked against float64 sums on the
 * host (sampled outputs), and timed per call (events around 200 launches, best of 7) and as GPU
 * time (50 launches in a CUDA graph, best of 7 replays). Writes {@code OUT_DIR/ops-ours.json}; the
 * PyTorch side is {@code bench/ops_torch.py}.
 *
 * <p>Usage: {@code OpsGpuBench OUT_DIR [--checks-only] [--only TEXT] [--conv-configs CONFIGS]
 * [--row-configs] [--tuned LOG]}.
 *
 * <p>{@code --tuned} (or the environment variable {@code KG_OPS_TUNED}) reads a tuning log of
 * {@link TuningCostBench}'s searches of the generated schedules: each {@code _auto} workload with a
 * record there is timed again ({@code _tuned} rows) with the best record's configuration, still no
 * template: issue 13's "final speed" over the committed log.
 *
 * <p>{@code --row-configs} (or the environment variable {@code KG_ROW_CONFIGS}) also times softmax
 * and layer norm at each thread count per row and with and without rows staged in shared memory
 * ({@link RowNormCases#configs}), to {@code OUT_DIR/ops-row-configs.txt}.
 *
 * <p>{@code --conv-configs} (or the environment variable {@code KG_CONV_CONFIGS}) also times each
 * conv2d workload with each of the given knob settings of {@link OpSchedules#conv2dGpu}: {@code
 * candidates} for {@link OpSchedules#conv2dGpuCandidates}, or settings separated by {@code ;}, each
 * {@code name=value,...} (knobs not named take their defaults). The timings go to the report's
 * {@code conv_configs} and to {@code OUT_DIR/ops-conv-configs.txt}, fastest first; a setting that
 * fails (compile, launch, sampled check) is reported with its error and the others still run.
 */
public final class OpsGpuBench {
  private static final int CALLS = 200;
  private static final int REPEATS = 7;
  private static final int SAMPLES = 256;

  private OpsGpuBench() {}

  /** One workload: the operator, its FLOP count (0 for softmax) and how to check a sample. */
  record Case(String name, OperatorDef op, double flops, Reference ref, Schedule schedule) {
    Case(String name, OperatorDef op, double flops, Reference ref) {
      this(name, op, flops, ref, null);
    }
  }

  /** The float64 value of output element {@code flat} from the host copies of the inputs. */
  interface Reference {
    double at(List<float[]> inputs, long flat);
  }

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 && !args[0].startsWith("--") ? args[0] : "bench/results");
    boolean checksOnly = List.of(args).contains("--checks-only");
    String only = null;
    String convConfigs = System.getenv("KG_CONV_CONFIGS");
    String tunedLog = System.getenv("KG_OPS_TUNED");
    for (int i = 0; i < args.length - 1; i++) {
      if (args[i].equals("--only")) {
        only = args[i + 1];
      }
      if (args[i].equals("--conv-configs")) {
        convConfigs = args[i + 1];
      }
      if (args[i].equals("--tuned")) {
        tunedLog = args[i + 1];
      }
    }
    List<Case> cases = cases();
    if (tunedLog != null && !tunedLog.isBlank()) {
      cases = withTuned(cases, Path.of(tunedLog));
    }
    List<Map<String, Integer>> configs = convConfigs(convConfigs);
    Files.createDirectories(out);
    Device device = GpuBench.gpu();
    System.out.printf("ops-gpu-bench on %s (%s)%n", device.name(), device.target());
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("device", device.name());
    report.put("checks", checks(device));
    List<Object> results = new ArrayList<>();
    report.put("results", results);
    if (!checksOnly) {
      for (Case c : cases) {
        if (only != null && !c.name().contains(only)) {
          continue;
        }
        results.add(measure(device, c, Knobs.defaults()));
        Files.writeString(out.resolve("ops-ours.json"), Json.pretty(report));
      }
      for (var d : ConvBnSwishGpu.SHAPES) {
        if (only == null || ConvBnSwishGpu.name(d).contains(only)) {
          results.add(ConvBnSwishGpu.measure(device, d));
          Files.writeString(out.resolve("ops-ours.json"), Json.pretty(report));
        }
      }
      if (!configs.isEmpty()) {
        List<Object> timed = new ArrayList<>();
        report.put("conv_configs", timed);
        StringBuilder table = new StringBuilder();
        for (Case c : cases()) {
          if (c.name().startsWith("conv2d_") && (only == null || c.name().contains(only))) {
            table.append(timeConfigs(device, c, configs, timed));
            Files.writeString(out.resolve("ops-ours.json"), Json.pretty(report));
          }
        }
        Files.writeString(out.resolve("ops-conv-configs.txt"), table);
        System.out.print(table);
      }
    }
    if (!checksOnly
        && (List.of(args).contains("--row-configs") || System.getenv("KG_ROW_CONFIGS") != null)) {
      List<Object> timed = new ArrayList<>();
      report.put("row_configs", timed);
      StringBuilder table = new StringBuilder();
      for (Case c : RowNormCases.cases()) {
        if (only == null || c.name().contains(only)) {
          table.append(timeConfigs(device, c, RowNormCases.configs(c), timed));
          Files.writeString(out.resolve("ops-ours.json"), Json.pretty(report));
        }
      }
      Files.writeString(out.resolve("ops-row-configs.txt"), table);
      System.out.print(table);
    }
    Files.writeString(out.resolve("ops-ours.json"), Json.pretty(report));
    System.out.println("wrote " + out.resolve("ops-ours.json"));
    device.close();
  }

  /** Every default GPU schedule of the benchmark's operators, on ragged shapes, on this device. */
  static List<Object> checks(Device device) {
    Map<String, OperatorDef> small = new LinkedHashMap<>();
    Tensor a = placeholder("A", FLOAT32, 67, 45);
    Tensor b = placeholder("B", FLOAT32, 45, 53);
    small.put("matmul_67x45x53", OperatorDef.of(List.of(a, b), Linalg.matmul(a, b)));
    Tensor x = placeholder("X", FLOAT32, 45, 67);
    small.put("softmax_45x67", OperatorDef.of(List.of(x), Reduction.softmax(x, 1)));
    // Rows the auto-scheduler gives a block each (cross-thread reductions), ragged.
    for (int[] rc : new int[][] {{37, 1000}, {3, 5}, {1, 4097}}) {
      Tensor r = placeholder("R", FLOAT32, rc[0], rc[1]);
      Tensor g = placeholder("G", FLOAT32, rc[1]);
      Tensor be = placeholder("Be", FLOAT32, rc[1]);
      String size = rc[0] + "x" + rc[1];
      small.put("softmax_" + size, OperatorDef.of(List.of(r), Reduction.softmax(r, 1)));
      small.put(
          "layer_norm_" + size,
          OperatorDef.of(List.of(r, g, be), dev.kernelgen.topi.Nn.layerNorm(r, g, be, 1, 1e-5)));
    }
    Tensor in = placeholder("Input", FLOAT32, 2, 5, 11, 9);
    Tensor f = placeholder("Filter", FLOAT32, 6, 5, 3, 3);
    small.put(
        "conv2d_2x5x11x9_f6",
        OperatorDef.of(List.of(in, f), Conv.conv2dNchw(in, f, 1, 1, new Padding(1, 1, 1, 1), 1)));
    List<Object> out = new ArrayList<>();
    for (var e : small.entrySet()) {
      Schedule s = DefaultSchedules.forTarget(device.target(), e.getValue(), Knobs.defaults());
      String diff = OracleCheck.check(device, s, e.getValue().args(), "check");
      System.out.printf("check %-22s %s%n", e.getKey(), diff == null ? "ok" : "FAILED");
      if (diff != null) {
        throw new IllegalStateException(e.getKey() + " differs from the oracle: " + diff);
      }
      out.add(Map.of("workload", e.getKey(), "ok", true));
    }
    // conv2d's default for many images (the shape above gets the one for few): on the same shape.
    Tensor conv = Conv.conv2dNchw(in, f, 1, 1, new Padding(1, 1, 1, 1), 1);
    Schedule large =
        OpSchedules.conv2dGpu(conv, Knobs.configured(OpSchedules.conv2dGpuCandidates().get(0)));
    String largeDiff = OracleCheck.check(device, large, List.of(in, f, conv), "check");
    System.out.printf(
        "check %-22s %s%n", "conv2d_large_tiles", largeDiff == null ? "ok" : "FAILED");
    if (largeDiff != null) {
      throw new IllegalStateException("conv2d_large_tiles differs from the oracle: " + largeDiff);
    }
    out.add(Map.of("workload", "conv2d_2x5x11x9_f6_large_tiles", "ok", true));
    Tensor lanes = Reduction.softmaxLanes(x, 32);
    String diff =
        OracleCheck.check(device, OpSchedules.softmaxLanesGpu(lanes), List.of(x, lanes), "check");
    System.out.printf("check %-22s %s%n", "softmax_lanes_45x67", diff == null ? "ok" : "FAILED");
    if (diff != null) {
      throw new IllegalStateException("softmax_lanes differs from the oracle: " + diff);
    }
    out.add(Map.of("workload", "softmax_lanes_45x67", "ok", true));
    out.addAll(ConvBnSwishGpu.checks(device));
    return out;
  }

  static List<Case> cases() {
    List<Case> cs = new ArrayList<>();
    for (int n : new int[] {1024, 2048, 4096}) {
      Tensor a = placeholder("A", FLOAT32, n, n);
      Tensor b = placeholder("B", FLOAT32, n, n);
      Reference ref =
          (in, flat) -> {
            long i = flat / n;
            long j = flat % n;
            double s = 0;
            for (int k = 0; k < n; k++) {
              s += (double) in.get(0)[(int) (i * n + k)] * in.get(1)[(int) (k * n + j)];
            }
            return s;
          };
      OperatorDef mm = OperatorDef.of(List.of(a, b), Linalg.matmul(a, b));
      cs.add(new Case("matmul_" + n, mm, 2.0 * n * n * n, ref));
      cs.add(new Case("matmul_" + n + "_auto", mm, 2.0 * n * n * n, ref, generated(mm)));
    }
    int rows = 4096;
    int cols = 4096;
    Tensor x = placeholder("X", FLOAT32, rows, cols);
    Reference softmaxRef = (in, flat) -> RowNormCases.softmax(in.get(0), cols, flat);
    // The library's GPU formulation: a block per row, 256 lanes (threads) reducing it together.
    Tensor lanes = Reduction.softmaxLanes(x, 256);
    cs.add(
        new Case(
            "softmax_4096x4096",
            OperatorDef.of(List.of(x), lanes),
            0,
            softmaxRef,
            OpSchedules.softmaxLanesGpu(lanes)));
    // Softmax and layer norm as written (no template): the auto-scheduler's untuned pick.
    cs.addAll(RowNormCases.cases());
    for (int batch : new int[] {1, 32}) {
      int c = 64;
      int h = 56;
      int w = 56;
      int fo = 64;
      Tensor in = placeholder("Input", FLOAT32, batch, c, h, w);
      Tensor f = placeholder("Filter", FLOAT32, fo, c, 3, 3);
      OperatorDef conv =
          OperatorDef.of(List.of(in, f), Conv.conv2dNchw(in, f, 1, 1, new Padding(1, 1, 1, 1), 1));
      double flops = 2.0 * batch * fo * h * w * c * 9;
      Reference ref =
          (ins, flat) -> {
            int xx = (int) (flat % w);
            int yy = (int) (flat / w % h);
            int ff = (int) (flat / ((long) w * h) % fo);
            int nn = (int) (flat / ((long) w * h * fo));
            double s = 0;
            for (int cc = 0; cc < c; cc++) {
              for (int di = 0; di < 3; di++) {
                for (int dj = 0; dj < 3; dj++) {
                  int iy = yy + di - 1;
                  int ix = xx + dj - 1;
                  if (iy >= 0 && iy < h && ix >= 0 && ix < w) {
                    s +=
                        (double) ins.get(0)[((nn * c + cc) * h + iy) * w + ix]
                            * ins.get(1)[((ff * c + cc) * 3 + di) * 3 + dj];
                  }
                }
              }
            }
            return s;
          };
      String name = "conv2d_" + batch + "x64x56x56_f64";
      cs.add(new Case(name, conv, flops, ref));
      cs.add(new Case(name + "_auto", conv, flops, ref, generated(conv)));
    }
    cs.addAll(depthwiseCases());
    cs.addAll(attentionCases());
    return cs;
  }

  /**
   * One head of attention, {@code softmax(q k^T / 8) v} over {@code [seq, 64]}, as a user writes it
   * (bench/user-projects/attention-head): the generated pick, no template.
   */
  static List<Case> attentionCases() {
    List<Case> cs = new ArrayList<>();
    int d = 64;
    for (int seq : new int[] {256, 1024}) {
      OperatorDef op = TuningCostBench.attention(seq).def();
      Reference ref =
          (in, flat) -> {
            int i = (int) (flat / d);
            int c = (int) (flat % d);
            double[] s = new double[seq];
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < seq; j++) {
              double dot = 0;
              for (int e = 0; e < d; e++) {
                dot += (double) in.get(0)[i * d + e] * in.get(1)[j * d + e];
              }
              s[j] = dot * 0.125;
              max = Math.max(max, s[j]);
            }
            double sum = 0;
            double out = 0;
            for (int j = 0; j < seq; j++) {
              double p = Math.exp(s[j] - max);
              sum += p;
              out += p * in.get(2)[j * d + c];
            }
            return out / sum;
          };
      cs.add(
          new Case("attention_" + seq + "x64_auto", op, 4.0 * seq * seq * d, ref, generated(op)));
    }
    return cs;
  }

  /**
   * The seed's fused depthwise convolution (3x3, SAME, + scale_shift + relu) at [1,256,96,96] and
   * [32,256,96,96]: the hand template ({@code _template}: {@link DepthwiseSchedules#gpuDirect} at
   * the configuration GpuBench's search found fastest for the workload on the H200, 2026-12-04's
   * seed run) beside the auto-scheduler's untuned pick ({@code _auto}). Timed as bytes moved (input
   * read and output written once): the copy bandwidth is {@code ops_torch.py}'s row.
   */
  static List<Case> depthwiseCases() {
    List<Case> cs = new ArrayList<>();
    for (int batch : new int[] {1, 32}) {
      Workload w = Workload.of(batch, 256, 96, 96, 1, 3, 1, dev.kernelgen.bench.Padding.SAME);
      SeedSchedules s = SeedSchedules.of(w);
      List<Tensor> args = s.fusedArgs();
      OperatorDef def = OperatorDef.of(args.subList(0, 4), s.fused());
      int c = 256;
      int h = 96;
      Reference ref =
          (ins, flat) -> {
            int xx = (int) (flat % h);
            int yy = (int) (flat / h % h);
            int cc = (int) (flat / ((long) h * h) % c);
            long nn = flat / ((long) h * h * c);
            double acc = 0;
            for (int di = 0; di < 3; di++) {
              for (int dj = 0; dj < 3; dj++) {
                int iy = yy + di - 1;
                int ix = xx + dj - 1;
                if (iy >= 0 && iy < h && ix >= 0 && ix < h) {
                  acc +=
                      (double) ins.get(0)[(int) (((nn * c + cc) * h + iy) * h + ix)]
                          * ins.get(1)[(cc * 3 + di) * 3 + dj];
                }
              }
            }
            return Math.max(0, acc * ins.get(2)[cc] + ins.get(3)[cc]);
          };
      // GpuBench's fastest direct configurations (rows, threads_y, threads_x, window in registers).
      DirectConfig tuned =
          batch == 1 ? new DirectConfig(8, 4, 32, true) : new DirectConfig(16, 1, 128, false);
      String name = "depthwise_fused_" + batch + "x256x96x96";
      cs.add(new Case(name + "_template", def, 0, ref, s.fusedDirect(tuned)));
      cs.add(new Case(name + "_auto", def, 0, ref, generated(def)));
    }
    return cs;
  }

  /**
   * {@code cases} with a {@code _tuned} case after each {@code _auto} one that {@code log} holds a
   * successful CUDA record of (as {@link TuningCostBench} names its tasks): the generated schedule
   * at the best record's configuration.
   */
  static List<Case> withTuned(List<Case> cases, Path log) {
    List<TuningRecord> records =
        TuningLog.read(log, w -> System.err.println("warning: " + log + ": " + w));
    List<Case> out = new ArrayList<>();
    for (Case c : cases) {
      out.add(c);
      if (!c.name().endsWith("_auto")) {
        continue;
      }
      String base = c.name().substring(0, c.name().length() - "_auto".length());
      TuningTask task = TuningCostBench.task(new TuningCostBench.Op(base, c.op()), Target.CUDA);
      // Records made before the space changed (a knob added since) would build another schedule
      // than the one they timed: only those whose configuration is in today's space count.
      dev.kernelgen.tune.ConfigSpace space = task.space();
      List<TuningRecord> current =
          records.stream()
              .filter(r -> !r.operator().equals(task.operator()) || space.contains(r.config()))
              .toList();
      TuningLog.Lookup best =
          TuningLog.best(current, task.operator(), Target.CUDA.name(), task.shape(), null);
      if (best.best().isEmpty() && current.size() < records.size()) {
        System.out.println(
            base + "_tuned: every record's configuration is stale (the space changed)");
      } else if (best.best().isPresent()) {
        TuningRecord r = best.best().get();
        System.out.printf(
            "%s_tuned: %s (%.1f us when searched)%n", base, r.config().key(), r.medianUs());
        out.add(new Case(base + "_tuned", c.op(), c.flops(), c.ref(), task.schedule(r.config())));
      } else {
        System.out.println(base + "_tuned: " + best.reason());
      }
    }
    return out;
  }

  /** The auto-scheduler's untuned CUDA pick of {@code op}: no template, no tuning record. */
  private static Schedule generated(OperatorDef op) {
    return AutoScheduler.untuned(Target.CUDA, op.outputs());
  }

  /** The knob settings that {@code --conv-configs} names (see the class comment); none for null. */
  static List<Map<String, Integer>> convConfigs(String spec) {
    List<Map<String, Integer>> out = new ArrayList<>();
    if (spec == null || spec.isBlank()) {
      return out;
    }
    if (spec.equals("candidates")) {
      return OpSchedules.conv2dGpuCandidates();
    }
    for (String one : spec.split(";")) {
      out.add(knobValues(one, "--conv-configs"));
    }
    return out;
  }

  /**
   * Knob settings written {@code name=value,name=value}, in order; {@code what} names the source.
   */
  static Map<String, Integer> knobValues(String text, String what) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (String kv : text.split(",")) {
      String[] p = kv.trim().split("=");
      if (p.length != 2) {
        throw new IllegalArgumentException(what + ": '" + kv + "' is not knob=value");
      }
      m.put(p[0].trim(), Integer.parseInt(p[1].trim()));
    }
    return m;
  }

  /**
   * Times conv2d workload {@code c} with each knob setting, adds the results to {@code timed} and
   * returns them as a table, fastest first, with the speedup over the default schedule.
   */
  static String timeConfigs(
      Device device, Case c, List<Map<String, Integer>> configs, List<Object> timed) {
    List<Map<String, Object>> rows = new ArrayList<>();
    double defaultUs = Double.NaN;
    for (Map<String, Integer> config : configs) {
      Map<String, Object> r;
      try {
        r = measure(device, c, Knobs.configured(config));
      } catch (RuntimeException | Error e) {
        r = new LinkedHashMap<>();
        r.put("workload", c.name());
        r.put("knobs", config.toString());
        r.put("error", String.valueOf(e));
        System.out.printf("%-24s %s FAILED: %s%n", c.name(), config, e);
      }
      rows.add(r);
      timed.add(r);
    }
    try {
      defaultUs = (double) measure(device, c, Knobs.defaults()).get("ours_gpu_us");
    } catch (RuntimeException | Error e) {
      System.out.printf("%-24s default FAILED: %s%n", c.name(), e);
    }
    rows.sort(
        java.util.Comparator.comparingDouble(
            r -> r.get("ours_gpu_us") instanceof Double d ? d : Double.MAX_VALUE));
    StringBuilder sb = new StringBuilder();
    sb.append(String.format("%s: default %.1f us GPU%n", c.name(), defaultUs));
    for (Map<String, Object> r : rows) {
      if (r.get("ours_gpu_us") instanceof Double us) {
        sb.append(
            String.format(
                "  %10.1f us  %6.2f TFLOP/s  x%.2f of default  %s%n",
                us, r.get("ours_tflops"), defaultUs / us, r.get("knobs")));
      } else {
        sb.append(String.format("  %10s  %s  %s%n", "failed", r.get("knobs"), r.get("error")));
      }
    }
    return sb.toString();
  }

  static Map<String, Object> measure(Device device, Case c, Knobs knobs) {
    Schedule s =
        c.schedule() != null
            ? c.schedule()
            : DefaultSchedules.forTarget(device.target(), c.op(), knobs);
    DeviceOperator.Compiled compiled =
        DeviceOperator.compile(device.target(), s, c.op().args(), "ops_" + c.name());
    Random random = new Random(42);
    List<float[]> inputs = new ArrayList<>();
    List<DeviceBuffer> buffers = new ArrayList<>();
    for (Tensor t : c.op().inputs()) {
      float[] v = new float[(int) OracleCheck.count(t)];
      for (int i = 0; i < v.length; i++) {
        v[i] = random.nextFloat() * 2 - 1;
      }
      inputs.add(v);
      buffers.add(device.upload(HostTensor.of(v)));
    }
    long outCount = OracleCheck.count(c.op().output());
    DeviceBuffer output = device.allocate(DataType.FLOAT32, outCount);
    buffers.add(output);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("workload", c.name());
    r.put("knobs", knobs.chosen().toString());
    try (DeviceOperator op = new DeviceOperator(device, compiled, Map.of())) {
      op.launch(buffers);
      HostTensor got = HostTensor.zeros(DataType.FLOAT32, outCount);
      output.copyToHost(got);
      double maxErr = 0;
      Random pick = new Random(7);
      for (int k = 0; k < SAMPLES; k++) {
        long flat = (long) (pick.nextDouble() * outCount);
        double want = c.ref().at(inputs, flat);
        double err = Math.abs(got.getFloat(flat) - want) / Math.max(1, Math.abs(want));
        maxErr = Math.max(maxErr, err);
      }
      if (!(maxErr <= 1e-3)) {
        throw new IllegalStateException(c.name() + ": sampled relative error " + maxErr);
      }
      r.put("max_rel_err_sampled", maxErr);
      r.put("kernels", op.kernelCount());
      r.put("launch", op.launchConfigs().toString());
      double perCall = perCall(device, op, buffers);
      double gpu =
          device instanceof CudaDevice cuda ? GpuBench.graphTime(cuda, op, buffers) : perCall;
      r.put("ours_us", round(perCall));
      r.put("ours_gpu_us", round(gpu));
      if (c.flops() > 0) {
        r.put("ours_tflops", round(c.flops() / gpu / 1e6));
      } else {
        long bytes = 4L * 2 * outCount;
        r.put("bytes", bytes);
        r.put("ours_gbps", round(bytes / gpu / 1e3));
      }
      System.out.printf("%-24s %10.1f us per call  %10.1f us GPU  %s%n", c.name(), perCall, gpu, r);
    } finally {
      buffers.forEach(DeviceBuffer::close);
    }
    return r;
  }

  private static double perCall(Device device, DeviceOperator op, List<DeviceBuffer> buffers) {
    // A slow kernel (tens of ms) gets fewer calls per batch.
    return LaunchTiming.bestPerCallAdaptive(
        device, () -> op.launch(buffers), 3, REPEATS, CALLS, 2, 10);
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
