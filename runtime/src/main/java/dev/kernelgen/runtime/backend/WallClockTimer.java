package dev.kernelgen.runtime.backend;

import dev.kernelgen.runtime.DeviceTimer;

/** Host wall-clock time: kernels on the CPU and in Java are synchronous. */
public final class WallClockTimer implements DeviceTimer {
  private long start;
  private long stop;

  @Override
  public void start() {
    start = System.nanoTime();
  }

  @Override
  public void stop() {
    stop = System.nanoTime();
  }

  @Override
  public double elapsedMillis() {
    return (stop - start) / 1e6;
  }
}
