package dev.kernelgen.runtime.backend;

import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.DeviceTimer;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostBuffer;
import dev.kernelgen.runtime.Lifecycle;

/**
 * A device whose memory is the host's and whose kernels return when they are done (the C and Java
 * devices), written once: host buffers, a no-op synchronize, the wall-clock timer, and a close that
 * leaves the process-wide device open. The backend names itself and loads modules.
 */
public abstract class HostDevice implements Device {
  private final Lifecycle lifecycle = new Lifecycle(this);

  /**
   * Whether this is the process-wide device that {@link Devices} hands out: it lives as long as the
   * process, and closing it does nothing, since other users hold it too.
   */
  private final boolean shared;

  /**
   * @param shared whether this is the process-wide device of its target (see {@link #close})
   */
  protected HostDevice(boolean shared) {
    this.shared = shared;
  }

  /** The device's lifecycle, the parent of its modules' and its buffers'. */
  protected final Lifecycle lifecycle() {
    return lifecycle;
  }

  @Override
  public final DeviceBuffer allocate(DataType dtype, long count) {
    lifecycle.checkOpen();
    return new HostBuffer(this, lifecycle, dtype, count);
  }

  @Override
  public final void synchronize() {
    // Host kernels return when they are done.
    lifecycle.checkOpen();
  }

  @Override
  public final DeviceTimer timer() {
    lifecycle.checkOpen();
    return new WallClockTimer();
  }

  /**
   * Waits for the launches in flight; later uses of the device, its modules and its buffers throw
   * {@link IllegalStateException}. The process-wide device (of {@link Devices}) stays open.
   */
  @Override
  public final void close() {
    if (!shared) {
      lifecycle.close();
    }
  }

  @Override
  public final String toString() {
    return name();
  }
}
