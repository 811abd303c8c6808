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

  /**
   * The most threads per block (work-items per work-group) this kernel can be launched with on its
   * device, given what it uses (registers per thread, static shared memory): CUDA's {@code
   * CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK}, OpenCL's {@code CL_KERNEL_WORK_GROUP_SIZE}. Empty on
   * host devices. A launch with more threads fails; tuners reject such configurations before they
   * measure them.
   */
  default java.util.OptionalInt maxThreadsPerBlock() {
    return java.util.OptionalInt.empty();
  }

  /** Registers per thread, where the device reports them (CUDA); else empty. */
  default java.util.OptionalInt registersPerThread() {
    return java.util.OptionalInt.empty();
  }

  /**
   * Why this kernel cannot launch with {@code config}'s block on its device (more threads than its
   * registers per thread or shared memory allow, see {@link #maxThreadsPerBlock()}), or null when
   * it can.
   */
  default String cannotLaunch(LaunchConfig config) {
    java.util.OptionalInt max = maxThreadsPerBlock();
    if (max.isEmpty() || config.threadsPerBlock() <= max.getAsInt()) {
      return null;
    }
    java.util.OptionalInt regs = registersPerThread();
    return "kernel "
        + name()
        + (regs.isPresent() ? " uses " + regs.getAsInt() + " registers per thread and" : "")
        + " can launch at most "
        + max.getAsInt()
        + " threads per block on this device; the configuration has "
        + config.threadsPerBlock();
  }
}
