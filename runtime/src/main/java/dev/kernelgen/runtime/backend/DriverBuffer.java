package dev.kernelgen.runtime.backend;

import dev.kernelgen.runtime.Checks;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.Lifecycle;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The bookkeeping of memory that a driver owns (CUDA, OpenCL), written once: dtype and count, the
 * checks of a copy against its tensor, use after close as {@link IllegalStateException}, and a
 * release that happens once and only while the device is open (after the device's close the memory
 * went with its context). The backend copies and frees.
 */
public abstract class DriverBuffer implements DeviceBuffer {
  private final Device device;
  private final Lifecycle deviceLifecycle;
  private final DataType dtype;
  private final long count;
  private final AtomicBoolean released = new AtomicBoolean();

  protected DriverBuffer(Device device, Lifecycle deviceLifecycle, DataType dtype, long count) {
    this.device = device;
    this.deviceLifecycle = deviceLifecycle;
    this.dtype = dtype;
    this.count = count;
  }

  /** Throws {@link IllegalStateException} once this buffer or its device is closed. */
  protected final void checkOpen() {
    if (released.get()) {
      throw new IllegalStateException(this + " was closed");
    }
    deviceLifecycle.checkOpen();
  }

  @Override
  public final boolean isClosed() {
    return released.get() || deviceLifecycle.isClosed();
  }

  /** Starts a use of the device for a copy (the CUDA device also makes its context current). */
  protected Lifecycle.Use enterDevice() {
    return deviceLifecycle.enter();
  }

  /** Copies {@code host} into this memory, inside a use of the device. */
  protected abstract void copyIn(MemorySegment host);

  /** Copies this memory into {@code host} once the work before is done, inside a use. */
  protected abstract void copyOut(MemorySegment host);

  /** Frees the memory, inside a use of the device; called once. */
  protected abstract void release();

  @Override
  public final Device device() {
    return device;
  }

  @Override
  public final DataType dtype() {
    return dtype;
  }

  @Override
  public final long count() {
    return count;
  }

  @Override
  public final void copyFromHost(HostTensor source) {
    Checks.matches(this, source, "copyFromHost");
    MemorySegment s = source.segment();
    try (Lifecycle.Use u = enterDevice()) {
      copyIn(s);
    }
  }

  @Override
  public final void copyToHost(HostTensor target) {
    Checks.matches(this, target, "copyToHost");
    MemorySegment s = target.segment();
    try (Lifecycle.Use u = enterDevice()) {
      copyOut(s);
    }
  }

  @Override
  public final void close() {
    if (released.compareAndSet(false, true)) {
      Lifecycle.Use u = deviceLifecycle.tryEnter();
      if (u != null) {
        try (u) {
          release();
        }
      }
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + count + " " + dtype + " on " + device.name() + "]";
  }
}
