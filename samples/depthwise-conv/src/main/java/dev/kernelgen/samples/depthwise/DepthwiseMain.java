package dev.kernelgen.samples.depthwise;

import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceTimer;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.runtime.cuda.CudaGraph;
import dev.kernelgen.runtime.launch.DeviceTensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Runs the generated depthwise kernels on the best device (or, with {@code --all}, on every device
 * this machine has), checks them against a plain Java loop, and prints the time per call.
 *
 * <pre>
 * DepthwiseMain [--all] [--c 256] [--h 96] [--w 96] [--iterations 50]
 * </pre>
 *
 * <p>The seed's shape (256 x 96 x 96) runs the kernels compiled for it; any other runs the generic
 * kernels.
 */
public final class DepthwiseMain {
  private DepthwiseMain() {}

  public static void main(String[] args) {
    boolean all = false;
    int c = 256;
    int h = 96;
    int w = 96;
    int iterations = 50;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--all" -> all = true;
        case "--c" -> c = Integer.parseInt(args[++i]);
        case "--h" -> h = Integer.parseInt(args[++i]);
        case "--w" -> w = Integer.parseInt(args[++i]);
        case "--iterations" -> iterations = Integer.parseInt(args[++i]);
        default -> {
          System.err.println(
              "usage: DepthwiseMain [--all] [--c N] [--h N] [--w N] [--iterations N]");
          System.exit(2);
        }
      }
    }
    System.out.print(Devices.describe());
    List<Device> devices = new ArrayList<>();
    if (all) {
      for (Devices.Probe p : Devices.probes()) {
        p.device().ifPresent(devices::add);
      }
    } else {
      try (DepthwiseKernels k = DepthwiseKernels.load()) {
        devices.add(k.device());
      }
    }
    System.out.printf(
        Locale.ROOT, "depthwise 3x3, SAME padding, 1 x %d x %d x %d, float32%n", c, h, w);
    Random rnd = new Random(42);
    try (HostTensor input = random(rnd, 1, c, h, w);
        HostTensor filter = random(rnd, c, 1, 3, 3);
        HostTensor scale = random(rnd, c);
        HostTensor shift = random(rnd, c)) {
      float[] conv = JavaLoop.depthwise(input, filter);
      float[] fused = JavaLoop.scaleShiftRelu(conv, scale, shift, c, h * w);
      long t0 = System.nanoTime();
      int loops = Math.max(1, Math.min(iterations / 10, 5));
      for (int i = 0; i < loops; i++) {
        JavaLoop.depthwise(input, filter);
      }
      double loopUs = (System.nanoTime() - t0) / 1e3 / loops;
      System.out.printf(Locale.ROOT, "%-44s %10.1f us%n", "plain Java loop (reference)", loopUs);
      boolean ok = true;
      for (Device d : devices) {
        ok &= run(d, input, filter, scale, shift, conv, fused, iterations);
      }
      if (!ok) {
        System.out.println("MISMATCH: a kernel's output differs from the plain Java loop");
        System.exit(1);
      }
    }
  }

  private static boolean run(
      Device device,
      HostTensor input,
      HostTensor filter,
      HostTensor scale,
      HostTensor shift,
      float[] conv,
      float[] fused,
      int iterations) {
    try (DepthwiseKernels k = DepthwiseKernels.load(device);
        HostTensor out = k.allocateDepthwiseOutput(input, filter);
        HostTensor outFused =
            k.allocateDepthwiseScaleShiftReluOutput(input, filter, scale, shift)) {
      k.depthwise(input, filter, out);
      k.depthwiseScaleShiftRelu(input, filter, scale, shift, outFused);
      double e1 = maxError(out.toFloatArray(), conv);
      double e2 = maxError(outFused.toFloatArray(), fused);
      boolean ok = e1 < 1e-4 && e2 < 1e-4;
      double t1;
      double t2;
      double gpu1 = Double.NaN;
      double gpu2 = Double.NaN;
      // Time with the tensors already in the device's memory, as an application would keep them.
      try (DeviceTensor dIn = DeviceTensor.upload(device, input);
          DeviceTensor dFilter = DeviceTensor.upload(device, filter);
          DeviceTensor dScale = DeviceTensor.upload(device, scale);
          DeviceTensor dShift = DeviceTensor.upload(device, shift);
          DeviceTensor dOut = k.allocateDepthwiseOutput(dIn, dFilter)) {
        Runnable plain = () -> k.depthwise(dIn, dFilter, dOut);
        Runnable fusedCall = () -> k.depthwiseScaleShiftRelu(dIn, dFilter, dScale, dShift, dOut);
        t1 = time(device, iterations, plain);
        t2 = time(device, iterations, fusedCall);
        if (device instanceof CudaDevice cuda) {
          gpu1 = gpuTime(cuda, plain);
          gpu2 = gpuTime(cuda, fusedCall);
        }
      }
      System.out.printf(
          Locale.ROOT,
          "%-44s %10.1f us  fused %10.1f us  max error %.1e %s%s%n",
          device.name().length() > 44 ? device.name().substring(0, 41) + "..." : device.name(),
          t1,
          t2,
          Math.max(e1, e2),
          ok ? "ok" : "MISMATCH",
          Double.isNaN(gpu1)
              ? ""
              : String.format(Locale.ROOT, "  (GPU time %.1f us, fused %.1f us)", gpu1, gpu2));
      return ok;
    }
  }

  /**
   * Time per call, back-to-back, with a synchronize only at the end of each round: after a warm-up
   * of as many calls (so that the JIT has compiled the launcher), the best of five rounds of {@code
   * iterations} calls, or of as many as take about 0.2 s where a call is slow (host devices).
   */
  private static double time(Device device, int iterations, Runnable call) {
    long t = System.nanoTime();
    call.run();
    device.synchronize();
    long once = Math.max(1, System.nanoTime() - t);
    int n = (int) Math.max(3, Math.min(iterations, 200_000_000L / once));
    for (int i = 0; i < n; i++) {
      call.run();
    }
    device.synchronize();
    double best = Double.MAX_VALUE;
    for (int round = 0; round < 5; round++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        call.run();
      }
      device.synchronize();
      best = Math.min(best, (System.nanoTime() - t0) / 1e3 / n);
    }
    return best;
  }

  /**
   * GPU time per call: 50 calls captured in a CUDA graph (the launcher's launches are recorded, not
   * run), the graph replayed between two events, best of five. What a call costs beyond it, back to
   * back, is the host's: the launcher's checks, JCuda and the driver.
   */
  private static double gpuTime(CudaDevice device, Runnable call) {
    int calls = 50;
    try (CudaGraph graph =
            device.captureGraph(
                () -> {
                  for (int i = 0; i < calls; i++) {
                    call.run();
                  }
                });
        DeviceTimer timer = device.timer()) {
      graph.launch();
      device.synchronize();
      double best = Double.MAX_VALUE;
      for (int round = 0; round < 5; round++) {
        timer.start();
        graph.launch();
        timer.stop();
        best = Math.min(best, timer.elapsedMillis() * 1e3 / calls);
      }
      return best;
    }
  }

  private static double maxError(float[] actual, float[] expected) {
    double m = 0;
    for (int i = 0; i < actual.length; i++) {
      m = Math.max(m, Math.abs(actual[i] - expected[i]) / Math.max(1, Math.abs(expected[i])));
    }
    return m;
  }

  private static HostTensor random(Random rnd, long... shape) {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    float[] data = new float[(int) n];
    for (int i = 0; i < data.length; i++) {
      data[i] = rnd.nextFloat() * 2 - 1;
    }
    return HostTensor.of(data, shape);
  }
}
