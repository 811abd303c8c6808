package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.bench.Workload;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.topi.DepthwiseSchedules.DirectConfig;
import dev.kernelgen.topi.DepthwiseSchedules.GpuConfig;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.Fusion;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Pooling;
import dev.kernelgen.topi.Reduction;
import dev.kernelgen.topi.Transform;
import dev.kernelgen.tune.TuningLog;
import dev.kernelgen.tune.TuningRecord;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The GPU schedules that the device tests and {@code bench/gpu.sh sanitize} run, on small ragged
 * shapes: every library operator's GPU schedules (the library's default for each, as the driver
 * picks it, and the explicit matmul / conv2d / softmax ones), and the depthwise configurations a
 * GPU tuning log chose.
 */
public final class LibrarySchedules {
  private LibrarySchedules() {}

  /** Every library operator's GPU schedules for {@code target}, by name. */
  public static Map<String, Schedule> gpu(Target target) {
    Map<String, Schedule> m = new LinkedHashMap<>(OpSchedules.gpuSamples());
    Map<String, Tensor> ops = new LinkedHashMap<>();
    Tensor in = placeholder("Input", FLOAT32, 2, 3, 11, 9);
    Tensor fd = placeholder("Filter", FLOAT32, 3, 2, 3, 3);
    Tensor scale = placeholder("Scale", FLOAT32, 6);
    Tensor shift = placeholder("Shift", FLOAT32, 6);
    Tensor dw = Nn.depthwiseConv2dNchw(in, fd, 2, 2, Padding.same(11, 9, 3, 3, 2, 2, 1), 1);
    ops.put(
        "depthwise_scale_shift_relu",
        Elementwise.relu(Elementwise.scaleShift(dw, scale, shift, 1)));
    Tensor nhwc = placeholder("InputNhwc", FLOAT32, 2, 11, 9, 3);
    Tensor fh = placeholder("FilterHwcm", FLOAT32, 3, 3, 3, 1);
    ops.put(
        "depthwise_nhwc_dilated",
        Conv.depthwiseConv2dNhwc(nhwc, fh, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 2), 2));
    Tensor x = placeholder("X", FLOAT32, 3, 17, 5);
    Tensor y = placeholder("Y", FLOAT32, 17, 5);
    ops.put(
        "five_elementwise",
        Elementwise.tanh(
            Elementwise.sigmoid(Elementwise.relu6(Elementwise.mul(Elementwise.add(x, y), y)))));
    ops.put("softmax_fused", Reduction.softmax(x, 1));
    ops.put("log_softmax_fused", Reduction.logSoftmax(x, 2));
    ops.put("mean_then_div_two_kernels", Elementwise.div(x, Reduction.sum(x, true)));
    ops.put("max_pool", Pooling.maxPool2d(in, 3, 3, 2, 2, new Padding(1, 1, 1, 1)));
    ops.put("avg_pool", Pooling.avgPool2d(in, 3, 3, 1, 1, new Padding(1, 1, 1, 1), false));
    ops.put("global_avg_pool", Pooling.globalAvgPool(in));
    ops.put("transpose_relu", Elementwise.relu(Transform.nchwToNhwc(in)));
    Tensor ba = placeholder("BA", FLOAT32, 3, 9, 5);
    Tensor bb = placeholder("BB", FLOAT32, 3, 5, 7);
    ops.put("batch_matmul", Linalg.batchMatmul(ba, bb));
    Tensor g = placeholder("Gamma", FLOAT32, 3);
    Tensor b = placeholder("Beta", FLOAT32, 3);
    Tensor mean = placeholder("Mean", FLOAT32, 3);
    Tensor var = placeholder("Var", FLOAT32, 3);
    ops.put(
        "batch_norm",
        Elementwise.batchNormInference(in, g, b, mean, Elementwise.mul(var, var), 1e-5, 1));
    for (var e : ops.entrySet()) {
      m.put(e.getKey(), Fusion.schedule(target, List.of(e.getValue()), 64));
    }
    // The library's own default of each operator (what the driver builds without a @Schedule).
    Tensor a = placeholder("A", FLOAT32, 37, 29);
    Tensor bm = placeholder("B", FLOAT32, 29, 45);
    ops.put("matmul", Linalg.matmul(a, bm));
    Tensor cin = placeholder("ConvInput", FLOAT32, 2, 5, 11, 9);
    Tensor cf = placeholder("ConvFilter", FLOAT32, 6, 5, 3, 3);
    ops.put("conv2d", Conv.conv2dNchw(cin, cf, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 1), 1));
    Tensor rows = placeholder("Rows", FLOAT32, 45, 67);
    ops.put("softmax_rows", Reduction.softmax(rows, 1));
    ops.put("depthwise", dw);
    for (var e : ops.entrySet()) {
      Tensor out = e.getValue();
      OperatorDef def = OperatorDef.of(Schedule.create(out).inputs(), out);
      m.put(e.getKey() + "_default", DefaultSchedules.forTarget(target, def, Knobs.defaults()));
    }
    return m;
  }

  /** A depthwise schedule with its arguments (inputs, then the output). */
  public record Depthwise(Schedule schedule, List<Tensor> args) {}

  /**
   * The best configuration of each workload and depthwise task ({@code GpuBench/depthwise}, {@code
   * _direct}, {@code _fused}, {@code _fused_direct}) in a GPU tuning log, each applied to the small
   * ragged workloads of {@link #smallWorkloads}: what the tuned kernels do at the edges, at sizes a
   * sanitizer runs through quickly. Keyed by a readable name.
   */
  public static Map<String, Depthwise> tunedDepthwise(Path tuningLog) {
    Map<String, TuningRecord> best = new TreeMap<>();
    for (TuningRecord r : TuningLog.read(tuningLog, System.err::println)) {
      if (!r.isOk() || !r.operator().startsWith("GpuBench/depthwise")) {
        continue;
      }
      best.merge(
          r.operator() + " " + r.shape(),
          r,
          (p, q) -> Comparator.comparingDouble(TuningRecord::medianUs).compare(p, q) <= 0 ? p : q);
    }
    Map<String, Depthwise> out = new LinkedHashMap<>();
    for (TuningRecord r : best.values()) {
      boolean fused = r.operator().contains("_fused");
      boolean direct = r.operator().endsWith("_direct");
      Knobs k = Knobs.configured(r.config().values());
      for (Workload w : smallWorkloads()) {
        SeedSchedules s = SeedSchedules.of(w);
        Schedule sched;
        String config;
        if (direct) {
          DirectConfig d = GpuTuning.directConfig(k);
          config = d.toString();
          sched = fused ? s.fusedDirect(d) : s.plainDirect(d);
        } else {
          GpuConfig c = GpuTuning.config(k);
          config = c.toString();
          sched = fused ? s.fused(c) : s.plain(c);
        }
        out.putIfAbsent(
            (fused ? "fused " : "plain ") + config + " on " + w.name(),
            new Depthwise(sched, fused ? s.fusedArgs() : s.plainArgs()));
      }
    }
    return out;
  }

  /** Ragged workloads: odd sizes, a channel multiplier, stride 2, a 5x5 filter. */
  public static List<Workload> smallWorkloads() {
    return List.of(
        Workload.of(1, 3, 23, 17, 1, 3, 1, dev.kernelgen.bench.Padding.SAME),
        Workload.of(2, 2, 19, 21, 2, 5, 2, dev.kernelgen.bench.Padding.SAME));
  }
}
