package dev.kernelgen.runtime.cuda;

import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.Checks;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.DeviceTimer;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.Lifecycle;
import java.nio.charset.StandardCharsets;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * A CUDA GPU through JCuda's driver API; only {@code libcuda} is needed on the machine.
 *
 * <p>The device's primary context (the one the CUDA runtime and PyTorch share) is retained once and
 * made current on the calling thread before every driver call, so any thread may use the device.
 * All work goes to one stream of the device, in order; launches are asynchronous.
 */
public final class CudaDevice implements Device {
  private final int ordinal;
  private final CUdevice device;
  private final CUcontext context;
  private final CUstream stream;
  private final String deviceName;
  private final int major;
  private final int minor;
  private final int maxThreadsPerBlock;
  private final int sharedMemoryPerBlock;
  private final int sharedMemoryPerBlockOptIn;
  private final int multiprocessorCount;
  private final int warpSize;
  private final long totalMemory;
  private final Lifecycle lifecycle = new Lifecycle(this);

  /** The thread capturing a graph of this device's work, or null. */
  private volatile Thread capturer;

  /**
   * Whether this is the process-wide device that {@link Devices} hands out: it lives as long as the
   * process, and closing it does nothing, since other users hold it too (closing it under them
   * crashed the OpenCL driver).
   */
  private volatile boolean shared;

  /** Makes this the process-wide device of its target (see {@link #close}). */
  void markShared() {
    shared = true;
  }

