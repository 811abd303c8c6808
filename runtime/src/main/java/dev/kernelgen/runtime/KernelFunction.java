package dev.kernelgen.runtime;

/** One kernel of a loaded module, ready to launch. */
public interface KernelFunction {

  String name();

  KernelSignature signature();

  /**
   * Launches the kernel. Arguments follow the signature: {@link DeviceBuffer}s of this device for
   * pointers (C and Java kernels also take a {@link HostTensor} or a {@code MemorySegment}), and
   * Integer, Long, Float or Double scalars. Asynchronous on GPU devices: call {@link
   * Device#synchronize()} before reading results on the host (copies to the host synchronize).
   *
   * @throws DeviceException naming the device, the kernel and the driver's error
   * @throws IllegalArgumentException when the arguments do not match the signature
   */
  void launch(LaunchConfig config, Object... args);
}
