package dev.kernelgen.bench.gpu;

import dev.kernelgen.bench.JavaLoops;
import dev.kernelgen.bench.Padding;
import dev.kernelgen.bench.Workload;
import dev.kernelgen.bench.Workloads;
import dev.kernelgen.json.Json;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.measure.LaunchTiming;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.DepthwiseSchedules.DirectConfig;
import dev.kernelgen.topi.DepthwiseSchedules.GpuConfig;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.GpuLimits;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.Tuner;
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
 * kernelgen's side of the GPU benchmark ({@code bench/gpu.sh}): checks every kernel of the seed
 * schedules against the oracle, reproduces the article's thread-pair search on [1,256,32,32], and
 * times the depthwise and fused kernels of every workload: time per call (back-to-back launches
 * between two events) and GPU time (launches captured in a CUDA graph, replayed between events).
 * Writes {@code ours.json} into the folder given as the first argument.
 *
 * <p>Each workload's configuration is found by the tuner ({@link GpuTuning}): at most {@code
 * -Dkernels.bench.trials} configurations (48 by default) and {@code -Dkernels.bench.tuneSeconds}
 * (90) per workload and variant, the trials appended to {@code tuning.jsonl} in the output folder.
 * A rerun with the same folder resumes: what the log holds is not measured again. {@code --only
 * TEXT} keeps the workloads whose name contains TEXT; {@code --no-thread-pairs} skips the article's
 * thread-pair table (for a rerun).
 */
public final class GpuBench {
  private static final int CALLS = 200;
  private static final int GRAPH_LAUNCHES = 50;
  private static final int REPEATS = 7;

