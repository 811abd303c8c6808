package dev.kernelgen.bench;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AnalyticPredictor;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.autosched.SketchRules;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.json.Json;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.measure.CHarnessMeasurer;
import dev.kernelgen.measure.Modules;
import dev.kernelgen.measure.WallClockTiming;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import dev.kernelgen.runtime.cpu.CpuDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Reduction;
import dev.kernelgen.topi.Winograd;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Tuner;
import dev.kernelgen.tune.TuningLog;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.TuningTask;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The operator benchmark on the CPU: matmul (square, float32), softmax and layer norm over rows and
 * 3x3 conv2d, each with kernelgen's untuned default C schedule ({@link DefaultSchedules}) against
 * ONNX Runtime (MLAS) on the same data, in one run, with the same {@link WallClockTiming}; and the
 * conv + batch norm + swish sample through its launcher ({@link ConvBnSwishCpu}). Each pair is
 * checked to agree before it is timed.
 *
 * <p>Usage: {@code OpsCpuBench [--quick] [--big] [--generated] [--only TEXT] [--conv
 * NxCxHxWxF[,...]] [OUT_JSON]}; {@code OUT_JSON} defaults to {@value #DEFAULT_OUT}; {@code --conv}
 * adds 3x3 convolutions of those shapes (padding 1, stride 1) to the rows. {@code --generated}
 * takes every operator's schedule from the auto-scheduler's untuned pick, no library template.
 * {@code -Dops.knob.NAME=VALUE} sets a knob of the schedules that have it (for example {@code
 * -Dops.knob.tile_f=8}); {@code -Dops.dump=DIR} writes the generated C there. The 4096 matmul (137
 * GFLOP per run) is measured only with {@code --big}, once per implementation.
 */
public final class OpsCpuBench {
  public static final String DEFAULT_OUT = "bench/results/ops-cpu-latest.json";
  private static final CpuDevice DEVICE = CpuDevice.create();

  /**
   * With {@code --generated}: every operator's schedule is the auto-scheduler's untuned pick (no
   * library template).
   */
  private static boolean generated;

  /**
   * With {@code --tuned LOG}: every operator's schedule is the best generated schedule (no library
   * template) in LOG, after a search of {@link #tuneSeconds} per operator that appends to it (0:
   * only read it).
   */
  private static Path tunedLog;

  private static int tuneSeconds = 120;

  /** Per operator: the search's trials, seconds, and when 90% of its best was reached. */
  private static final Map<String, Map<String, Object>> TUNING = new LinkedHashMap<>();

  private OpsCpuBench() {}

  /** One case: its ours/ORT medians and how far their outputs are apart. */
  record Row(String name, double flops, double oursUs, double ortUs, double maxAbsDiff) {
    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("workload", name);
      m.put("ours_us", round(oursUs));
      m.put("ort_us", round(ortUs));
      m.put("ort_over_ours", round(ortUs / oursUs));
      if (flops > 0) {
        m.put("ours_gflops", round(flops / oursUs / 1e3));
        m.put("ort_gflops", round(flops / ortUs / 1e3));
      }
      m.put("max_abs_diff", maxAbsDiff);
      return m;
    }
  }

  public static void main(String[] args) throws Exception {
    Path out = Path.of(DEFAULT_OUT);
    WallClockTiming timing = WallClockTiming.DEFAULT;
    boolean big = false;
    String only = null;
    List<int[]> convs = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> timing = new WallClockTiming(20_000_000L, 200_000_000L, 3, 20);
        case "--big" -> big = true;
        case "--only" -> only = args[++i];
        case "--generated" -> generated = true;
        case "--tuned" -> tunedLog = Path.of(args[++i]);
        case "--seconds" -> tuneSeconds = Integer.parseInt(args[++i]);
        case "--conv" -> convs.addAll(convShapes(args[++i]));
        default -> out = Path.of(args[i]);
      }
    }
    System.out.printf(
        "ops-cpu-bench: %d processors, ours = %s%n",
        Runtime.getRuntime().availableProcessors(),
        tunedLog != null
            ? "the auto-scheduler's best tuned C schedules in "
                + tunedLog
                + " (no template; "
                + tuneSeconds
                + " s of search per operator first)"
            : generated
                ? "the auto-scheduler's untuned C picks (no template)"
                : "default C schedules");
    CpuInfo cpu = CpuInfo.detect();
    System.out.println(cpu.line());
    List<Row> rows = new ArrayList<>();
    for (int n : big ? new int[] {1024, 2048, 4096} : new int[] {1024, 2048}) {
      String name = "matmul_" + n;
      if (only == null || name.contains(only)) {
        WallClockTiming t =
            n >= 4096 ? new WallClockTiming(0, 1, 1, 1) : n >= 2048 ? slow(timing) : timing;
        rows.add(matmul(n, t));
      }
    }
    for (int[] rc : new int[][] {{4096, 4096}, {16384, 1024}}) {
      String name = "softmax_" + rc[0] + "x" + rc[1];
      if (only == null || name.contains(only)) {
        rows.add(softmax(rc[0], rc[1], timing));
      }
    }
    // Long reductions into a few outputs (the rfactor rule's case): in memory and in cache.
    for (int[] rc : new int[][] {{1, 1 << 24}, {8, 1 << 20}, {4, 1 << 16}}) {
      String name = "mean_square_" + rc[0] + "x" + rc[1];
      if (only == null || name.contains(only)) {
        rows.add(meanSquare(rc[0], rc[1], timing));
      }
    }
    for (int[] rc : new int[][] {{4096, 4096}, {16384, 1024}}) {
      String name = "layer_norm_" + rc[0] + "x" + rc[1];
      if (only == null || name.contains(only)) {
        rows.add(layerNorm(rc[0], rc[1], timing));
      }
    }
    if (only == null || "conv2d_1x64x56x56_f64".contains(only)) {
      rows.add(conv(1, 64, 56, 56, 64, timing));
    }
    if (only == null || "conv2d_32x64x56x56_f64".contains(only)) {
      rows.add(conv(32, 64, 56, 56, 64, slow(timing)));
    }
    // The same convolutions by Winograd's F(2x2, 3x3) (topi's conv2d_winograd), auto-scheduled.
    if (only == null || "conv2d_winograd2_1x64x56x56_f64".contains(only)) {
      rows.add(winograd(2, 1, 64, 56, 56, 64, timing));
    }
    if (only == null || "conv2d_winograd2_32x64x56x56_f64".contains(only)) {
      rows.add(winograd(2, 32, 64, 56, 56, 64, slow(timing)));
    }
    for (int[] d : convs) {
      rows.add(conv(d[0], d[1], d[2], d[3], d[4], d[0] > 4 ? slow(timing) : timing));
    }
    if (only != null && "conv2d_winograd4_1x64x56x56_f64".contains(only)) {
      rows.add(winograd(4, 1, 64, 56, 56, 64, timing));
    }
    if (only != null && "conv2d_winograd4_32x64x56x56_f64".contains(only)) {
      rows.add(winograd(4, 32, 64, 56, 56, 64, slow(timing)));
    }
    for (int seq : new int[] {256, 1024}) {
      if (only == null || ("attention_" + seq + "x64").contains(only)) {
        rows.add(attention(seq, timing));
      }
    }
    for (var d : ConvBnSwishCpu.SHAPES) {
      if (only == null || ConvBnSwishCpu.name(d).contains(only)) {
        rows.add(ConvBnSwishCpu.run(d, timing));
      }
    }
    List<Object> json = new ArrayList<>();
    for (Row r : rows) {
      json.add(r.json());
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("bench", "ops-cpu");
    doc.put("processors", Runtime.getRuntime().availableProcessors());
    doc.put("machine", cpu.toJson());
    doc.put(
        "timing",
        "median wall-clock us per call; ours = "
            + (tunedLog != null
                ? "best generated C schedule in " + tunedLog
                : generated ? "untuned generated C schedule" : "kernelgen default C schedule"));
    if (tunedLog != null) {
      doc.put("tuning", TUNING);
    }
    doc.put("results", json);
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, Json.pretty(doc));
    System.out.println("wrote " + out);
  }

  /** A few runs of a slow operation. */
  private static WallClockTiming slow(WallClockTiming t) {
    return new WallClockTiming(
        0, t.budgetNanos(), Math.min(t.minReps(), 3), Math.min(t.maxReps(), 5));
  }

  static Row matmul(int n, WallClockTiming timing) throws Exception {
    float[] a = random(1, (long) n * n);
    float[] b = random(2, (long) n * n);
    Tensor ta = placeholder("A", FLOAT32, n, n);
    Tensor tb = placeholder("B", FLOAT32, n, n);
    Tensor c = Linalg.matmul(ta, tb);
    Kernel k = compile("matmul_" + n, OperatorDef.of(List.of(ta, tb), c));
    try (OrtRunner ort =
        new OrtRunner(OpsOnnxModels.matmul(n, n, n, b), new long[] {n, n}, new long[] {n, n})) {
      return compare(
          "matmul_" + n, 2.0 * n * n * n, k, List.of(a, b), (long) n * n, ort, a, timing);
    }
  }

  /**
   * One head of attention, {@code softmax(q k^T / 8) v} over {@code [seq, 64]}, written with the
   * operator library as a user would (no test's operator): two reductions and a softmax between.
   */
  static Row attention(int seq, WallClockTiming timing) throws Exception {
    int d = 64;
    float[] q = random(10, (long) seq * d);
    float[] k = random(11, (long) seq * d);
    float[] v = random(12, (long) seq * d);
    float[] kT = new float[seq * d];
    for (int j = 0; j < seq; j++) {
      for (int c = 0; c < d; c++) {
        kT[c * seq + j] = k[j * d + c];
      }
    }
    Tensor tq = placeholder("q", FLOAT32, seq, d);
    Tensor tk = placeholder("k", FLOAT32, seq, d);
    Tensor tv = placeholder("v", FLOAT32, seq, d);
    Tensor weights =
        Reduction.softmax(Elementwise.scale(Linalg.dense(tq, tk), 1 / Math.sqrt(d)), 1);
    Kernel kernel =
        compile("attention", OperatorDef.of(List.of(tq, tk, tv), Linalg.matmul(weights, tv)));
    long[] shape = {seq, d};
    try (OrtRunner ort = new OrtRunner(OpsOnnxModels.attention(seq, d, kT, v), shape, shape)) {
      return compare(
          "attention_" + seq + "x" + d,
          4.0 * seq * seq * d,
          kernel,
          List.of(q, k, v),
          (long) seq * d,
          ort,
          q,
          timing);
    }
  }

  static Row softmax(int rows, int cols, WallClockTiming timing) throws Exception {
    float[] x = random(3, (long) rows * cols);
    Tensor tx = placeholder("X", FLOAT32, rows, cols);
    Tensor y = Reduction.softmax(tx, 1);
    Kernel k = compile("softmax", OperatorDef.of(List.of(tx), y));
    long[] shape = {rows, cols};
    try (OrtRunner ort = new OrtRunner(OpsOnnxModels.softmax(rows, cols), shape, shape)) {
      return compare(
          "softmax_" + rows + "x" + cols, 0, k, List.of(x), (long) rows * cols, ort, x, timing);
    }
  }

  static Row meanSquare(int rows, int cols, WallClockTiming timing) throws Exception {
    float[] x = random(9, (long) rows * cols);
    Tensor tx = placeholder("X", FLOAT32, rows, cols);
    IterVar k = TE.reduceAxis(cols, "k");
    Tensor sumSq =
        TE.compute(
            "SumSquare", TE.shape(rows), i -> TE.sum(tx.at(i, k.var()).mul(tx.at(i, k.var())), k));
    Tensor y = TE.compute("MeanSquare", TE.shape(rows), i -> sumSq.at(i).div((double) cols));
    Kernel kernel = compile("mean_square", OperatorDef.of(List.of(tx), y));
    try (OrtRunner ort =
        new OrtRunner(
            OpsOnnxModels.meanSquare(rows, cols), new long[] {rows, cols}, new long[] {rows})) {
      return compare(
          "mean_square_" + rows + "x" + cols, 0, kernel, List.of(x), rows, ort, x, timing);
    }
  }

  static Row layerNorm(int rows, int cols, WallClockTiming timing) throws Exception {
    float[] x = random(6, (long) rows * cols);
    float[] gamma = random(7, cols);
    float[] beta = random(8, cols);
    Tensor tx = placeholder("X", FLOAT32, rows, cols);
    Tensor tg = placeholder("Gamma", FLOAT32, cols);
    Tensor tb = placeholder("Beta", FLOAT32, cols);
    Tensor y = Nn.layerNorm(tx, tg, tb, 1, 1e-5);
    Kernel k = compile("layer_norm", OperatorDef.of(List.of(tx, tg, tb), y));
    long[] shape = {rows, cols};
    try (OrtRunner ort =
        new OrtRunner(OpsOnnxModels.layerNorm(rows, cols, gamma, beta), shape, shape)) {
      return compare(
          "layer_norm_" + rows + "x" + cols,
          0,
          k,
          List.of(x, gamma, beta),
          (long) rows * cols,
          ort,
          x,
          timing);
    }
  }

  /**
   * {@code --conv}'s shapes: {@code NxCxHxWxF[,...]}, 3x3 convolutions of [N,C,H,W] by F filters.
   */
  static List<int[]> convShapes(String arg) {
    List<int[]> out = new ArrayList<>();
    for (String s : arg.split(",")) {
      String[] d = s.split("x");
      if (d.length != 5) {
        throw new IllegalArgumentException(
            "--conv " + s + ": expected NxCxHxWxF (batch, channels, height, width, filters)");
      }
      out.add(java.util.Arrays.stream(d).mapToInt(Integer::parseInt).toArray());
    }
    return out;
  }

  static Row conv(int n, int c, int h, int w, int f, WallClockTiming timing) throws Exception {
    return conv(
        "conv2d_",
        "conv2d",
        (tx, tf) -> Conv.conv2dNchw(tx, tf, 1, 1, new Padding(1, 1, 1, 1), 1),
        n,
        c,
        h,
        w,
        f,
        timing);
  }

  static Row winograd(int m, int n, int c, int h, int w, int f, WallClockTiming timing)
      throws Exception {
    return conv(
        "conv2d_winograd" + m + "_",
        null,
        (tx, tf) -> Winograd.conv2dNchw(tx, tf, new Padding(1, 1, 1, 1), m),
        n,
        c,
        h,
        w,
        f,
        timing);
  }

  /**
   * The 3x3, stride-1, padding-1 convolution {@code op} of an [n, c, h, w] input by f filters
   * against ONNX Runtime's Conv; its row named {@code prefix} and the shape, its kernel {@code
   * kernel} (null: the row's name).
   */
  private static Row conv(
      String prefix,
      String kernel,
      java.util.function.BinaryOperator<Tensor> op,
      int n,
      int c,
      int h,
      int w,
      int f,
      WallClockTiming timing)
      throws Exception {
    float[] x = random(4, (long) n * c * h * w);
    float[] filter = random(5, (long) f * c * 9);
    Tensor tx = placeholder("Input", FLOAT32, n, c, h, w);
    Tensor tf = placeholder("Filter", FLOAT32, f, c, 3, 3);
    Tensor y = op.apply(tx, tf);
    String name = prefix + n + "x" + c + "x" + h + "x" + w + "_f" + f;
    Kernel k = compile(kernel == null ? name : kernel, OperatorDef.of(List.of(tx, tf), y));
    try (OrtRunner ort =
        new OrtRunner(
            OpsOnnxModels.conv3x3(n, c, h, w, f, filter),
            new long[] {n, c, h, w},
            new long[] {n, f, h, w})) {
      double flops = 2.0 * n * f * h * w * c * 9;
      return compare(name, flops, k, List.of(x, filter), (long) n * f * h * w, ort, x, timing);
    }
  }

  private static Row compare(
      String name,
      double flops,
      Kernel k,
      List<float[]> inputs,
      long outCount,
      OrtRunner ort,
      float[] ortInput,
      WallClockTiming timing)
      throws Exception {
    Object[] kargs = new Object[inputs.size() + 1];
    for (int i = 0; i < inputs.size(); i++) {
      kargs[i] = HostTensor.of(inputs.get(i));
    }
    HostTensor result = HostTensor.zeros(DataType.FLOAT32, outCount);
    kargs[inputs.size()] = result;
    k.fn.launch(LaunchConfig.HOST, kargs);
    float[] ours = result.toFloatArray();
    float[] theirs = ort.run(ortInput);
    double diff = 0;
    for (int i = 0; i < ours.length; i++) {
      diff = Math.max(diff, Math.abs(ours[i] - theirs[i]));
    }
    if (!(diff <= 1e-2)) {
      throw new IllegalStateException(name + ": ours and ONNX Runtime differ by " + diff);
    }
    double[] t =
        timing.sideBySide(
            () -> k.fn.launch(LaunchConfig.HOST, kargs), ort.timed(ortInput), CpuBench.ROUNDS);
    double oursUs = t[0];
    double ortUs = t[1];
    Row r = new Row(name, flops, oursUs, ortUs, diff);
    System.out.printf(
        "%-26s ours %10.1f us   ORT %10.1f us   ORT/ours %.2f%s   (max |diff| %.2g; knobs %s)%n",
        name,
        oursUs,
        ortUs,
        ortUs / oursUs,
        flops > 0
            ? String.format("   %.1f vs %.1f GFLOP/s", flops / oursUs / 1e3, flops / ortUs / 1e3)
            : "",
        diff,
        k.knobs);
    return r;
  }

  private record Kernel(KernelFunction fn, Map<String, Integer> knobs) {}

  /** The operator's default C schedule, generated, compiled with cc and loaded through FFM. */
  private static Kernel compile(String name, OperatorDef op) throws IOException {
    // Knobs from -Dops.knob.NAME=VALUE where this operator's schedule has them, else defaults.
    Knobs probe = Knobs.defaults();
    DefaultSchedules.forTarget(Target.C, op, probe);
    Set<String> names = new LinkedHashSet<>(probe.space().keySet());
    if (generated || tunedLog != null) {
      names.addAll(AutoScheduler.space(Target.C, op.outputs()).knobs().keySet());
    }
    Map<String, Integer> values = new LinkedHashMap<>();
    for (String k : names) {
      Integer v = Integer.getInteger("ops.knob." + k);
      if (v != null) {
        values.put(k, v);
      }
    }
    Knobs knobs = Knobs.configured(values);
    Schedule s =
        tunedLog != null
            ? AutoScheduler.generate(Target.C, op.outputs(), knobs = tuned(name, op))
            : generated
                ? AutoScheduler.schedule(Target.C, Modules.vectorUnit(), op.outputs(), knobs)
                : DefaultSchedules.forTarget(Target.C, Modules.vectorUnit(), op, knobs);
    PrimFunc f = Lower.lower(s, name, op.args(), Target.C, null);
    String source = CCodegen.generate(List.of(f), "ops_" + name);
    // -Dops.dump=DIR writes the generated C beside the run, for reading what the schedule became.
    String dump = System.getProperty("ops.dump");
    if (dump != null) {
      Files.createDirectories(Path.of(dump));
      Files.writeString(Path.of(dump, name + ".c"), source);
    }
    KernelModule module =
        DEVICE.loadModule(Modules.cLibrary(NativeToolchain.fromEnvironment(), source, f.name()));
    KernelFunction fn =
        module.function(
            f.name(),
            new KernelSignature(
                new ArrayList<>(
                    Collections.nCopies(f.params().size(), KernelSignature.ParamKind.POINTER))));
    return new Kernel(fn, knobs.chosen());
  }

  /**
   * The knobs of the best record of {@code op}'s generated schedules in the tuning log, after a
   * search of {@link #tuneSeconds} that starts from the untuned pick and appends to the log (a
   * second run resumes from it). Candidates are timed by the C harness in their own processes and
   * checked against the naive loop nest's result.
   */
  private static Knobs tuned(String name, OperatorDef op) {
    TuningTask task =
        new TuningTask(
            "OpsCpuBench/" + name + shapeLabel(op),
            Target.C,
            op,
            knobs -> AutoScheduler.generate(Target.C, op.outputs(), knobs),
            name);
    List<TuningRecord> previous = TuningLog.read(tunedLog, line -> System.out.println("  " + line));
    String device = CHarnessMeasurer.cpuName();
    if (tuneSeconds > 0) {
      Configuration pick =
          AutoScheduler.untunedConfig(
              Target.C,
              Modules.vectorUnit(),
              op.outputs(),
              SketchRules.defaults(),
              new AnalyticPredictor());
      int cores = Runtime.getRuntime().availableProcessors();
      try (CHarnessMeasurer m =
          new CHarnessMeasurer(NativeToolchain.fromEnvironment(), cores, 3, 15, 120)) {
        device = m.deviceName();
        Tuner.Result r =
            Tuner.tune(
                task,
                m,
                Tuner.Options.defaults()
                    .withTrials(100_000)
                    .withBatch(Integer.getInteger("ops.batch", 8))
                    .withPatience(0)
                    .withTimeLimit(Duration.ofSeconds(tuneSeconds))
                    .withFirst(List.of(pick)),
                previous,
                batch -> TuningLog.append(tunedLog, TuningRecord.of(task, m, batch)),
                p -> {});
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("search_s", r.elapsed().toMillis() / 1e3);
        t.put("trials", r.measured().size());
        t.put("resumed", r.resumed());
        t.put("failed", r.failed());
        t.put("trials_to_90", r.trialsTo90());
        t.put("seconds_to_90", r.timeTo90().toMillis() / 1e3);
        TUNING.put(name + shapeLabel(op), t);
        System.out.printf(
            "  tuned %s: %d trial(s) in %.1f s (%d from the log); %s%n",
            task.operator(),
            r.measured().size(),
            r.elapsed().toMillis() / 1e3,
            r.resumed(),
            r.reachedLine());
      }
      previous = TuningLog.read(tunedLog, line -> {});
    }
    TuningLog.Lookup best =
        TuningLog.best(previous, task.operator(), Target.C.name(), task.shape(), device);
    if (best.best().isEmpty()) {
      throw new IllegalStateException(task.operator() + ": " + best.reason());
    }
    return Knobs.configured(best.best().get().config().values());
  }

  private static String shapeLabel(OperatorDef op) {
    return TuningTask.shapeOf(op).get(0).toString().replace(" ", "");
  }

  private static float[] random(long seed, long count) {
    Random r = new Random(seed);
    float[] a = new float[Math.toIntExact(count)];
    for (int i = 0; i < a.length; i++) {
      a[i] = (float) (r.nextDouble() * 2 - 1);
    }
    return a;
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
