package dev.kernelgen.runtime;

/** A loaded kernel module: a CUDA module, an OpenCL program, a C library or a Java class. */
public interface KernelModule extends AutoCloseable {

  /** The device it was loaded on. */
  Device device();

  /**
   * The kernel {@code name} with the given parameters; the same function is returned for the same
   * name, so launchers may call this on every launch.
   *
   * @throws DeviceException when the module has no such kernel
   */
  KernelFunction function(String name, KernelSignature signature);

  /** Unloads the module; its functions must not be launched afterwards. */
  @Override
  void close();
}
