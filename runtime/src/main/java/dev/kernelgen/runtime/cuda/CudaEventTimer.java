package dev.kernelgen.runtime.cuda;

import static dev.kernelgen.runtime.cuda.CudaDevice.check;

import dev.kernelgen.runtime.DeviceTimer;
import dev.kernelgen.runtime.Lifecycle;
import java.util.concurrent.atomic.AtomicBoolean;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.JCudaDriver;

/** CUDA events around the work issued on the device's stream. */
final class CudaEventTimer implements DeviceTimer {
  private final CudaDevice device;
  private final CUevent start = new CUevent();
  private final CUevent stop = new CUevent();
  private final AtomicBoolean destroyed = new AtomicBoolean();

  CudaEventTimer(CudaDevice device) {
    this.device = device;
    device.makeCurrent();
    check(
        JCudaDriver.cuEventCreate(start, CUevent_flags.CU_EVENT_DEFAULT),
        device.name(),
        "cuEventCreate");
    check(
        JCudaDriver.cuEventCreate(stop, CUevent_flags.CU_EVENT_DEFAULT),
        device.name(),
        "cuEventCreate");
  }

  @Override
  public void start() {
    try (Lifecycle.Use u = device.use()) {
      check(JCudaDriver.cuEventRecord(start, device.stream()), device.name(), "cuEventRecord");
    }
  }

  @Override
  public void stop() {
    try (Lifecycle.Use u = device.use()) {
      check(JCudaDriver.cuEventRecord(stop, device.stream()), device.name(), "cuEventRecord");
    }
  }

  @Override
  public double elapsedMillis() {
    try (Lifecycle.Use u = device.use()) {
      check(JCudaDriver.cuEventSynchronize(stop), device.name(), "cuEventSynchronize");
      float[] ms = new float[1];
      check(JCudaDriver.cuEventElapsedTime(ms, start, stop), device.name(), "cuEventElapsedTime");
      return ms[0];
    }
  }

  @Override
  public void close() {
    if (destroyed.compareAndSet(false, true)) {
      Lifecycle.Use u = device.lifecycle().tryEnter();
      if (u != null) {
        try (u) {
          device.makeCurrent();
          JCudaDriver.cuEventDestroy(start);
          JCudaDriver.cuEventDestroy(stop);
        }
      }
    }
  }
}
