package dev.kernelgen.runtime;

/**
 * Measures the device time of the work issued between {@link #start()} and {@link #stop()}: CUDA
 * events on the device's stream, OpenCL profiling of the kernels launched in between, wall-clock
 * time on the host for C and Java kernels. A timer can be restarted.
 */
public interface DeviceTimer extends AutoCloseable {

  void start();

  void stop();

  /** Elapsed time between the last start and stop, in milliseconds; waits for the work to end. */
  double elapsedMillis();

  @Override
  default void close() {}
}
