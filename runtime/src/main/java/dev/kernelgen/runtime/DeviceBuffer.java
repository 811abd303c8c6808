package dev.kernelgen.runtime;

/**
 * Memory on a device: {@code count} elements of {@code dtype}. Freed once on {@link #close()};
 * using it afterwards throws. Copies between host and device are explicit.
 */
public interface DeviceBuffer extends AutoCloseable {

  Device device();

  DataType dtype();

  long count();

  default long byteSize() {
    return count() * dtype().byteSize();
  }

  /** Copies the tensor's elements into this buffer; dtype and element count must agree. */
  void copyFromHost(HostTensor source);

  /**
   * Copies this buffer's elements into the tensor, after all work issued before on the device;
   * dtype and element count must agree.
   */
  void copyToHost(HostTensor target);

  /** Whether this buffer, or the device it lives on, was closed. */
  boolean isClosed();

  @Override
  void close();
}
