package dev.kernelgen.bench;

import ai.onnxruntime.OrtException;
import dev.kernelgen.json.Json;
import dev.kernelgen.measure.WallClockTiming;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;

/**
 * The CPU benchmark: for each workload, plain and fused, checks ONNX Runtime, "ours" (the C
 * kernels) and the generated Java kernels ({@link KernelgenJava}, the same schedule through the
 * Java target) against {@link JavaLoops}, then times them and reports median microseconds, with the
 * machine's CPU model and ISA level ({@link CpuInfo}) at the top of the report and the JSON.
 *
 * <p>Usage: {@code CpuBench [--seed FILE] [--only TEXT] [--quick] [--generated] [--tuned TRIALS]
 * [--gpu-workloads FILE] [OUT_JSON]}. {@code --generated} makes "ours" the auto-scheduler's
 * schedule alone (no template): its untuned pick, or with {@code --tuned} the best of its own
 * space. {@code --tuned} makes "ours" {@link TunedDepthwise}: each workload's schedule is tuned
 * first (at most TRIALS configurations), the trials appended to {@code OUT_JSON}'s sibling {@code
 * -tuning.jsonl} (a later run resumes), and the tuning time per workload written beside the results
 * ({@code -tuning.json}). {@code OUT_JSON} defaults to {@value #DEFAULT_OUT}. {@code
 * --gpu-workloads} writes the workload list that {@code bench/gpu_torch.py} reads, and exits.
 */
public final class CpuBench {
  public static final String DEFAULT_OUT = "bench/results/cpu-latest.json";

  /** Largest absolute difference from the reference that counts as correct. */
  public static final double TOLERANCE = 1e-3;

  /** Rounds of the side-by-side timing of ours, ONNX Runtime and the generated Java kernels. */
  static final int ROUNDS = 5;

  /**
   * One row: median microseconds of each implementation, null where it was not measured: ours (C),
   * ONNX Runtime, the hand-written Java loops and the generated Java kernels.
   */
  public record Result(
      String workload, boolean fused, Double oursUs, Double ortUs, Double javaUs, Double kgJavaUs) {
    public Result(String workload, boolean fused, Double oursUs, Double ortUs, Double javaUs) {
      this(workload, fused, oursUs, ortUs, javaUs, null);
    }

    /** How many times faster ours is than ONNX Runtime; null without both figures. */
    public Double ortOverOurs() {
      return oursUs == null || ortUs == null ? null : ortUs / oursUs;
    }

    /** How many times slower the generated Java kernels are than ours (C); null without both. */
    public Double kgJavaOverOurs() {
      return oursUs == null || kgJavaUs == null ? null : kgJavaUs / oursUs;
    }
  }

