package dev.kernelgen.bench.gpu;

import dev.kernelgen.measure.LaunchTiming;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.runtime.launch.DeviceTensor;
import dev.kernelgen.samples.convbnswish.ConvBnSwishKernels;
import dev.kernelgen.samples.convbnswish.ConvBnSwishLoop;
import dev.kernelgen.samples.convbnswish.ConvBnSwishLoop.Dims;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The conv + batch norm + swish sample's operator in the GPU operator benchmark, through its
 * generated launcher on device tensors: the auto-scheduler's kernels with the configuration {@code
 * generate} took from the sample's committed tuning log for this device (its untuned pick where the
 * log has no record of it). Checked against the sample's float64 loop ({@link ConvBnSwishLoop},
 * itself checked against the interpreter by the sample's tests): at every output on ragged shapes
 * (the generic kernels), at sampled outputs on the timed shapes (the specialized kernels).
 */
final class ConvBnSwishGpu {
  private ConvBnSwishGpu() {}

  /** The sample's specialized shapes, as bench/ops_torch.py's conv_bn_swish rows. */
  static final List<Dims> SHAPES =
      List.of(new Dims(1, 64, 56, 56, 64), new Dims(8, 32, 28, 28, 32));

  /** Ragged shapes for the generic kernels. */
  static final List<Dims> CHECKS = List.of(new Dims(2, 3, 7, 5, 4), new Dims(1, 17, 13, 11, 19));

  private static final int SAMPLES = 256;

  static String name(Dims d) {
    return "conv_bn_swish_" + d.n() + "x" + d.c() + "x" + d.h() + "x" + d.w() + "_k" + d.k();
  }

  /**
   * The launcher on {@code device} at every output of the ragged shapes; throws on a difference.
   */
  static List<Object> checks(Device device) {
    List<Object> out = new ArrayList<>();
    for (Dims d : CHECKS) {
      try (Run run = new Run(device, d)) {
        double err = run.maxError(d.outputCount(), new Random(0), false);
        boolean ok = err <= 1e-4;
        System.out.printf("check %-22s %s%n", name(d), ok ? "ok" : "FAILED");
        if (!ok) {
          throw new IllegalStateException(name(d) + " differs from the loop by " + err);
        }
        out.add(Map.of("workload", name(d), "ok", true));
      }
    }
    return out;
  }

  /** Sampled check, then time per call and (on CUDA) GPU time, as OpsGpuBench's other rows. */
  static Map<String, Object> measure(Device device, Dims d) {
    try (Run run = new Run(device, d)) {
      double err = run.maxError(SAMPLES, new Random(7), true);
      if (!(err <= 1e-3)) {
        throw new IllegalStateException(name(d) + ": sampled relative error " + err);
      }
      Runnable call = run::call;
      double perCall = LaunchTiming.bestPerCallAdaptive(device, call, 3, 7, 200, 2, 10);
      double gpu =
          device instanceof CudaDevice cuda
              ? LaunchTiming.bestGraphTime(cuda, call, 50, 7)
              : perCall;
      double flops = 2.0 * d.outputCount() * d.c() * 9;
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("workload", name(d));
      r.put("knobs", "the sample's launcher (ConvBnSwishKernels, auto-scheduled)");
      r.put("max_rel_err_sampled", err);
      r.put("ours_us", round(perCall));
      r.put("ours_gpu_us", round(gpu));
      r.put("ours_tflops", round(flops / gpu / 1e6));
      System.out.printf("%-24s %10.1f us per call  %10.1f us GPU  %s%n", name(d), perCall, gpu, r);
      return r;
    }
  }

  /** One shape's random inputs on the device, the output, and the launcher. */
  private static final class Run implements AutoCloseable {
    final Dims d;
    final float[][] host = new float[6][];
    final List<DeviceTensor> inputs = new ArrayList<>();
    final ConvBnSwishKernels k;
    final DeviceTensor out;

    Run(Device device, Dims d) {
      this.d = d;
      Random r = new Random(42);
      long[] perChannel = {d.k()};
      long[][] shapes = {d.input(), d.weight(), perChannel, perChannel, perChannel, perChannel};
      float[][] range = {{-1, 1}, {-1, 1}, {0.5f, 1.5f}, {-1, 1}, {-1, 1}, {0.5f, 1.5f}};
      for (int i = 0; i < 6; i++) {
        long count = 1;
        for (long s : shapes[i]) {
          count *= s;
        }
        host[i] = new float[Math.toIntExact(count)];
        for (int j = 0; j < host[i].length; j++) {
          host[i][j] = range[i][0] + r.nextFloat() * (range[i][1] - range[i][0]);
        }
        try (HostTensor h = HostTensor.of(host[i], shapes[i])) {
          inputs.add(DeviceTensor.upload(device, h));
        }
      }
      k = ConvBnSwishKernels.load(device);
      out =
          k.allocateConvBnSwishOutput(
              inputs.get(0),
              inputs.get(1),
              inputs.get(2),
              inputs.get(3),
              inputs.get(4),
              inputs.get(5));
    }

    void call() {
      k.convBnSwish(
          inputs.get(0),
          inputs.get(1),
          inputs.get(2),
          inputs.get(3),
          inputs.get(4),
          inputs.get(5),
          out);
    }

    /** Runs once; the largest relative error of {@code count} outputs (sampled, or all). */
    double maxError(long count, Random pick, boolean sampled) {
      call();
      float[] got;
      try (HostTensor h = HostTensor.zeros(DataType.FLOAT32, d.output())) {
        out.buffer().copyToHost(h);
        got = h.toFloatArray();
      }
      double max = 0;
      for (long s = 0; s < count; s++) {
        long flat = sampled ? (long) (pick.nextDouble() * got.length) : s;
        double want =
            ConvBnSwishLoop.at(d, host[0], host[1], host[2], host[3], host[4], host[5], flat);
        max = Math.max(max, Math.abs(got[(int) flat] - want) / Math.max(1, Math.abs(want)));
      }
      return max;
    }

    @Override
    public void close() {
      out.close();
      inputs.forEach(DeviceTensor::close);
      k.close();
    }
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
