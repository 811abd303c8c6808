package dev.kernelgen.runtime.launch;

import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.HostTensor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The temporaries of a launcher's kernels (device memory one kernel writes and the next reads),
 * kept between calls: a call {@link #acquire()}s a {@link Lease}, takes its buffers sized from the
 * bound dims, and gives it back once its kernels are issued. Nothing is allocated on a call whose
 * dims need no more memory than an earlier one, so a launcher can be captured in a CUDA graph
 * (where {@code cuMemAlloc} fails) and pays no allocation per call.
 *
 * <p>Threads: each concurrent call gets a lease of its own (the pool grows to the number of calls
 * that overlapped), so two calls never share a temporary. A lease is handed back as soon as its
 * kernels are issued: the device runs its work in issue order (one CUDA stream, an in-order OpenCL
 * queue), so the next call's kernels run after them. A buffer that grows is not freed until {@link
 * #close()}, since a captured graph may still point at it.
 */
public final class Workspace implements AutoCloseable {
  private static final AtomicLong ALLOCATIONS = new AtomicLong();

  private final Device device;
  private final ConcurrentLinkedDeque<Lease> free = new ConcurrentLinkedDeque<>();
  private final List<DeviceBuffer> all = new ArrayList<>();
  private boolean closed;

  public Workspace(Device device) {
    this.device = device;
  }

  /**
   * How many device buffers workspaces have allocated in this process: a test hook to show that
   * repeated calls allocate nothing.
   */
  public static long allocations() {
    return ALLOCATIONS.get();
  }

  /** A set of temporaries for one call, the caller's alone until it is closed. */
  public Lease acquire() {
    Lease l = free.pollFirst();
    return l != null ? l : new Lease();
  }

  /**
   * Frees every buffer; the launcher calls it when it is closed, after its calls in flight. Their
   * kernels may still run on the device: it waits for them first.
   */
  @Override
  public void close() {
    List<DeviceBuffer> buffers;
    synchronized (all) {
      closed = true;
      buffers = new ArrayList<>(all);
      all.clear();
    }
    free.clear();
    RuntimeException failure = null;
    if (!buffers.isEmpty()) {
      try {
        device.synchronize();
      } catch (IllegalStateException e) {
        // The device was closed: its work is over, and its memory went with it.
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    for (DeviceBuffer b : buffers) {
      try {
        b.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** A buffer freed with the workspace. */
  private DeviceBuffer allocate(DataType dtype, long count) {
    DeviceBuffer b = device.allocate(dtype, count);
    ALLOCATIONS.incrementAndGet();
    synchronized (all) {
      if (closed) {
        b.close();
        throw new IllegalStateException("workspace on " + device.name() + " was closed");
      }
      all.add(b);
    }
    return b;
  }

  /** The temporaries of one call, by index; closing it gives them back to the workspace. */
  public final class Lease implements AutoCloseable {
    private DeviceBuffer[] slots = new DeviceBuffer[0];
    private DeviceBuffer status;

    private Lease() {}

    /**
     * Temporary {@code index} with room for {@code count} elements of {@code dtype}: the one kept
     * from an earlier call when it is large enough, else a new one (at least twice the old size, so
     * that a growing dim does not allocate on every call).
     */
    public DeviceBuffer buffer(int index, DataType dtype, long count) {
      if (index >= slots.length) {
        slots = java.util.Arrays.copyOf(slots, index + 1);
      }
      DeviceBuffer b = slots[index];
      long bytes = Math.multiplyExact(Math.max(count, 1), (long) dtype.byteSize());
      if (b == null || b.byteSize() < bytes) {
        long n = b == null ? count : Math.max(count, 2 * b.byteSize() / dtype.byteSize());
        b = allocate(dtype, n);
        slots[index] = b;
      }
      return b;
    }

    /**
     * The status word of kernels that check their data (compiler-core's {@code KernelStatus}): one
     * int, zero until a kernel finds an index read from a tensor outside the tensor it indexes (1)
     * or an integer division by zero (2). Check it with {@link #checkStatus} once the kernels are
     * issued.
     */
    public DeviceBuffer status() {
      if (status == null) {
        DeviceBuffer b = allocate(DataType.INT32, 1);
        try (HostTensor zero = HostTensor.zeros(DataType.INT32, 1)) {
          b.copyFromHost(zero);
        }
        status = b;
      }
      return status;
    }

    /**
     * Throws when a kernel of this call met bad data, naming what: reading the status waits for the
     * kernels, and resets it. Inside a CUDA graph capture nothing can be read back; a replay's
     * error is then reported by the next call that reads this status.
     */
    public void checkStatus(String operator) {
      if (status == null || device.isCapturing()) {
        return;
      }
      int code;
      try (HostTensor h = HostTensor.zeros(DataType.INT32, 1)) {
        status.copyToHost(h);
        code = h.getInt(0);
        if (code == 0) {
          return;
        }
        h.setInt(0, 0);
        status.copyFromHost(h);
      }
      String what =
          switch (code) {
            case 1 ->
                "an index read from a tensor is outside the tensor it indexes (a gather;"
                    + " element 0 was read in its place";
            case 2 ->
                "integer division by zero (a floordiv or floormod by a value read from a tensor;"
                    + " 0 was taken in its place";
            default -> "status " + code + " (not a status kernelgen's kernels set";
          };
      throw new DeviceException(
          operator + " on " + device.name() + ": " + what + ", so the outputs are wrong)");
    }

    /** Gives the temporaries back for the next call. */
    @Override
    public void close() {
      free.addFirst(this);
    }
  }
}
