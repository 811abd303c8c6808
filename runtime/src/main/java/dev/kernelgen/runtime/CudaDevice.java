package dev.kernelgen.runtime;

import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE;

import dev.kernelgen.annotations.Target;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUjit_option;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCaptureMode;
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
  /** Shared memory a kernel gets without opting in. */
  private static final int DEFAULT_SHARED_LIMIT = 48 * 1024;

  private static final int JIT_LOG_BYTES = 64 * 1024;

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
      return new CudaBuffer(dtype, count, ptr);
    }
  }

  @Override
  public KernelModule loadModule(KernelBinary binary) {
    if (!(binary instanceof KernelBinary.Cuda cuda)) {
      throw new DeviceException(name() + " runs CUDA kernels, not " + binary.describe());
    }
    lifecycle.checkOpen();
    makeCurrent();
    if (cuda.fatbin() != null) {
      return new CudaModule(cuda.name(), loadFatbin(cuda.name(), cuda.fatbin()));
    }
    byte[] cubin = cuda.cubins().get(smVersion());
    String cubinFailure = null;
    if (cubin != null) {
      CUmodule module = new CUmodule();
      int r = JCudaDriver.cuModuleLoadData(module, cubin);
      if (r == CUresult.CUDA_SUCCESS) {
        return new CudaModule(cuda.name(), module);
      }
      cubinFailure = "the sm_" + smVersion() + " cubin failed to load: " + CUresult.stringFor(r);
    }
    if (cuda.ptx() == null) {
      throw new DeviceException(
          name()
              + ": CUDA module "
              + cuda.name()
              + " has no cubin for sm_"
              + smVersion()
              + " (it has "
              + cuda.cubins().keySet().stream()
                  .map(k -> "sm_" + k)
                  .collect(Collectors.joining(", "))
              + ") and no PTX for the driver to compile"
              + (cubinFailure == null ? "" : "; " + cubinFailure));
    }
    return new CudaModule(cuda.name(), loadPtx(cuda, cubinFailure));
  }

  /** Loads a fatbin after checking its hash and that it holds code this GPU runs. */
  private CUmodule loadFatbin(String name, KernelBinary.Cuda.Fatbin fatbin) {
    String digest = NativeLibraryCache.sha256(fatbin.bytes());
    if (!digest.equalsIgnoreCase(fatbin.sha256())) {
      throw new DeviceException(
          name()
              + ": the fatbin of CUDA module "
              + name
              + " is damaged: its SHA-256 is "
              + digest
              + ", the launcher was built with "
              + fatbin.sha256());
    }
    int sm = smVersion();
    if (!fatbin.runsOn(sm)) {
      throw new DeviceException(
          name()
              + ": CUDA module "
              + name
              + " has no code for this GPU of compute capability "
              + sm / 10
              + "."
              + sm % 10
              + ": its fatbin holds "
              + fatbin.architectures()
              + " (rebuild with kernels.cudaArchitectures including sm_"
              + sm
              + ")");
    }
    CUmodule module = new CUmodule();
    int r = JCudaDriver.cuModuleLoadData(module, fatbin.bytes());
    if (r != CUresult.CUDA_SUCCESS) {
      throw new DeviceException(
          name()
              + ": the fatbin of CUDA module "
              + name
              + " ("
              + fatbin.architectures()
              + ") failed to load on compute capability "
              + sm / 10
              + "."
              + sm % 10
              + ": "
              + CUresult.stringFor(r));
    }
    return module;
  }

  /** Loads PTX through the driver's JIT, with its error log in the exception. */
  private CUmodule loadPtx(KernelBinary.Cuda cuda, String cubinFailure) {
    byte[] text = cuda.ptx().getBytes(StandardCharsets.UTF_8);
    byte[] image = new byte[text.length + 1]; // the driver reads PTX up to a NUL
    System.arraycopy(text, 0, image, 0, text.length);
    CUmodule module = new CUmodule();
    String log = "";
    int r;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment logBuffer = arena.allocate(JIT_LOG_BYTES);
      // cuModuleLoadDataEx takes an array of void* option values; integers travel as pointers.
      MemorySegment values = arena.allocate(ValueLayout.JAVA_LONG, 2);
      values.setAtIndex(ValueLayout.JAVA_LONG, 0, logBuffer.address());
      values.setAtIndex(ValueLayout.JAVA_LONG, 1, JIT_LOG_BYTES);
      int[] options = {
        CUjit_option.CU_JIT_ERROR_LOG_BUFFER, CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
      };
      r =
          JCudaDriver.cuModuleLoadDataEx(
              module,
              Pointer.to(image),
              options.length,
              options,
              Pointer.to(values.asByteBuffer()));
      if (r != CUresult.CUDA_SUCCESS) {
        log = logBuffer.getString(0).strip();
      }
    }
    if (r == CUresult.CUDA_ERROR_INVALID_VALUE) {
      // Should the options be refused, load without a log rather than not at all.
      module = new CUmodule();
      r = JCudaDriver.cuModuleLoadData(module, image);
    }
    if (r != CUresult.CUDA_SUCCESS) {
      throw new DeviceException(
          name()
              + ": the driver could not compile the PTX of CUDA module "
              + cuda.name()
              + ": "
              + CUresult.stringFor(r)
              + (log.isEmpty() ? "" : "\n" + log)
              + (cubinFailure == null ? "" : "\n(" + cubinFailure + ")"));
    }
    return module;
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
    return new EventTimer();
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
    return lifecycle.exclusive(() -> capture(launches));
  }

  private CudaGraph capture(Runnable launches) {
    makeCurrent();
    check(
        JCudaDriver.cuStreamBeginCapture(
            stream, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
        name(),
        "cuStreamBeginCapture");
    CUgraph graph = new CUgraph();
    try {
      launches.run();
    } catch (RuntimeException | Error e) {
      // End the capture so that the stream is usable again; the partial graph is dropped.
      if (JCudaDriver.cuStreamEndCapture(stream, graph) == CUresult.CUDA_SUCCESS) {
        JCudaDriver.cuGraphDestroy(graph);
      }
      throw e;
    }
    makeCurrent();
    check(JCudaDriver.cuStreamEndCapture(stream, graph), name(), "cuStreamEndCapture");
    CUgraphExec exec = new CUgraphExec();
    int r = JCudaDriver.cuGraphInstantiate(exec, graph, 0);
    if (r != CUresult.CUDA_SUCCESS) {
      JCudaDriver.cuGraphDestroy(graph);
      throw failure(name(), "cuGraphInstantiate", r);
    }
    return new CudaGraph(this, graph, exec);
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

  /** Memory on this GPU. */
  final class CudaBuffer implements DeviceBuffer {
    private final DataType dtype;
    private final long count;
    private final CUdeviceptr ptr;
    private final AtomicBoolean freed = new AtomicBoolean();

    CudaBuffer(DataType dtype, long count, CUdeviceptr ptr) {
      this.dtype = dtype;
      this.count = count;
      this.ptr = ptr;
    }

    CUdeviceptr pointer() {
      if (freed.get()) {
        throw new IllegalStateException(this + " was closed");
      }
      lifecycle.checkOpen();
      return ptr;
    }

    @Override
    public Device device() {
      return CudaDevice.this;
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
      MemorySegment s = source.segment();
      try (Lifecycle.Use u = use()) {
        copyIn(s);
      }
    }

    private void copyIn(MemorySegment s) {
      for (long off = 0; off < s.byteSize(); off += CHUNK) {
        long n = Math.min(CHUNK, s.byteSize() - off);
        // Pageable memory: the call returns once the bytes are staged, so the tensor may change.
        check(
            JCudaDriver.cuMemcpyHtoDAsync(
                pointer().withByteOffset(off),
                Pointer.to(s.asSlice(off, n).asByteBuffer()),
                n,
                stream),
            name(),
            "cuMemcpyHtoDAsync");
      }
    }

    @Override
    public void copyToHost(HostTensor target) {
      Checks.matches(this, target, "copyToHost");
      MemorySegment s = target.segment();
      try (Lifecycle.Use u = use()) {
        copyOut(s);
      }
    }

    private void copyOut(MemorySegment s) {
      for (long off = 0; off < s.byteSize(); off += CHUNK) {
        long n = Math.min(CHUNK, s.byteSize() - off);
        check(
            JCudaDriver.cuMemcpyDtoHAsync(
                Pointer.to(s.asSlice(off, n).asByteBuffer()),
                pointer().withByteOffset(off),
                n,
                stream),
            name(),
            "cuMemcpyDtoHAsync");
      }
      // The kernel errors of earlier launches surface here, so name them as such.
      int r = JCudaDriver.cuStreamSynchronize(stream);
      if (r != CUresult.CUDA_SUCCESS) {
        throw failure(name(), "copyToHost (waiting for earlier kernels)", r);
      }
    }

    @Override
    public void close() {
      if (freed.compareAndSet(false, true)) {
        // After the device's close the memory went with its context.
        Lifecycle.Use u = lifecycle.tryEnter();
        if (u != null) {
          try (u) {
            makeCurrent();
            check(JCudaDriver.cuMemFree(ptr), name(), "cuMemFree");
          }
        }
      }
    }

    @Override
    public String toString() {
      return "CudaBuffer[" + count + " " + dtype + " on " + name() + "]";
    }
  }

  /** ByteBuffers address at most 2 GiB; larger copies go in pieces. */
  private static final long CHUNK = 1L << 30;

  private final class CudaModule implements KernelModule {
    private final String moduleName;
    private final CUmodule module;
    private final Map<String, CudaFunction> functions = new ConcurrentHashMap<>();
    private final Lifecycle lifecycle;

    CudaModule(String moduleName, CUmodule module) {
      this.moduleName = moduleName;
      this.module = module;
      this.lifecycle = new Lifecycle(this, CudaDevice.this.lifecycle);
    }

    @Override
    public String toString() {
      return "CUDA module " + moduleName + " on " + name();
    }

    @Override
    public Device device() {
      return CudaDevice.this;
    }

    @Override
    public KernelFunction function(String kernel, KernelSignature signature) {
      lifecycle.checkOpen();
      CudaFunction f =
          functions.computeIfAbsent(
              kernel,
              k -> {
                makeCurrent();
                CUfunction fn = new CUfunction();
                int r = JCudaDriver.cuModuleGetFunction(fn, module, k);
                if (r != CUresult.CUDA_SUCCESS) {
                  throw new DeviceException(
                      name()
                          + ": CUDA module "
                          + moduleName
                          + " has no kernel "
                          + k
                          + " ("
                          + CUresult.stringFor(r)
                          + "; kernels are extern \"C\" __global__ functions)");
                }
                return new CudaFunction(k, signature, fn, lifecycle);
              });
      if (!f.signature().equals(signature)) {
        throw new IllegalArgumentException(
            "CUDA kernel " + kernel + " was bound with " + f.signature() + ", not " + signature);
      }
      return f;
    }

    @Override
    public void close() {
      if (lifecycle.close()) {
        // After the device's close the module went with its context.
        Lifecycle.Use u = CudaDevice.this.lifecycle.tryEnter();
        if (u != null) {
          try (u) {
            makeCurrent();
            // Launches return once issued: let them finish before their code goes.
            JCudaDriver.cuStreamSynchronize(stream);
            check(JCudaDriver.cuModuleUnload(module), name(), "cuModuleUnload");
          }
        }
      }
    }
  }

  private final class CudaFunction implements KernelFunction {
    private final String kernel;
    private final KernelSignature signature;
    private final CUfunction function;
    private final AtomicInteger sharedLimit = new AtomicInteger(DEFAULT_SHARED_LIMIT);
    private final Lifecycle moduleLifecycle;

    CudaFunction(
        String kernel, KernelSignature signature, CUfunction function, Lifecycle moduleLifecycle) {
      this.moduleLifecycle = moduleLifecycle;
      this.kernel = kernel;
      this.signature = signature;
      this.function = function;
    }

    @Override
    public String name() {
      return kernel;
    }

    @Override
    public KernelSignature signature() {
      return signature;
    }

    @Override
    public java.util.OptionalInt maxThreadsPerBlock() {
      return java.util.OptionalInt.of(
          attribute(CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS"));
    }

    @Override
    public java.util.OptionalInt registersPerThread() {
      return java.util.OptionalInt.of(
          attribute(CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS"));
    }

    private int attribute(int attribute, String what) {
      try (Lifecycle.Use u = moduleLifecycle.enter()) {
        makeCurrent();
        int[] v = new int[1];
        check(
            JCudaDriver.cuFuncGetAttribute(v, attribute, function),
            CudaDevice.this.name() + ", kernel " + kernel,
            "cuFuncGetAttribute(" + what + ")");
        return v[0];
      }
    }

    @Override
    public void launch(LaunchConfig config, Object... args) {
      String where = CudaDevice.this.name() + ", kernel " + kernel;
      signature.checkArguments(where, args);
      Pointer[] params = new Pointer[args.length];
      for (int i = 0; i < args.length; i++) {
        params[i] =
            switch (signature.get(i)) {
              case POINTER -> {
                if (args[i] instanceof CudaBuffer b && b.device() == CudaDevice.this) {
                  yield Pointer.to(b.pointer());
                }
                throw new IllegalArgumentException(
                    where + ": argument " + i + " (" + args[i] + ") is not a buffer on this GPU");
              }
              case INT32 -> Pointer.to(new int[] {(Integer) args[i]});
              case INT64 -> Pointer.to(new long[] {((Number) args[i]).longValue()});
              case FLOAT32 -> Pointer.to(new float[] {(Float) args[i]});
              case FLOAT64 -> Pointer.to(new double[] {((Number) args[i]).doubleValue()});
            };
      }
      if (config.threadsPerBlock() > maxThreadsPerBlock) {
        throw new DeviceException(
            where + ": " + config + " has more than " + maxThreadsPerBlock + " threads per block");
      }
      try (Lifecycle.Use u = moduleLifecycle.enter()) {
        makeCurrent();
        launch(where, config, params);
      }
    }

    private void launch(String where, LaunchConfig config, Pointer[] params) {
      int shared = config.sharedMemoryBytes();
      if (shared > sharedLimit.get()) {
        // Dynamic shared memory above 48 KiB needs the kernel's explicit opt-in.
        check(
            JCudaDriver.cuFuncSetAttribute(
                function,
                CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared),
            where,
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES=" + shared + ")");
        sharedLimit.accumulateAndGet(shared, Math::max);
      }
      int r =
          JCudaDriver.cuLaunchKernel(
              function,
              config.gridDim(0),
              config.gridDim(1),
              config.gridDim(2),
              config.blockDim(0),
              config.blockDim(1),
              config.blockDim(2),
              shared,
              stream,
              Pointer.to(params),
              null);
      if (r != CUresult.CUDA_SUCCESS) {
        throw new DeviceException(
            where + ": cuLaunchKernel with " + config + " failed: " + CUresult.stringFor(r));
      }
    }
  }

  /** CUDA events around the work issued on the stream. */
  private final class EventTimer implements DeviceTimer {
    private final CUevent start = new CUevent();
    private final CUevent stop = new CUevent();
    private final AtomicBoolean destroyed = new AtomicBoolean();

    EventTimer() {
      makeCurrent();
      check(
          JCudaDriver.cuEventCreate(start, CUevent_flags.CU_EVENT_DEFAULT),
          name(),
          "cuEventCreate");
      check(
          JCudaDriver.cuEventCreate(stop, CUevent_flags.CU_EVENT_DEFAULT), name(), "cuEventCreate");
    }

    @Override
    public void start() {
      try (Lifecycle.Use u = use()) {
        check(JCudaDriver.cuEventRecord(start, stream), name(), "cuEventRecord");
      }
    }

    @Override
    public void stop() {
      try (Lifecycle.Use u = use()) {
        check(JCudaDriver.cuEventRecord(stop, stream), name(), "cuEventRecord");
      }
    }

    @Override
    public double elapsedMillis() {
      try (Lifecycle.Use u = use()) {
        check(JCudaDriver.cuEventSynchronize(stop), name(), "cuEventSynchronize");
        float[] ms = new float[1];
        check(JCudaDriver.cuEventElapsedTime(ms, start, stop), name(), "cuEventElapsedTime");
        return ms[0];
      }
    }

    @Override
    public void close() {
      if (destroyed.compareAndSet(false, true)) {
        Lifecycle.Use u = lifecycle.tryEnter();
        if (u != null) {
          try (u) {
            makeCurrent();
            JCudaDriver.cuEventDestroy(start);
            JCudaDriver.cuEventDestroy(stop);
          }
        }
      }
    }
  }
}
