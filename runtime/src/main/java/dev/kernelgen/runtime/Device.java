package dev.kernelgen.runtime;

import dev.kernelgen.annotations.Target;

/**
 * Something that runs kernels: a CUDA GPU, an OpenCL device, this machine's CPU through C kernels,
 * or the JVM itself through Java kernels. Get one from {@link Devices}. Usable from several
 * threads.
 *
 * <p>Not sealed: the backends live in packages of their own ({@code dev.kernelgen.runtime.cuda},
 * {@code .opencl}, {@code .cpu}, {@code .java}), and a sealed hierarchy on the class path must stay
 * in one package.
 */
public interface Device extends AutoCloseable {

  /** The code generation target whose kernels this device runs. */
  Target target();

  /** A name for messages and tuning logs, such as {@code "CUDA 0: NVIDIA H200 (sm_90)"}. */
  String name();

  /** New device memory for {@code count} elements of {@code dtype}, not initialized. */
  DeviceBuffer allocate(DataType dtype, long count);

  /** New device memory holding a copy of {@code source}. */
  default DeviceBuffer upload(HostTensor source) {
    DeviceBuffer b = allocate(source.dtype(), source.elementCount());
    try {
      b.copyFromHost(source);
    } catch (RuntimeException e) {
      b.close();
      throw e;
    }
    return b;
  }

  /**
   * Loads a module in the form this device runs.
   *
   * @throws DeviceException when the binary is for another target, or the driver rejects it (with
   *     the JIT or build log)
   */
  KernelModule loadModule(KernelBinary binary);

  /**
   * Whether the calling thread is recording this device's work into a graph (a CUDA graph capture):
   * work issued now runs later, and nothing can be read back until the capture ends.
   */
  default boolean isCapturing() {
    return false;
  }

  /** Waits until all work issued on this device has finished. */
  void synchronize();

  /** A new timer for work on this device. */
  DeviceTimer timer();

  /** Releases the device's resources; the devices handed out by {@link Devices} live on. */
  @Override
  void close();
}
