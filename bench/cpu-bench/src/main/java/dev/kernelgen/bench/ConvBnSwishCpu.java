package dev.kernelgen.bench;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.measure.WallClockTiming;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.cpu.CpuIsa;
import dev.kernelgen.samples.convbnswish.ConvBnSwishKernels;
import dev.kernelgen.samples.convbnswish.ConvBnSwishLoop;
import dev.kernelgen.samples.convbnswish.ConvBnSwishLoop.Dims;
import java.util.List;
import java.util.Random;

/**
 * The conv + batch norm + swish sample's operator in the CPU operator benchmark: the sample's
 * generated launcher on the C device (the auto-scheduler's kernels, with the configuration that
 * {@code generate} took from the sample's committed tuning log for this CPU's ISA level) against
 * ONNX Runtime running Conv, BatchNormalization, Sigmoid and Mul ({@link
 * OpsOnnxModels#convBnSwish}). Both are checked against the sample's float64 loop at sampled
 * outputs and against each other before they are timed side by side.
 */
final class ConvBnSwishCpu {
  private ConvBnSwishCpu() {}

  /**
   * The sample's specialized shapes, and one it is not specialized to (57 x 55), which runs its
   * generic kernel: symbolic dims, the auto-scheduler's untuned pick.
   */
  static final List<Dims> SHAPES =
      List.of(
          new Dims(1, 64, 56, 56, 64), new Dims(8, 32, 28, 28, 32), new Dims(1, 64, 57, 55, 64));

  private static final int SAMPLES = 256;

  static String name(Dims d) {
    return "conv_bn_swish_" + d.n() + "x" + d.c() + "x" + d.h() + "x" + d.w() + "_k" + d.k();
  }

  static OpsCpuBench.Row run(Dims d, WallClockTiming timing) throws Exception {
    Random r = new Random(11);
    float[] x = uniform(r, d.n() * d.c() * d.h() * d.w(), -1, 1);
    float[] weight = uniform(r, d.k() * d.c() * 9, -1, 1);
    float[] gamma = uniform(r, d.k(), 0.5f, 1.5f);
    float[] beta = uniform(r, d.k(), -1, 1);
    float[] mean = uniform(r, d.k(), -1, 1);
    float[] variance = uniform(r, d.k(), 0.5f, 1.5f);
    long[] k1 = {d.k()};
    Device cpu =
        Devices.cpu()
            .orElseThrow(() -> new IllegalStateException(Devices.probe(Target.C).toString()));
    String name = name(d);
    try (ConvBnSwishKernels k = ConvBnSwishKernels.load(cpu);
        HostTensor tx = HostTensor.of(x, d.input());
        HostTensor tw = HostTensor.of(weight, d.weight());
        HostTensor tg = HostTensor.of(gamma, k1);
        HostTensor tb = HostTensor.of(beta, k1);
        HostTensor tm = HostTensor.of(mean, k1);
        HostTensor tv = HostTensor.of(variance, k1);
        HostTensor out = HostTensor.zeros(DataType.FLOAT32, d.output());
        OrtRunner ort =
            new OrtRunner(
                OpsOnnxModels.convBnSwish(
                    d.n(), d.c(), d.h(), d.w(), d.k(), weight, gamma, beta, mean, variance),
                d.input(),
                d.output())) {
      Runnable ours = () -> k.convBnSwish(tx, tw, tg, tb, tm, tv, out);
      ours.run();
      float[] got = out.toFloatArray();
      float[] theirs = ort.run(x);
      double diff = 0;
      for (int i = 0; i < got.length; i++) {
        diff = Math.max(diff, Math.abs(got[i] - theirs[i]));
      }
      Random pick = new Random(7);
      for (int s = 0; s < SAMPLES; s++) {
        long flat = (long) (pick.nextDouble() * got.length);
        double want = ConvBnSwishLoop.at(d, x, weight, gamma, beta, mean, variance, flat);
        double err = Math.abs(got[(int) flat] - want) / Math.max(1, Math.abs(want));
        if (!(err <= 1e-4)) {
          throw new IllegalStateException(
              name + ": output " + flat + " is " + got[(int) flat] + ", the loop's " + want);
        }
      }
      if (!(diff <= 1e-2)) {
        throw new IllegalStateException(name + ": ours and ONNX Runtime differ by " + diff);
      }
      double[] t = timing.sideBySide(ours, ort.timed(x), CpuBench.ROUNDS);
      double flops = 2.0 * d.outputCount() * d.c() * 9;
      System.out.printf(
          "%-26s ours %10.1f us   ORT %10.1f us   ORT/ours %.2f   %.1f vs %.1f GFLOP/s   (max"
              + " |diff| %.2g; the sample's launcher on C, CPU level %s%s)%n",
          name,
          t[0],
          t[1],
          t[1] / t[0],
          flops / t[0] / 1e3,
          flops / t[1] / 1e3,
          diff,
          CpuIsa.machineLevelName(),
          System.getProperty(CpuIsa.MAX_ISA_PROPERTY) == null
              ? ""
              : ", capped at " + System.getProperty(CpuIsa.MAX_ISA_PROPERTY));
      return new OpsCpuBench.Row(name, flops, t[0], t[1], diff);
    }
  }

  private static float[] uniform(Random r, int count, float lo, float hi) {
    float[] a = new float[count];
    for (int i = 0; i < a.length; i++) {
      a[i] = lo + r.nextFloat() * (hi - lo);
    }
    return a;
  }
}