  private CudaDevice(int ordinal) {
    this.ordinal = ordinal;
    this.device = new CUdevice();
    check(JCudaDriver.cuDeviceGet(device, ordinal), "CUDA device " + ordinal, "cuDeviceGet");
    byte[] nameBytes = new byte[256];
    check(
        JCudaDriver.cuDeviceGetName(nameBytes, nameBytes.length, device),
        "CUDA device " + ordinal,
        "cuDeviceGetName");
    int len = 0;
    while (len < nameBytes.length && nameBytes[len] != 0) {
      len++;
    }
    this.deviceName = new String(nameBytes, 0, len, StandardCharsets.UTF_8);
    this.major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    this.minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    this.maxThreadsPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    this.sharedMemoryPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    this.sharedMemoryPerBlockOptIn =
        attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    this.multiprocessorCount = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    this.warpSize = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    long[] mem = new long[1];
    check(JCudaDriver.cuDeviceTotalMem(mem, device), "CUDA device " + ordinal, "cuDeviceTotalMem");
    this.totalMemory = mem[0];
    this.context = new CUcontext();
    check(
        JCudaDriver.cuDevicePrimaryCtxRetain(context, device), name(), "cuDevicePrimaryCtxRetain");
    makeCurrent();
    this.stream = new CUstream();
    check(
        JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING),
        name(),
        "cuStreamCreate");
  }

  /**
   * Opens GPU {@code ordinal}; {@code cuInit} must have succeeded (see {@link Devices}, which
   * reports why CUDA is not there).
   */
  public static CudaDevice open(int ordinal) {
    warnWithoutSignalChaining();
    check(JCudaDriver.cuInit(0), "CUDA", "cuInit");
    return new CudaDevice(ordinal);
  }

  /**
   * The NVIDIA driver installs signal handlers of its own. Without the JVM's signal chaining
   * ({@code LD_PRELOAD=$JAVA_HOME/lib/libjsig.so}) they replace the handlers the JVM relies on, and
   * the process dies of a segmentation fault some time later, in Java code (seen on an H200 with
   * driver 580: reproducible without libjsig, gone with it).
   */
  private static void warnWithoutSignalChaining() {
    String preload = System.getenv("LD_PRELOAD");
    if (System.getProperty("os.name", "").startsWith("Linux")
        && (preload == null || !preload.contains("libjsig"))) {
      System.getLogger(CudaDevice.class.getName())
          .log(
              System.Logger.Level.WARNING,
              "CUDA without JVM signal chaining: start Java with LD_PRELOAD="
                  + System.getProperty("java.home")
                  + "/lib/libjsig.so, or the NVIDIA driver's signal handlers can crash the JVM");
    }
  }

  @Override
  public Target target() {
    return Target.CUDA;
  }

  @Override
  public String name() {
    return "CUDA " + ordinal + ": " + deviceName + " (sm_" + major + minor + ")";
  }

  /** The GPU's own name, such as {@code "NVIDIA H200"}. */
  public String deviceName() {
    return deviceName;
  }

  public int ordinal() {
    return ordinal;
  }

  /** Compute capability as an SM number: 90 for 9.0. */
  public int smVersion() {
    return major * 10 + minor;
  }

  public int computeCapabilityMajor() {
    return major;
  }

  public int computeCapabilityMinor() {
    return minor;
  }

  public int maxThreadsPerBlock() {
    return maxThreadsPerBlock;
  }

  /** Shared memory a block may use without opting in (48 KiB on current GPUs). */
  public int sharedMemoryPerBlock() {
    return sharedMemoryPerBlock;
  }

  /** Shared memory a block may use when the kernel opts in; launches opt in as needed. */
  public int sharedMemoryPerBlockOptIn() {
    return sharedMemoryPerBlockOptIn;
  }

  public int multiprocessorCount() {
    return multiprocessorCount;
  }

  public int warpSize() {
    return warpSize;
  }

  public long totalMemoryBytes() {
    return totalMemory;
  }

  /** Device memory free now ({@code cuMemGetInfo}), for leak checks and messages. */
  public long freeMemoryBytes() {
    try (Lifecycle.Use u = use()) {
      long[] free = new long[1];
      long[] total = new long[1];
      check(JCudaDriver.cuMemGetInfo(free, total), name(), "cuMemGetInfo");
      return free[0];
    }
  }

  /** Makes this device's primary context current on the calling thread. */
  void makeCurrent() {
    check(JCudaDriver.cuCtxSetCurrent(context), name(), "cuCtxSetCurrent");
  }

  /**
   * Starts a use of the device with its context current: throws once the device is closed, and
   * waits while another thread captures a graph (see {@link Lifecycle}).
   */
  Lifecycle.Use use() {
    Lifecycle.Use u = lifecycle.enter();
    try {
      makeCurrent();
    } catch (RuntimeException e) {
      u.close();
      throw e;
    }
    return u;
  }

  @Override
  public DeviceBuffer allocate(DataType dtype, long count) {
    long bytes = Checks.byteSize(dtype, count);
    try (Lifecycle.Use u = use()) {
      CUdeviceptr ptr = new CUdeviceptr();
      // cuMemAlloc rejects 0 bytes; a one-byte allocation keeps empty tensors uniform.
      check(
          JCudaDriver.cuMemAlloc(ptr, Math.max(bytes, 1)),
          name(),
          "cuMemAlloc(" + bytes + " bytes)");
      return new CudaBuffer(this, dtype, count, ptr);
    }
  }

  @Override
  public KernelModule loadModule(KernelBinary binary) {
    if (!(binary instanceof KernelBinary.Cuda cuda)) {
      throw new DeviceException(name() + " runs CUDA kernels, not " + binary.describe());
    }
    lifecycle.checkOpen();
    makeCurrent();
    return new CudaModule(this, cuda.name(), CudaImages.load(this, cuda));
  }

  @Override
  public void synchronize() {
    try (Lifecycle.Use u = use()) {
      check(JCudaDriver.cuStreamSynchronize(stream), name(), "cuStreamSynchronize");
    }
  }

  @Override
  public DeviceTimer timer() {
    lifecycle.checkOpen();
    return new CudaEventTimer(this);
  }

  /**
   * Records the launches that {@code launches} issues on this device's stream into a CUDA graph,
   * without running them, and instantiates it. Relaunching the graph replays them with one launch's
   * overhead: how GPU time is measured without the per-kernel launch cost. Only asynchronous work
   * on this device may happen inside (kernel launches). The capture holds the device alone: a
   * launch, copy or allocation from another thread waits until it ends (at most a minute, then it
   * fails saying why) instead of joining the graph.
   */
  public CudaGraph captureGraph(Runnable launches) {
    return lifecycle.exclusive(
        () -> {
          capturer = Thread.currentThread();
          try {
            return CudaGraph.capture(this, launches);
          } finally {
            capturer = null;
          }
        });
  }

  @Override
  public boolean isCapturing() {
    return capturer == Thread.currentThread();
  }

  CUstream stream() {
    return stream;
  }

  Lifecycle lifecycle() {
    return lifecycle;
  }

  /**
   * Waits for the uses in flight, then releases the stream and the context; later uses of the
   * device, its modules and its buffers throw {@link IllegalStateException}. The device of {@link
   * Devices} stays open.
   */
  @Override
  public void close() {
    if (shared) {
      return;
    }
    if (lifecycle.close()) {
      makeCurrent();
      JCudaDriver.cuStreamSynchronize(stream);
      JCudaDriver.cuStreamDestroy(stream);
      JCudaDriver.cuDevicePrimaryCtxRelease(device);
    }
  }

  @Override
  public String toString() {
    return name();
  }

  private int attribute(int attribute) {
    int[] value = new int[1];
    check(
        JCudaDriver.cuDeviceGetAttribute(value, attribute, device),
        "CUDA device " + ordinal,
        "cuDeviceGetAttribute");
    return value[0];
  }

  static void check(int result, String where, String call) {
    if (result != CUresult.CUDA_SUCCESS) {
      throw failure(where, call, result);
    }
  }

  static DeviceException failure(String where, String call, int result) {
    return new DeviceException(where + ": " + call + " failed: " + CUresult.stringFor(result));
  }
}
