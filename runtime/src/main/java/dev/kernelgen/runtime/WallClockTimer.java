package dev.kernelgen.runtime;

/** Host wall-clock time: kernels on the CPU and in Java are synchronous. */
final class WallClockTimer implements DeviceTimer {
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
