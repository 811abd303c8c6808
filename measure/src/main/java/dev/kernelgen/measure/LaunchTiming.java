package dev.kernelgen.measure;

import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceTimer;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.runtime.cuda.CudaGraph;

/**
 * The benchmarks' timing of a loaded operator, with the device's timer: the fastest per-launch time
 * of several batches, where a runner's protocol takes the median ({@link TimingProtocol}). The
 * benchmarks compare kernelgen with its peers under these loops; their loops live here so that this
 * module stays the one place that times kernels.
 */
public final class LaunchTiming {
  private LaunchTiming() {}

  /**
   * The fastest per-launch time in microseconds over {@code repeats} batches of {@code calls}
   * back-to-back launches, after {@code warmup} launches and a synchronize.
   */
  public static double bestPerCall(
      Device device, Runnable launch, int warmup, int repeats, int calls) {
    warm(device, launch, warmup);
    try (DeviceTimer t = device.timer()) {
      return best(t, launch, repeats, calls);
    }
  }

  /**
   * As {@link #bestPerCall}, but one launch is timed first, and a kernel slower than {@code
   * slowMillis} is timed in batches of {@code slowCalls} instead.
   */
  public static double bestPerCallAdaptive(
      Device device,
      Runnable launch,
      int warmup,
      int repeats,
      int calls,
      double slowMillis,
      int slowCalls) {
    warm(device, launch, warmup);
    try (DeviceTimer t = device.timer()) {
      t.start();
      launch.run();
      t.stop();
      return best(t, launch, repeats, t.elapsedMillis() > slowMillis ? slowCalls : calls);
    }
  }

  /**
   * GPU time per launch on CUDA: {@code launches} launches captured in a CUDA graph, replayed once
   * untimed, then {@code repeats} times between two events; the fastest, in microseconds.
   */
  public static double bestGraphTime(
      CudaDevice device, Runnable launch, int launches, int repeats) {
    try (CudaGraph graph =
            device.captureGraph(
                () -> {
                  for (int i = 0; i < launches; i++) {
                    launch.run();
                  }
                });
        DeviceTimer t = device.timer()) {
      graph.launch();
      device.synchronize();
      double best = Double.MAX_VALUE;
      for (int rep = 0; rep < repeats; rep++) {
        t.start();
        graph.launch();
        t.stop();
        best = Math.min(best, t.elapsedMillis() * 1e3 / launches);
      }
      return best;
    }
  }

  private static void warm(Device device, Runnable launch, int warmup) {
    for (int i = 0; i < warmup; i++) {
      launch.run();
    }
    device.synchronize();
  }

  private static double best(DeviceTimer t, Runnable launch, int repeats, int calls) {
    double best = Double.MAX_VALUE;
    for (int rep = 0; rep < repeats; rep++) {
      t.start();
      for (int i = 0; i < calls; i++) {
        launch.run();
      }
      t.stop();
      best = Math.min(best, t.elapsedMillis() * 1e3 / calls);
    }
    return best;
  }
}
