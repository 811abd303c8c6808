package dev.kernelgen.runtime.launch;

import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.HostTensor;
import java.util.Arrays;
import java.util.Objects;

/**
 * A tensor in device memory: a {@link DeviceBuffer} with a shape. Launchers take these to run
 * kernels without copies between host and device; closing it frees the buffer.
 */
public final class DeviceTensor implements AutoCloseable {
  private final DeviceBuffer buffer;
  private final long[] shape;

  private DeviceTensor(DeviceBuffer buffer, long[] shape) {
    this.buffer = Objects.requireNonNull(buffer, "buffer");
    this.shape = shape.clone();
    long n = 1;
    for (long d : shape) {
      if (d < 0) {
        throw new IllegalArgumentException("negative extent in shape " + Arrays.toString(shape));
      }
      n = Math.multiplyExact(n, d);
    }
    if (n != buffer.count()) {
      throw new IllegalArgumentException(
          "shape "
              + Arrays.toString(shape)
              + " has "
              + n
              + " elements, the buffer "
              + buffer.count());
    }
  }

  /** A view of {@code buffer} with {@code shape}; closing the tensor closes the buffer. */
  public static DeviceTensor of(DeviceBuffer buffer, long... shape) {
    return new DeviceTensor(buffer, shape);
  }

  /** New, uninitialized device memory for a tensor of {@code dtype} and {@code shape}. */
  public static DeviceTensor allocate(Device device, DataType dtype, long... shape) {
    long n = 1;
    for (long d : shape) {
      n = Math.multiplyExact(n, Math.max(d, 0));
    }
    return new DeviceTensor(device.allocate(dtype, n), shape);
  }

  /** A copy of {@code source} in the memory of {@code device}. */
  public static DeviceTensor upload(Device device, HostTensor source) {
    return new DeviceTensor(device.upload(source), source.shape());
  }

  public DeviceBuffer buffer() {
    return buffer;
  }

  public Device device() {
    return buffer.device();
  }

  public DataType dtype() {
    return buffer.dtype();
  }

  /** The shape, a copy. */
  public long[] shape() {
    return shape.clone();
  }

  public long dim(int axis) {
    return shape[axis];
  }

  public int rank() {
    return shape.length;
  }

  /** Copies the elements into {@code target} (after the work issued before on the device). */
  public void copyTo(HostTensor target) {
    buffer.copyToHost(target);
  }

  /**
   * A new host tensor holding a copy of the elements; where the copy fails (the device closed under
   * the call), the tensor is freed before the error propagates.
   */
  public HostTensor toHost() {
    HostTensor t = HostTensor.zeros(dtype(), shape);
    try {
      buffer.copyToHost(t);
    } catch (RuntimeException | Error e) {
      t.close();
      throw e;
    }
    return t;
  }

  @Override
  public void close() {
    buffer.close();
  }

  @Override
  public String toString() {
    return "DeviceTensor["
        + dtype()
        + " "
        + Arrays.toString(shape)
        + " on "
        + device().name()
        + "]";
  }
}