  private GpuBench() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "bench/results");
    boolean quick = List.of(args).contains("--quick");
    int onlyAt = List.of(args).indexOf("--only");
    String only = onlyAt >= 0 && onlyAt + 1 < args.length ? args[onlyAt + 1] : null;
    Files.createDirectories(out);
    Device device = gpu();
    System.out.printf("gpu-bench on %s (%s)%n", device.name(), device.target());
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("device", device.name());
    report.put("checks", checks(device, quick));
    write(out, report);
    if (List.of(args).contains("--checks-only")) {
      // The sanitizer's run (bench/gpu.sh sanitize): every library operator's GPU schedules and
      // the tuned depthwise configurations too (--tuned LOG), all on small shapes.
      int tunedAt = List.of(args).indexOf("--tuned");
      Path tuned = tunedAt >= 0 && tunedAt + 1 < args.length ? Path.of(args[tunedAt + 1]) : null;
      report.put("library_checks", libraryChecks(device, tuned));
      write(out, report);
      device.close();
      return;
    }
    if (!List.of(args).contains("--no-thread-pairs")) {
      report.put("thread_pairs", threadPairs(device, quick));
    }
    write(out, report);
    List<Object> results = new ArrayList<>();
    report.put("results", results);
    List<Workload> workloads =
        quick ? List.of(Workload.of(1, 8, 21, 21, 1, 3, 1, Padding.SAME)) : Workloads.all();
    if (only != null) {
      workloads = workloads.stream().filter(w -> w.name().contains(only)).toList();
    }
    // The article's last step, thread tuning by search, done by the tuner: each workload's
    // space of blockings, thread pairs and virtual threads (the hand-picked list of earlier runs
    // measured first), candidates compiled in parallel, checked and timed on the GPU; the trials
    // are appended to tuning.jsonl in the output directory, and a rerun resumes from it.
    Path tuningLog = out.resolve("tuning.jsonl");
    List<TuningRecord> previous = TuningLog.read(tuningLog, line -> System.out.println(line));
    int trials = Integer.getInteger("kernels.bench.trials", quick ? 6 : 48);
    int tuneSeconds = Integer.getInteger("kernels.bench.tuneSeconds", quick ? 60 : 90);
    System.out.printf(
        "%-30s %-6s %9s %9s %9s %9s %8s  %s%n",
        "workload", "fused", "seed_us", "seed_gpu", "ours_us", "ours_gpu", "GB/s", "best config");
    List<Object> tuningTimes = new ArrayList<>();
    report.put("tuning", tuningTimes);
    for (Workload w : workloads) {
      for (boolean fused : new boolean[] {false, true}) {
        Map<String, Object> r;
        try {
          String label = w.name() + (fused ? " fused" : "");
          // Two schedule families, each searched by the tuner: the seed's shared-memory tiles
          // (blocks, thread pairs, virtual threads) and the direct one (rows per thread, threads),
          // which reads through L1 and suits the large bandwidth-bound workloads.
          Tuner.Options o =
              Tuner.Options.defaults()
                  .withTrials(trials)
                  .withBatch(Math.max(4, Runtime.getRuntime().availableProcessors() - 1))
                  .withPatience(trials / 2)
                  .withTimeLimit(java.time.Duration.ofSeconds(tuneSeconds))
                  .withFirst(first(w, quick));
          Tuner.Result tr =
              search(
                  device,
                  w,
                  fused,
                  GpuTuning.task(device, w, fused),
                  o,
                  label,
                  previous,
                  tuningLog);
          Tuner.Options od =
              Tuner.Options.defaults()
                  .withTrials(Math.max(4, trials / 2))
                  .withBatch(Math.max(4, Runtime.getRuntime().availableProcessors() - 1))
                  .withPatience(trials / 4)
                  .withTimeLimit(java.time.Duration.ofSeconds(Math.max(20, tuneSeconds / 2)))
                  .withFirst(quick ? List.of() : GpuTuning.directFirst());
          Tuner.Result td =
              search(
                  device,
                  w,
                  fused,
                  GpuTuning.directTask(device, w, fused),
                  od,
                  label,
                  previous,
                  tuningLog);
          SeedSchedules ss = SeedSchedules.of(w);
          String bestConfig;
          Schedule bestSchedule;
          if (td.best() != null
              && (tr.best() == null || td.best().medianUs() < tr.best().medianUs())) {
            DirectConfig d = GpuTuning.directConfig(Knobs.configured(td.best().config().values()));
            bestConfig = d.toString();
            bestSchedule = fused ? ss.fusedDirect(d) : ss.plainDirect(d);
          } else if (tr.best() != null) {
            GpuConfig g = GpuTuning.config(Knobs.configured(tr.best().config().values()));
            bestConfig = g.toString();
            bestSchedule = fused ? ss.fused(g) : ss.plain(g);
          } else {
            throw new IllegalStateException("no configuration ran: " + tr.measured());
          }
          List<Object> tried = new ArrayList<>();
          for (Tuner.Result res : List.of(tr, td)) {
            for (Measurement x : res.measured()) {
              if (x.isOk()) {
                tried.add(List.of(x.config().key(), round(x.medianUs())));
              }
            }
          }
          // The searches' own clocks (Tuner.Result.elapsed): this loop times no kernel itself.
          double searchS = round((tr.elapsed().toMillis() + td.elapsed().toMillis()) / 1e3);
          Map<String, Object> seed = measure(device, w, fused, GpuConfig.seed(), null);
          r = measure(device, w, fused, bestConfig, ss, bestSchedule, null);
          r.put("seed_config", GpuConfig.seed().toString());
          r.put("seed_us", seed.get("ours_us"));
          r.put("seed_gpu_us", seed.get("ours_gpu_us"));
          r.put("search", tried);
          r.put("search_s", searchS);
          Map<String, Object> tt = new LinkedHashMap<>();
          tt.put("workload", w.name());
          tt.put("fused", fused);
          tt.put("space", tr.space().size() + td.space().size());
          tt.put("trials", tr.measured().size() + td.measured().size());
          tt.put("failed", tr.failed() + td.failed());
          tt.put("resumed", tr.resumed() + td.resumed());
          tt.put("tuning_s", searchS);
          tuningTimes.add(tt);
        } catch (RuntimeException e) {
          // One broken workload is reported, and the run goes on.
          e.printStackTrace();
          r = new LinkedHashMap<>();
          r.put("workload", w.name());
          r.put("fused", fused);
          r.put("error", String.valueOf(e));
        }
        results.add(r);
        System.out.printf(
            "%-30s %-6s %9s %9s %9s %9s %8s  %s%n",
            w.name(),
            fused,
            r.get("seed_us"),
            r.get("seed_gpu_us"),
            r.get("ours_us"),
            r.get("ours_gpu_us"),
            r.get("ours_gbps"),
            r.get("config"));
        write(out, report);
      }
    }
    System.out.println("tuning time per operator and workload (s):");
    for (Object o : tuningTimes) {
      System.out.println("  " + o);
    }
    System.out.println("wrote " + tuningLog);
    System.out.println("wrote " + out.resolve("ours.json"));
    device.close();
  }

  /** One tuner search of a workload's task, its trials appended to the log. */
  private static Tuner.Result search(
      Device device,
      Workload w,
      boolean fused,
      TuningTask task,
      Tuner.Options o,
      String label,
      List<TuningRecord> previous,
      Path tuningLog) {
    GpuTuning.DeviceMeasurer m = new GpuTuning.DeviceMeasurer(device, w, fused);
    return Tuner.tune(
        task,
        m,
        o,
        previous,
        batch -> TuningLog.append(tuningLog, TuningRecord.of(task, m, batch)),
        p -> System.out.println("  tuning " + label + " (" + task.operator() + "): " + p.line()));
  }

  /** Every seed schedule's kernel against the oracle, on small and ragged shapes. */
  private static List<Object> checks(Device device, boolean quick) {
    List<Workload> ws =
        List.of(
            Workload.of(1, 3, 23, 17, 1, 3, 1, Padding.SAME),
            Workload.of(2, 2, 19, 21, 2, 5, 2, Padding.SAME),
            Workload.of(1, 16, 32, 32, 1, 3, 1, Padding.SAME));
    List<Object> out = new ArrayList<>();
    int failed = 0;
    for (Workload w : quick ? ws.subList(0, 1) : ws) {
      SeedSchedules s = SeedSchedules.of(w);
      Map<String, Schedule> plain = new LinkedHashMap<>();
      plain.put("1 one block per channel", s.step1());
      plain.put("2-3 blocking and threads " + GpuConfig.seed(), s.plain(GpuConfig.seed()));
      GpuConfig vt = new GpuConfig(32, 32, 4, 4, 2, 2);
      plain.put("4 virtual threads " + vt, s.plain(vt));
      GpuConfig small = new GpuConfig(8, 16, 2, 8, 2, 1);
      plain.put("2-4 ragged " + small, s.plain(small));
      DirectConfig direct = new DirectConfig(3, 2, 16);
      plain.put(direct.toString(), s.plainDirect(direct));
      for (var e : plain.entrySet()) {
        failed +=
            record(out, w, e.getKey(), OracleCheck.check(device, e.getValue(), s.plainArgs(), "k"));
      }
      for (GpuConfig k : new GpuConfig[] {GpuConfig.seed(), vt}) {
        failed +=
            record(
                out, w, "5 fused " + k, OracleCheck.check(device, s.fused(k), s.fusedArgs(), "k"));
      }
      failed +=
          record(
              out,
              w,
              "fused " + direct,
              OracleCheck.check(device, s.fusedDirect(direct), s.fusedArgs(), "k"));
    }
    System.out.printf("checks: %d kernels against the oracle, %d failed%n", out.size(), failed);
    return out;
  }

  /**
   * Every library operator's GPU schedules ({@link LibrarySchedules#gpu}) and, with a tuning log,
   * the best depthwise configurations it holds ({@link LibrarySchedules#tunedDepthwise}), each run
   * once against the oracle.
   */
  static List<Object> libraryChecks(Device device, Path tuningLog) {
    List<Object> out = new ArrayList<>();
    int failed = 0;
    for (var e : LibrarySchedules.gpu(device.target()).entrySet()) {
      List<Tensor> args = new ArrayList<>(e.getValue().inputs());
      args.addAll(e.getValue().outputs());
      failed += record(out, "library", e.getKey(), check(device, e.getValue(), args));
    }
    int library = out.size();
    List<String> skipped = new ArrayList<>();
    if (tuningLog != null) {
      for (var e : LibrarySchedules.tunedDepthwise(tuningLog).entrySet()) {
        // A configuration tuned at a large shape can need more shared memory at a small one than
        // a block may have; the tuner rejects it there before compiling, and so does this check.
        String over =
            GpuLimits.cudaDefault()
                .check(
                    Lower.lower(
                        e.getValue().schedule(), "k", e.getValue().args(), device.target(), null));
        if (over != null) {
          skipped.add(e.getKey() + ": " + over);
          continue;
        }
        failed +=
            record(
                out,
                "tuned depthwise",
                e.getKey(),
                check(device, e.getValue().schedule(), e.getValue().args()));
      }
    }
    skipped.forEach(s -> System.out.println("SKIPPED (over the block limits) " + s));
    System.out.printf(
        "library checks: %d library schedules, %d tuned depthwise configurations (%s) against"
            + " the oracle, %d failed, %d skipped over the block limits%n",
        library, out.size() - library, tuningLog, failed, skipped.size());
    return out;
  }

  private static String check(Device device, Schedule s, List<Tensor> args) {
    try {
      return OracleCheck.check(device, s, args, "k");
    } catch (RuntimeException e) {
      return String.valueOf(e);
    }
  }

  private static int record(List<Object> out, Workload w, String schedule, String diff) {
    return record(out, w.name(), schedule, diff);
  }

  private static int record(List<Object> out, String what, String schedule, String diff) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("workload", what);
    r.put("schedule", schedule);
    r.put("ok", diff == null);
    if (diff != null) {
      r.put("error", diff.length() > 2000 ? diff.substring(0, 2000) : diff);
      System.out.println("FAILED " + what + " " + schedule + ": " + r.get("error"));
    }
    out.add(r);
    return diff == null ? 0 : 1;
  }

  /** The article's search over threads per block for [1,256,32,32], 3x3, SAME. */
  private static Map<String, Object> threadPairs(Device device, boolean quick) {
    Workload w = Workload.of(1, quick ? 8 : 256, 32, 32, 1, 3, 1, Padding.SAME);
    List<Object> rows = new ArrayList<>();
    double best = Double.MAX_VALUE;
    String bestPair = null;
    System.out.println("thread pairs (y, x) on " + w.name() + ": GPU time us");
    List<Job> jobs = new ArrayList<>();
    for (int ty = 1; ty <= 32; ty *= 2) {
      for (int tx = 1; tx <= 32; tx *= 2) {
        jobs.add(new Job(w, false, new GpuConfig(32, 32, ty, tx, 1, 1)));
      }
    }
    Map<Job, DeviceOperator.Compiled> compiled = new java.util.concurrent.ConcurrentHashMap<>();
    compileAll(device, jobs, compiled);
    for (int ty = 1; ty <= 32; ty *= 2) {
      StringBuilder line = new StringBuilder(String.format("  y=%2d:", ty));
      for (int tx = 1; tx <= 32; tx *= 2) {
        GpuConfig k = new GpuConfig(32, 32, ty, tx, 1, 1);
        Map<String, Object> r = measure(device, w, false, k, compiled.get(new Job(w, false, k)));
        double us = (Double) r.get("ours_gpu_us");
        rows.add(List.of(ty, tx, us));
        line.append(String.format(" %7.2f", us));
        if (us < best) {
          best = us;
          bestPair = ty + "x" + tx;
        }
      }
      System.out.println(line);
    }
    System.out.printf("  best: %s threads at %.2f us%n", bestPair, best);
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("workload", w.name());
    t.put("rows_y_x_us", rows);
    t.put("best", bestPair);
    t.put("best_us", best);
    return t;
  }

  /** Checks one workload's kernel against the plain Java loop, then times it. */
  static Map<String, Object> measure(
      Device device, Workload w, boolean fused, GpuConfig k, DeviceOperator.Compiled pre) {
    SeedSchedules s = SeedSchedules.of(w);
    return measure(device, w, fused, k.toString(), s, fused ? s.fused(k) : s.plain(k), pre);
  }

  /**
   * Checks one workload's kernel, scheduled by {@code schedule} (a schedule of {@code s}'s
   * tensors), then times it.
   */
  static Map<String, Object> measure(
      Device device,
      Workload w,
      boolean fused,
      String config,
      SeedSchedules s,
      Schedule schedule,
      DeviceOperator.Compiled pre) {
    List<Tensor> args = fused ? s.fusedArgs() : s.plainArgs();
    DeviceOperator.Compiled c =
        pre != null
            ? pre
            : DeviceOperator.compile(device.target(), schedule, args, fused ? "fused" : "plain");
    Random random = new Random(42);
    float[] in = uniform(random, w.inputSize(), -1, 1);
    float[] filter = uniform(random, w.filterSize(), -1, 1);
    float[] scale = uniform(random, w.outChannels(), 0.5f, 1.5f);
    float[] shift = uniform(random, w.outChannels(), -0.5f, 0.5f);
    List<DeviceBuffer> buffers = new ArrayList<>();
    buffers.add(device.upload(HostTensor.of(in)));
    buffers.add(device.upload(HostTensor.of(filter)));
    if (fused) {
      buffers.add(device.upload(HostTensor.of(scale)));
      buffers.add(device.upload(HostTensor.of(shift)));
    }
    DeviceBuffer output = device.allocate(DataType.FLOAT32, w.outputSize());
    buffers.add(output);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("workload", w.name());
    r.put("fused", fused);
    r.put("config", config);
    try (DeviceOperator op = new DeviceOperator(device, c, Map.of())) {
      op.launch(buffers);
      HostTensor got = HostTensor.zeros(DataType.FLOAT32, w.outputSize());
      output.copyToHost(got);
      float[] expected = new float[w.outputSize()];
      JavaLoops.of(w, fused).run(in, filter, scale, shift, expected);
      float[] g = got.toFloatArray();
      double maxErr = 0;
      for (int i = 0; i < g.length; i++) {
        maxErr = Math.max(maxErr, Math.abs(g[i] - expected[i]));
      }
      if (!(maxErr <= 1e-3)) {
        throw new IllegalStateException(
            w.name() + (fused ? " fused" : "") + ": max error " + maxErr);
      }
      r.put("max_abs_err", maxErr);
      r.put("kernels", op.kernelCount());
      r.put("launch", op.launchConfigs().toString());
      double perCall = perCall(device, op, buffers);
      double gpu = device instanceof CudaDevice cuda ? graphTime(cuda, op, buffers) : perCall;
      long bytes =
          4L
              * (w.inputSize()
                  + w.filterSize()
                  + w.outputSize()
                  + (fused ? 2L * w.outChannels() : 0));
      r.put("ours_us", round(perCall));
      r.put("ours_gpu_us", round(gpu));
      r.put("bytes", bytes);
      r.put("ours_gbps", round(bytes / gpu / 1e3));
    } finally {
      buffers.forEach(DeviceBuffer::close);
    }
    return r;
  }

  private static double perCall(Device device, DeviceOperator op, List<DeviceBuffer> buffers) {
    return LaunchTiming.bestPerCall(device, () -> op.launch(buffers), 20, REPEATS, CALLS);
  }

  /** GPU time per launch: launches captured in a CUDA graph, replayed between two events. */
  static double graphTime(CudaDevice device, DeviceOperator op, List<DeviceBuffer> buffers) {
    return LaunchTiming.bestGraphTime(device, () -> op.launch(buffers), GRAPH_LAUNCHES, REPEATS);
  }

  /** One candidate of the search: a workload, plain or fused, with a configuration. */
  record Job(Workload w, boolean fused, GpuConfig k) {}

  /** The configurations searched for a workload: blockings, thread pairs, virtual threads. */
  static List<GpuConfig> space(Workload w, boolean quick) {
    List<GpuConfig> out = new ArrayList<>();
    out.add(GpuConfig.seed());
    int[][] threads = {{8, 8}, {16, 16}, {16, 32}, {32, 16}, {32, 32}, {8, 32}};
    for (int[] t : threads) {
      GpuConfig k = new GpuConfig(32, 32, t[0], t[1], 1, 1);
      if (!out.contains(k)) {
        out.add(k);
      }
    }
    out.add(new GpuConfig(32, 32, 8, 8, 2, 2));
    out.add(new GpuConfig(32, 32, 16, 16, 2, 1));
    out.add(new GpuConfig(16, 16, 16, 16, 1, 1));
    out.add(new GpuConfig(16, 32, 16, 32, 1, 1));
    out.add(new GpuConfig(64, 32, 16, 32, 1, 1));
    out.add(new GpuConfig(64, 64, 32, 32, 1, 1));
    out.add(new GpuConfig(8, 32, 8, 32, 1, 1));
    return quick ? out.subList(0, 3) : out;
  }

  /** Compiles the candidates in parallel (nvcc runs as separate processes). */
  static void compileAll(Device device, List<Job> jobs, Map<Job, DeviceOperator.Compiled> into) {
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors() - 1);
    try (var pool = java.util.concurrent.Executors.newFixedThreadPool(threads)) {
      for (Job j : jobs) {
        pool.submit(
            () -> {
              try {
                SeedSchedules s = SeedSchedules.of(j.w());
                into.put(
                    j,
                    DeviceOperator.compile(
                        device.target(),
                        j.fused() ? s.fused(j.k()) : s.plain(j.k()),
                        j.fused() ? s.fusedArgs() : s.plainArgs(),
                        j.fused() ? "fused" : "plain"));
              } catch (RuntimeException e) {
                System.out.println("candidate " + j + " failed to compile: " + e.getMessage());
              }
            });
      }
    }
  }

  /**
   * The configurations measured before the search proper: the earlier hand-picked list, then wide
   * blocks.
   */
  private static List<Configuration> first(Workload w, boolean quick) {
    List<GpuConfig> cs = new ArrayList<>(space(w, quick));
    if (!quick) {
      cs.addAll(GpuTuning.bandwidthCandidates());
    }
    return cs.stream().distinct().map(GpuTuning::configuration).toList();
  }

  /** GPU time of one call: in CUDA graphs on CUDA, back-to-back launches elsewhere. */
  static double gpuTime(Device device, DeviceOperator op, List<DeviceBuffer> buffers) {
    return device instanceof CudaDevice cuda
        ? graphTime(cuda, op, buffers)
        : perCall(device, op, buffers);
  }

  private static float[] uniform(Random r, int n, float lo, float hi) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = lo + (hi - lo) * r.nextFloat();
    }
    return a;
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  private static void write(Path dir, Map<String, Object> report) throws java.io.IOException {
    Files.writeString(dir.resolve("ours.json"), Json.pretty(report) + "\n");
  }

  /**
   * The GPU the benchmarks run on: CUDA, else an OpenCL device, else an error naming what exists.
   */
  static Device gpu() {
    return Devices.cuda()
        .map(d -> (Device) d)
        .orElseGet(
            () ->
                Devices.openCl()
                    .orElseThrow(
                        () -> new IllegalStateException("no GPU device: " + Devices.describe())));
  }
}
