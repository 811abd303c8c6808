package dev.kernelgen.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/** Device memory of the CPU and Java devices: plain host memory that kernels read directly. */
public final class HostBuffer implements DeviceBuffer {
  private final Device device;
  private final Lifecycle deviceLifecycle;
  private final DataType dtype;
  private final long count;
  private final Arena arena = Arena.ofShared();
  private final MemorySegment segment;
  private final AtomicBoolean closed = new AtomicBoolean();

  public HostBuffer(Device device, Lifecycle deviceLifecycle, DataType dtype, long count) {
    this.device = device;
    this.deviceLifecycle = deviceLifecycle;
    this.dtype = dtype;
    this.count = count;
    long bytes = Checks.byteSize(dtype, count);
    this.segment = arena.allocate(Math.max(bytes, 1), 64).asSlice(0, bytes);
  }

  /** The memory; throws once the buffer or its device is closed. */
  public MemorySegment segment() {
    if (closed.get()) {
      throw new IllegalStateException(this + " was closed");
    }
    deviceLifecycle.checkOpen();
    return segment;
  }

  @Override
  public boolean isClosed() {
    return closed.get() || deviceLifecycle.isClosed();
  }

  @Override
  public Device device() {
    return device;
  }

  @Override
  public DataType dtype() {
    return dtype;
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public void copyFromHost(HostTensor source) {
    Checks.matches(this, source, "copyFromHost");
    MemorySegment.copy(source.segment(), 0, segment(), 0, segment.byteSize());
  }

  @Override
  public void copyToHost(HostTensor target) {
    Checks.matches(this, target, "copyToHost");
    MemorySegment.copy(segment(), 0, target.segment(), 0, segment.byteSize());
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      arena.close();
    }
  }

  @Override
  public String toString() {
    return "HostBuffer[" + count + " " + dtype + " on " + device.name() + "]";
  }
}
