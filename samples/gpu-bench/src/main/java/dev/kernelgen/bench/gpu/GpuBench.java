package dev.kernelgen.bench.gpu;

import dev.kernelgen.bench.JavaLoops;
import dev.kernelgen.bench.Json;
import dev.kernelgen.bench.Padding;
import dev.kernelgen.bench.Workload;
import dev.kernelgen.bench.Workloads;
import dev.kernelgen.runtime.CudaDevice;
import dev.kernelgen.runtime.CudaGraph;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.DeviceTimer;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.DepthwiseSchedules.GpuConfig;
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
 */
public final class GpuBench {
  private static final int CALLS = 200;
  private static final int GRAPH_LAUNCHES = 50;
  private static final int REPEATS = 7;

  private GpuBench() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "bench/results");
    boolean quick = List.of(args).contains("--quick");
    Files.createDirectories(out);
    Device device =
        Devices.cuda()
            .map(d -> (Device) d)
            .orElseGet(
                () ->
                    Devices.openCl()
                        .orElseThrow(
                            () ->
                                new IllegalStateException("no GPU device: " + Devices.describe())));
    System.out.printf("gpu-bench on %s (%s)%n", device.name(), device.target());
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("device", device.name());
    report.put("checks", checks(device, quick));
    write(out, report);
    if (List.of(args).contains("--checks-only")) {
      device.close();
      return;
    }
    report.put("thread_pairs", threadPairs(device, quick));
    write(out, report);
    List<Object> results = new ArrayList<>();
    report.put("results", results);
    List<Workload> workloads =
        quick ? List.of(Workload.of(1, 8, 21, 21, 1, 3, 1, Padding.SAME)) : Workloads.all();
    System.out.printf(
        "%-30s %-6s %10s %10s %9s  %s%n",
        "workload", "fused", "ours_us", "ours_gpu", "GB/s", "config");
    for (Workload w : workloads) {
      for (boolean fused : new boolean[] {false, true}) {
        Map<String, Object> r;
        try {
          r = measure(device, w, fused, GpuConfig.seed());
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
            "%-30s %-6s %10.2f %10.2f %9.1f  %s%n",
            w.name(),
            fused,
            r.get("ours_us"),
            r.get("ours_gpu_us"),
            r.get("ours_gbps"),
            r.get("config"));
        write(out, report);
      }
    }
    System.out.println("wrote " + out.resolve("ours.json"));
    device.close();
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
      for (var e : plain.entrySet()) {
        failed +=
            record(out, w, e.getKey(), OracleCheck.check(device, e.getValue(), s.plainArgs(), "k"));
      }
      for (GpuConfig k : new GpuConfig[] {GpuConfig.seed(), vt}) {
        failed +=
            record(
                out, w, "5 fused " + k, OracleCheck.check(device, s.fused(k), s.fusedArgs(), "k"));
      }
    }
    System.out.printf("checks: %d kernels against the oracle, %d failed%n", out.size(), failed);
    return out;
  }

  private static int record(List<Object> out, Workload w, String schedule, String diff) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("workload", w.name());
    r.put("schedule", schedule);
    r.put("ok", diff == null);
    if (diff != null) {
      r.put("error", diff.length() > 2000 ? diff.substring(0, 2000) : diff);
      System.out.println("FAILED " + w.name() + " " + schedule + ": " + r.get("error"));
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
    for (int ty = 1; ty <= 32; ty *= 2) {
      StringBuilder line = new StringBuilder(String.format("  y=%2d:", ty));
      for (int tx = 1; tx <= 32; tx *= 2) {
        Map<String, Object> r = measure(device, w, false, new GpuConfig(32, 32, ty, tx, 1, 1));
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
  static Map<String, Object> measure(Device device, Workload w, boolean fused, GpuConfig k) {
    SeedSchedules s = SeedSchedules.of(w);
    Schedule sched = fused ? s.fused(k) : s.plain(k);
    List<Tensor> args = fused ? s.fusedArgs() : s.plainArgs();
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
    r.put("config", k.toString());
    try (DeviceOperator op =
        new DeviceOperator(device, sched, args, fused ? "fused" : "plain", Map.of())) {
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
    for (int i = 0; i < 20; i++) {
      op.launch(buffers);
    }
    device.synchronize();
    double best = Double.MAX_VALUE;
    try (DeviceTimer t = device.timer()) {
      for (int rep = 0; rep < REPEATS; rep++) {
        t.start();
        for (int i = 0; i < CALLS; i++) {
          op.launch(buffers);
        }
        t.stop();
        best = Math.min(best, t.elapsedMillis() * 1e3 / CALLS);
      }
    }
    return best;
  }

  private static double graphTime(
      CudaDevice device, DeviceOperator op, List<DeviceBuffer> buffers) {
    try (CudaGraph graph =
            device.captureGraph(
                () -> {
                  for (int i = 0; i < GRAPH_LAUNCHES; i++) {
                    op.launch(buffers);
                  }
                });
        DeviceTimer t = device.timer()) {
      graph.launch();
      device.synchronize();
      double best = Double.MAX_VALUE;
      for (int rep = 0; rep < REPEATS; rep++) {
        t.start();
        graph.launch();
        t.stop();
        best = Math.min(best, t.elapsedMillis() * 1e3 / GRAPH_LAUNCHES);
      }
      return best;
    }
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
    Files.writeString(dir.resolve("ours.json"), Json.write(report) + "\n");
  }
}