  private CpuBench() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(DEFAULT_OUT);
    Path seed = null;
    String only = null;
    WallClockTiming timing = WallClockTiming.DEFAULT;
    int tunedTrials = 0;
    boolean generated = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seed" -> seed = Path.of(argValue(args, ++i, "--seed"));
        case "--only" -> only = argValue(args, ++i, "--only");
        case "--quick" -> timing = new WallClockTiming(20_000_000L, 100_000_000L, 3, 20);
        case "--tuned" -> tunedTrials = Integer.parseInt(argValue(args, ++i, "--tuned"));
        case "--generated" -> generated = true;
        case "--gpu-workloads" -> {
          Path gpu = Path.of(argValue(args, ++i, "--gpu-workloads"));
          writeFile(gpu, Workloads.toGpuJson(Workloads.all()));
          System.out.println("wrote " + gpu);
          return;
        }
        default -> {
          if (args[i].startsWith("--")) {
            throw new IllegalArgumentException("unknown option " + args[i]);
          }
          out = Path.of(args[i]);
        }
      }
    }
    List<Workload> workloads = new ArrayList<>();
    if (seed == null) {
      workloads.addAll(Workloads.seed());
    } else {
      workloads.addAll(Workloads.load(seed));
    }
    workloads.addAll(Workloads.extras());
    if (only != null) {
      String filter = only;
      workloads.removeIf(w -> !w.name().contains(filter));
    }
    String base = out.toString().replaceAll("\\.json$", "");
    TunedDepthwise tuned =
        tunedTrials > 0
            ? new TunedDepthwise(Path.of(base + "-tuning.jsonl"), tunedTrials, generated)
            : null;
    OursKernel ours =
        tuned != null
            ? tuned
            : generated
                ? new KernelgenDepthwise(0, true)
                : ServiceLoader.load(OursKernel.class).findFirst().orElse(null);
    // The generated Java kernels use the library's CPU schedule (untuned), or with --generated the
    // auto-scheduler's untuned Java pick: the fallback an application gets where no native library
    // loads.
    OursKernel kgJava =
        Boolean.getBoolean("kernels.bench.noJava")
            ? null
            : new KernelgenJava(Integer.getInteger("kernels.bench.vector", 0), generated);
    CpuInfo cpu = CpuInfo.detect();
    System.out.println(cpu.line());
    System.out.printf(
        "cpu-bench: %d workloads, %d processors, ours = %s, generated Java = %s%n",
        workloads.size(),
        Runtime.getRuntime().availableProcessors(),
        ours == null ? "none registered" : ours.name(),
        kgJava == null ? "off" : kgJava.name());

    List<Result> results = run(workloads, ours, kgJava, timing, System.out);
    System.out.println();
    System.out.println(cpu.line());
    System.out.print(table(results));
    System.out.println(summary(results));
    List<String> seedNames = Workloads.seed().stream().map(Workload::name).toList();
    System.out.println(javaSummary(results, seedNames));
    writeFile(out, toJson(cpu, results));
    System.out.println("wrote " + out);
    if (tuned != null) {
      double total = 0;
      System.out.println("tuning time per operator and workload:");
      for (var e : tuned.tuning().entrySet()) {
        System.out.printf(Locale.ROOT, "  %-36s %s%n", e.getKey(), e.getValue());
        total += ((Number) e.getValue().get("tuning_s")).doubleValue();
      }
      System.out.printf(Locale.ROOT, "  total tuning time %.1f s%n", total);
      Path tj = Path.of(base + "-tuning.json");
      writeFile(tj, Json.pretty(new LinkedHashMap<>(tuned.tuning())));
      System.out.println("wrote " + tj);
    }
  }

  /**
   * Checks and times every workload, plain then fused, printing one line per row as it goes.
   *
   * @param ours the implementation under test, or null for none
   * @throws IllegalStateException when an implementation's output is wrong
   */
  public static List<Result> run(
      List<Workload> workloads, OursKernel ours, WallClockTiming timing, PrintStream log)
      throws OrtException {
    return run(workloads, ours, null, timing, log);
  }

  /**
   * As {@link #run(List, OursKernel, WallClockTiming, PrintStream)}, with the generated Java
   * kernels ({@code kgJava}, or null for none) checked and timed too.
   */
  public static List<Result> run(
      List<Workload> workloads,
      OursKernel ours,
      OursKernel kgJava,
      WallClockTiming timing,
      PrintStream log)
      throws OrtException {
    List<Result> results = new ArrayList<>();
    for (Workload w : workloads) {
      for (boolean fused : new boolean[] {false, true}) {
        Result r = measure(w, fused, ours, kgJava, timing);
        log.printf(Locale.ROOT, "  %s%n", row(r));
        results.add(r);
      }
    }
    return results;
  }

  private static Result measure(
      Workload w, boolean fused, OursKernel ours, OursKernel kgJava, WallClockTiming timing)
      throws OrtException {
    Random random = new Random(42);
    float[] in = uniform(random, w.inputSize(), -1f, 1f);
    float[] filter = uniform(random, w.filterSize(), -1f, 1f);
    float[] scale = uniform(random, w.outChannels(), 0.5f, 1.5f);
    float[] shift = uniform(random, w.outChannels(), -0.5f, 0.5f);
    String label = w.name() + (fused ? " fused" : "");

    DepthwiseImpl java = JavaLoops.of(w, fused);
    float[] expected = new float[w.outputSize()];
    java.run(in, filter, scale, shift, expected);

    // Ours (tuned first, when it is the tuned kernel), ONNX Runtime and the generated Java
    // kernels, each checked against the Java loops, then timed side by side (alternating rounds,
    // see WallClockTiming#sideBySide): a change in a shared machine's load falls on all of them.
    DepthwiseImpl impl = ours == null ? null : ours.create(w, fused);
    Runnable oursRun = null;
    if (impl != null) {
      float[] got = new float[w.outputSize()];
      impl.run(in, filter, scale, shift, got);
      check("ours (" + ours.name() + ")", label, expected, got);
      oursRun = impl.prepare(in, filter, scale, shift, got);
    }
    DepthwiseImpl generated = kgJava == null ? null : kgJava.create(w, fused);
    Runnable kgJavaRun = null;
    if (generated != null) {
      float[] got = new float[w.outputSize()];
      generated.run(in, filter, scale, shift, got);
      check("generated Java (" + kgJava.name() + ")", label, expected, got);
      kgJavaRun = generated.prepare(in, filter, scale, shift, got);
    }
    Double ortUs;
    Double oursUs = null;
    Double kgJavaUs = null;
    try (OrtRunner ort = OrtRunner.of(w, fused, filter, scale, shift)) {
      check("ONNX Runtime", label, expected, ort.run(in));
      List<Runnable> ops = new ArrayList<>(List.of(ort.timed(in)));
      if (oursRun != null) {
        ops.add(oursRun);
      }
      if (kgJavaRun != null) {
        ops.add(kgJavaRun);
      }
      double[] t = timing.sideBySide(ROUNDS, ops.toArray(Runnable[]::new));
      ortUs = t[0];
      oursUs = oursRun == null ? null : t[1];
      kgJavaUs = kgJavaRun == null ? null : t[t.length - 1];
    }

    float[] scratch = new float[w.outputSize()];
    double javaUs = timing.medianMicros(() -> java.run(in, filter, scale, shift, scratch));
    return new Result(w.name(), fused, oursUs, ortUs, javaUs, kgJavaUs);
  }

  /** Throws unless {@code got} is within {@link #TOLERANCE} of {@code expected} everywhere. */
  static void check(String who, String workload, float[] expected, float[] got) {
    if (got.length != expected.length) {
      throw new IllegalStateException(
          who
              + " gave "
              + got.length
              + " outputs on "
              + workload
              + ", expected "
              + expected.length);
    }
    double worst = 0;
    int worstAt = 0;
    for (int i = 0; i < expected.length; i++) {
      double err = Math.abs((double) got[i] - expected[i]);
      // NaN compares false: catch it explicitly.
      if (!(err <= worst)) {
        worst = Double.isNaN(err) ? Double.POSITIVE_INFINITY : err;
        worstAt = i;
      }
    }
    if (worst > TOLERANCE) {
      throw new IllegalStateException(
          String.format(
              Locale.ROOT,
              "%s is wrong on %s: max abs error %.3g at flat index %d (got %s, expected %s)",
              who,
              workload,
              worst,
              worstAt,
              got[worstAt],
              expected[worstAt]));
    }
  }

  private static float[] uniform(Random random, int count, float lo, float hi) {
    float[] a = new float[count];
    for (int i = 0; i < count; i++) {
      a[i] = lo + (hi - lo) * random.nextFloat();
    }
    return a;
  }

  /**
   * The machine ({@link CpuInfo#toJson}) and the results: {@code {"machine": {...}, "results":
   * [...]}}, the results as in {@link #toJson(List)}.
   */
  public static String toJson(CpuInfo cpu, List<Result> results) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("machine", cpu.toJson());
    root.put("results", Json.parse(toJson(results)));
    return Json.pretty(root);
  }

  /**
   * The results as a JSON list of {@code {workload, fused, ours_us, ort_us, java_us, kgjava_us}}:
   * kgjava_us is the generated Java kernels', java_us the hand-written Java loops'.
   */
  public static String toJson(List<Result> results) {
    List<Object> list = new ArrayList<>();
    for (Result r : results) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("workload", r.workload());
      o.put("fused", r.fused());
      o.put("ours_us", round(r.oursUs()));
      o.put("ort_us", round(r.ortUs()));
      o.put("java_us", round(r.javaUs()));
      o.put("kgjava_us", round(r.kgJavaUs()));
      list.add(o);
    }
    return Json.pretty(list);
  }

  private static Double round(Double us) {
    // Tenths of a microsecond: finer digits are noise.
    return us == null ? null : Math.round(us * 10) / 10.0;
  }

  private static final String ROW_FORMAT = "%-30s %-5s %10s %10s %12s %10s %9s %11s";

  /** A fixed-width table of the results with a header line. */
  public static String table(List<Result> results) {
    StringBuilder sb = new StringBuilder();
    sb.append(
            String.format(
                Locale.ROOT,
                ROW_FORMAT,
                "workload",
                "fused",
                "ours_us",
                "ort_us",
                "java_us",
                "kgjava_us",
                "ort/ours",
                "kgjava/ours"))
        .append('\n');
    for (Result r : results) {
      sb.append(row(r)).append('\n');
    }
    return sb.toString();
  }

  private static String row(Result r) {
    return String.format(
        Locale.ROOT,
        ROW_FORMAT,
        r.workload(),
        r.fused() ? "yes" : "no",
        fmt(r.oursUs(), "%.1f"),
        fmt(r.ortUs(), "%.1f"),
        fmt(r.javaUs(), "%.1f"),
        fmt(r.kgJavaUs(), "%.1f"),
        fmt(r.ortOverOurs(), "%.2fx"),
        fmt(r.kgJavaOverOurs(), "%.2fx"));
  }

  private static String fmt(Double value, String format) {
    return value == null ? "-" : String.format(Locale.ROOT, format, value);
  }

  /** Geometric means of ort/ours (and, for scale, java/ort), plain and fused separately. */
  public static String summary(List<Result> results) {
    StringBuilder sb = new StringBuilder();
    for (boolean fused : new boolean[] {false, true}) {
      List<Double> ortOverOurs = new ArrayList<>();
      List<Double> javaOverOrt = new ArrayList<>();
      for (Result r : results) {
        if (r.fused() != fused) {
          continue;
        }
        if (r.ortOverOurs() != null) {
          ortOverOurs.add(r.ortOverOurs());
        }
        if (r.javaUs() != null && r.ortUs() != null) {
          javaOverOrt.add(r.javaUs() / r.ortUs());
        }
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "%s: geomean ort/ours = %s over %d workloads; geomean java/ort = %s%n",
              fused ? "fused" : "plain",
              fmt(geomean(ortOverOurs), "%.2fx"),
              ortOverOurs.size(),
              fmt(geomean(javaOverOrt), "%.2fx")));
    }
    return sb.toString().stripTrailing();
  }

  /**
   * The geometric mean of generated Java over ours (C) on the seed workloads ({@code seedNames}),
   * plain and fused together: how far the pure-Java fallback is from the native library.
   */
  public static String javaSummary(List<Result> results, List<String> seedNames) {
    List<Double> ratios = new ArrayList<>();
    for (Result r : results) {
      if (seedNames.contains(r.workload()) && r.kgJavaOverOurs() != null) {
        ratios.add(r.kgJavaOverOurs());
      }
    }
    return String.format(
        Locale.ROOT,
        "seed workloads: geomean kgjava/ours (generated Java over C) = %s over %d rows",
        fmt(geomean(ratios), "%.2fx"),
        ratios.size());
  }

  /** Geometric mean, or null of an empty list. */
  static Double geomean(List<Double> values) {
    if (values.isEmpty()) {
      return null;
    }
    double logSum = 0;
    for (double v : values) {
      logSum += Math.log(v);
    }
    return Math.exp(logSum / values.size());
  }

  private static String argValue(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  private static void writeFile(Path path, String text) throws IOException {
    Path parent = path.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(path, text);
  }
}
