package dev.kernelgen.runtime;

import static org.jocl.CL.CL_DEVICE_LOCAL_MEM_SIZE;
import static org.jocl.CL.CL_DEVICE_MAX_COMPUTE_UNITS;
import static org.jocl.CL.CL_DEVICE_MAX_WORK_GROUP_SIZE;
import static org.jocl.CL.CL_DEVICE_NAME;
import static org.jocl.CL.CL_DEVICE_TYPE;
import static org.jocl.CL.CL_DEVICE_TYPE_ALL;
import static org.jocl.CL.CL_DEVICE_TYPE_GPU;
import static org.jocl.CL.CL_DEVICE_VERSION;
import static org.jocl.CL.CL_MEM_READ_WRITE;
import static org.jocl.CL.CL_PLATFORM_NAME;
import static org.jocl.CL.CL_PROFILING_COMMAND_END;
import static org.jocl.CL.CL_PROFILING_COMMAND_START;
import static org.jocl.CL.CL_PROGRAM_BUILD_LOG;
import static org.jocl.CL.CL_QUEUE_PROFILING_ENABLE;
import static org.jocl.CL.CL_QUEUE_PROPERTIES;
import static org.jocl.CL.CL_SUCCESS;

import dev.kernelgen.annotations.Target;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_context_properties;
import org.jocl.cl_device_id;
import org.jocl.cl_event;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;
import org.jocl.cl_platform_id;
import org.jocl.cl_program;
import org.jocl.cl_queue_properties;

/**
 * An OpenCL device through JOCL, with its own context and an in-order command queue with profiling
 * enabled. Programs are built from the embedded source when loaded and cached per source (and build
 * options) on this device, so loading the same module again costs nothing.
 *
 * <p>Local memory is declared inside OpenCL kernels, so a launch's shared memory size is not used.
 */
public final class OpenClDevice implements Device {
  /** Environment variable naming the device to use by a substring of its name. */
  public static final String DEVICE_ENV = "KERNELGEN_OPENCL_DEVICE";

  private final cl_platform_id platform;
  private final cl_device_id device;
  private final cl_context context;
  private final cl_command_queue queue;
  private final String deviceName;
  private final String platformName;
  private final String version;
  private final boolean gpu;
  private final long maxWorkGroupSize;
  private final long localMemorySize;
  private final int computeUnits;
  private final Map<String, cl_program> programs = new ConcurrentHashMap<>();
  private final List<EventTimer> recording = new CopyOnWriteArrayList<>();
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

  private OpenClDevice(cl_platform_id platform, cl_device_id device) {
    this.platform = platform;
    this.device = device;
    this.deviceName = deviceString(device, CL_DEVICE_NAME).strip();
    this.platformName = platformString(platform, CL_PLATFORM_NAME).strip();
    this.version = deviceString(device, CL_DEVICE_VERSION).strip();
    this.gpu = (deviceLong(device, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0;
    this.maxWorkGroupSize = deviceLong(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    this.localMemorySize = deviceLong(device, CL_DEVICE_LOCAL_MEM_SIZE);
    this.computeUnits = (int) deviceInt(device, CL_DEVICE_MAX_COMPUTE_UNITS);
    int[] err = new int[1];
    cl_context_properties props = new cl_context_properties();
    props.addProperty(CL.CL_CONTEXT_PLATFORM, platform);
    this.context = CL.clCreateContext(props, 1, new cl_device_id[] {device}, null, null, err);
    check(err[0], "clCreateContext");
    if (version.startsWith("OpenCL 1.")) {
      this.queue = CL.clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, err);
    } else {
      cl_queue_properties qp = new cl_queue_properties();
      qp.addProperty(CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE);
      this.queue = CL.clCreateCommandQueueWithProperties(context, device, qp, err);
    }
    check(err[0], "clCreateCommandQueue");
  }

  /**
   * Opens the device to use: the first whose name contains {@code $KERNELGEN_OPENCL_DEVICE} when
   * that is set, else the first GPU of any platform, else the first device of any type.
   *
   * @return empty with the reason when there is none
   */
  static Result<OpenClDevice> choose(String nameFilter) {
    CL.setExceptionsEnabled(false);
    int[] count = new int[1];
    int r = CL.clGetPlatformIDs(0, null, count);
    if (r != CL_SUCCESS || count[0] == 0) {
      return Result.failure(
          "no OpenCL platform (clGetPlatformIDs: "
              + (r == CL_SUCCESS ? "0 platforms" : CL.stringFor_errorCode(r))
              + "; is an OpenCL ICD installed under /etc/OpenCL/vendors?)");
    }
    cl_platform_id[] platforms = new cl_platform_id[count[0]];
    CL.clGetPlatformIDs(platforms.length, platforms, null);
    List<cl_platform_id> owners = new ArrayList<>();
    List<cl_device_id> devices = new ArrayList<>();
    for (cl_platform_id p : platforms) {
      int[] n = new int[1];
      if (CL.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, null, n) != CL_SUCCESS || n[0] == 0) {
        continue;
      }
      cl_device_id[] ds = new cl_device_id[n[0]];
      CL.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n[0], ds, null);
      for (cl_device_id d : ds) {
        owners.add(p);
        devices.add(d);
      }
    }
    if (devices.isEmpty()) {
      return Result.failure(count[0] + " OpenCL platform(s) but no devices");
    }
    int pick = -1;
    if (nameFilter != null && !nameFilter.isBlank()) {
      for (int i = 0; i < devices.size() && pick < 0; i++) {
        if (deviceString(devices.get(i), CL_DEVICE_NAME).contains(nameFilter)) {
          pick = i;
        }
      }
      if (pick < 0) {
        List<String> names =
            devices.stream().map(d -> deviceString(d, CL_DEVICE_NAME).strip()).toList();
        return Result.failure(
            "no OpenCL device name contains "
                + DEVICE_ENV
                + "=\""
                + nameFilter
                + "\" (found "
                + names
                + ")");
      }
    }
    for (int i = 0; i < devices.size() && pick < 0; i++) {
      if ((deviceLong(devices.get(i), CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0) {
        pick = i;
      }
    }
    if (pick < 0) {
      pick = 0;
    }
    try {
      return Result.success(new OpenClDevice(owners.get(pick), devices.get(pick)));
    } catch (DeviceException e) {
      return Result.failure(e.getMessage());
    }
  }

  /** The device {@link #choose} picks, honoring {@code $KERNELGEN_OPENCL_DEVICE}. */
  public static Optional<OpenClDevice> open() {
    return choose(System.getenv(DEVICE_ENV)).value();
  }

  /** The first device whose name contains {@code nameFilter}. */
  public static Optional<OpenClDevice> open(String nameFilter) {
    return choose(nameFilter).value();
  }

  @Override
  public Target target() {
    return Target.OPENCL;
  }

  @Override
  public String name() {
    return "OpenCL: " + deviceName + " (" + platformName + ", " + version + ")";
  }

  public String deviceName() {
    return deviceName;
  }

  public String platformName() {
    return platformName;
  }

  public boolean isGpu() {
    return gpu;
  }

  public long maxWorkGroupSize() {
    return maxWorkGroupSize;
  }

  public long localMemorySize() {
    return localMemorySize;
  }

  public int computeUnits() {
    return computeUnits;
  }

  @Override
  public DeviceBuffer allocate(DataType dtype, long count) {
    long bytes = Checks.byteSize(dtype, count);
    try (Lifecycle.Use u = lifecycle.enter()) {
      int[] err = new int[1];
      cl_mem mem = CL.clCreateBuffer(context, CL_MEM_READ_WRITE, Math.max(bytes, 1), null, err);
      check(err[0], "clCreateBuffer(" + bytes + " bytes)");
      return new OpenClBuffer(dtype, count, mem);
    }
  }

  @Override
  public KernelModule loadModule(KernelBinary binary) {
    if (!(binary instanceof KernelBinary.OpenCl cl)) {
      throw new DeviceException(name() + " runs OpenCL kernels, not " + binary.describe());
    }
    lifecycle.checkOpen();
    String key =
        NativeLibraryCache.sha256(
            (cl.buildOptions() + "\0" + cl.source()).getBytes(StandardCharsets.UTF_8));
    cl_program program = programs.computeIfAbsent(key, k -> build(cl));
    return new OpenClModule(cl.name(), program);
  }

  private cl_program build(KernelBinary.OpenCl cl) {
    int[] err = new int[1];
    cl_program program =
        CL.clCreateProgramWithSource(context, 1, new String[] {cl.source()}, null, err);
    check(err[0], "clCreateProgramWithSource(" + cl.name() + ")");
    int r =
        CL.clBuildProgram(program, 1, new cl_device_id[] {device}, cl.buildOptions(), null, null);
    if (r != CL_SUCCESS) {
      String log = buildLog(program);
      CL.clReleaseProgram(program);
      throw new DeviceException(
          name()
              + ": OpenCL module "
              + cl.name()
              + " did not build: "
              + CL.stringFor_errorCode(r)
              + "\nbuild log:\n"
              + log);
    }
    return program;
  }

  private String buildLog(cl_program program) {
    long[] size = new long[1];
    CL.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, null, size);
    if (size[0] <= 1) {
      return "(empty)";
    }
    byte[] bytes = new byte[(int) size[0]];
    CL.clGetProgramBuildInfo(
        program, device, CL_PROGRAM_BUILD_LOG, bytes.length, Pointer.to(bytes), null);
    return cString(bytes).strip();
  }

  /** Programs built so far on this device; loading the same source again builds nothing. */
  int cachedProgramCount() {
    return programs.size();
  }

  @Override
  public void synchronize() {
    try (Lifecycle.Use u = lifecycle.enter()) {
      check(CL.clFinish(queue), "clFinish");
    }
  }

  @Override
  public DeviceTimer timer() {
    lifecycle.checkOpen();
    return new EventTimer();
  }

  /**
   * Waits for the launches in flight, then releases the programs, the queue and the context; later
   * uses of the device, its modules and its buffers throw {@link IllegalStateException}. The device
   * of {@link Devices} stays open.
   */
  @Override
  public void close() {
    if (shared) {
      return;
    }
    if (lifecycle.close()) {
      CL.clFinish(queue);
      programs.values().forEach(CL::clReleaseProgram);
      programs.clear();
      CL.clReleaseCommandQueue(queue);
      CL.clReleaseContext(context);
    }
  }

  @Override
  public String toString() {
    return name();
  }

  private void check(int result, String call) {
    if (result != CL_SUCCESS) {
      throw new DeviceException(
          (deviceName == null ? "OpenCL" : name())
              + ": "
              + call
              + " failed: "
              + CL.stringFor_errorCode(result));
    }
  }

  private static String deviceString(cl_device_id d, int param) {
    long[] size = new long[1];
    CL.clGetDeviceInfo(d, param, 0, null, size);
    byte[] bytes = new byte[(int) size[0]];
    CL.clGetDeviceInfo(d, param, bytes.length, Pointer.to(bytes), null);
    return cString(bytes);
  }

  private static String platformString(cl_platform_id p, int param) {
    long[] size = new long[1];
    CL.clGetPlatformInfo(p, param, 0, null, size);
    byte[] bytes = new byte[(int) size[0]];
    CL.clGetPlatformInfo(p, param, bytes.length, Pointer.to(bytes), null);
    return cString(bytes);
  }

  private static long deviceLong(cl_device_id d, int param) {
    long[] v = new long[1];
    CL.clGetDeviceInfo(d, param, Sizeof.cl_long, Pointer.to(v), null);
    return v[0];
  }

  private static long deviceInt(cl_device_id d, int param) {
    int[] v = new int[1];
    CL.clGetDeviceInfo(d, param, Sizeof.cl_uint, Pointer.to(v), null);
    return v[0];
  }

  private static String cString(byte[] bytes) {
    int n = 0;
    while (n < bytes.length && bytes[n] != 0) {
      n++;
    }
    return new String(bytes, 0, n, StandardCharsets.UTF_8);
  }

  /** A value or the reason there is none; how probes report. */
  record Result<T>(Optional<T> value, String reason) {
    static <T> Result<T> success(T value) {
      return new Result<>(Optional.of(value), "");
    }

    static <T> Result<T> failure(String reason) {
      return new Result<>(Optional.empty(), reason);
    }
  }

  /** Memory on this OpenCL device. */
  final class OpenClBuffer implements DeviceBuffer {
    private final DataType dtype;
    private final long count;
    private final cl_mem mem;
    private final AtomicBoolean released = new AtomicBoolean();

    OpenClBuffer(DataType dtype, long count, cl_mem mem) {
      this.dtype = dtype;
      this.count = count;
      this.mem = mem;
    }

    cl_mem mem() {
      if (released.get()) {
        throw new IllegalStateException(this + " was closed");
      }
      lifecycle.checkOpen();
      return mem;
    }

    @Override
    public Device device() {
      return OpenClDevice.this;
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
      try (Lifecycle.Use u = lifecycle.enter()) {
        copyIn(s);
      }
    }

    private void copyIn(MemorySegment s) {
      for (long off = 0; off < s.byteSize(); off += CHUNK) {
        long n = Math.min(CHUNK, s.byteSize() - off);
        // Blocking: the tensor may be reused or freed as soon as this returns.
        check(
            CL.clEnqueueWriteBuffer(
                queue,
                mem(),
                true,
                off,
                n,
                Pointer.to(s.asSlice(off, n).asByteBuffer()),
                0,
                null,
                null),
            "clEnqueueWriteBuffer");
      }
    }

    @Override
    public void copyToHost(HostTensor target) {
      Checks.matches(this, target, "copyToHost");
      MemorySegment s = target.segment();
      try (Lifecycle.Use u = lifecycle.enter()) {
        copyOut(s);
      }
    }

    private void copyOut(MemorySegment s) {
      for (long off = 0; off < s.byteSize(); off += CHUNK) {
        long n = Math.min(CHUNK, s.byteSize() - off);
        check(
            CL.clEnqueueReadBuffer(
                queue,
                mem(),
                true,
                off,
                n,
                Pointer.to(s.asSlice(off, n).asByteBuffer()),
                0,
                null,
                null),
            "clEnqueueReadBuffer");
      }
    }

    @Override
    public void close() {
      if (released.compareAndSet(false, true)) {
        // After the device's close the memory went with its context.
        Lifecycle.Use u = lifecycle.tryEnter();
        if (u != null) {
          try (u) {
            CL.clReleaseMemObject(mem);
          }
        }
      }
    }

    @Override
    public String toString() {
      return "OpenClBuffer[" + count + " " + dtype + " on " + name() + "]";
    }
  }

  private static final long CHUNK = 1L << 30;

  private final class OpenClModule implements KernelModule {
    private final String moduleName;
    private final cl_program program;
    private final Map<String, OpenClFunction> functions = new ConcurrentHashMap<>();
    private final Lifecycle lifecycle;

    OpenClModule(String moduleName, cl_program program) {
      this.moduleName = moduleName;
      this.program = program;
      this.lifecycle = new Lifecycle(this, OpenClDevice.this.lifecycle);
    }

    @Override
    public String toString() {
      return "OpenCL module " + moduleName + " on " + name();
    }

    @Override
    public Device device() {
      return OpenClDevice.this;
    }

    @Override
    public KernelFunction function(String kernel, KernelSignature signature) {
      lifecycle.checkOpen();
      OpenClFunction f =
          functions.computeIfAbsent(
              kernel,
              k -> {
                int[] err = new int[1];
                cl_kernel ck = CL.clCreateKernel(program, k, err);
                if (err[0] != CL_SUCCESS) {
                  throw new DeviceException(
                      name()
                          + ": OpenCL module "
                          + moduleName
                          + " has no kernel "
                          + k
                          + " ("
                          + CL.stringFor_errorCode(err[0])
                          + ")");
                }
                return new OpenClFunction(k, signature, ck, lifecycle);
              });
      if (!f.signature().equals(signature)) {
        throw new IllegalArgumentException(
            "OpenCL kernel " + kernel + " was bound with " + f.signature() + ", not " + signature);
      }
      return f;
    }

    /**
     * Releases the kernels after the launches in flight; the program stays in the device's cache.
     */
    @Override
    public void close() {
      if (lifecycle.close()) {
        Lifecycle.Use u = OpenClDevice.this.lifecycle.tryEnter();
        if (u != null) {
          try (u) {
            // Launches return once enqueued: let them finish before their kernels go.
            CL.clFinish(queue);
            functions.values().forEach(f -> CL.clReleaseKernel(f.kernel));
          }
        }
        functions.clear();
      }
    }
  }

  private final class OpenClFunction implements KernelFunction {
    private final String name;
    private final KernelSignature signature;
    private final cl_kernel kernel;
    private final Lifecycle module;

    OpenClFunction(String name, KernelSignature signature, cl_kernel kernel, Lifecycle module) {
      this.module = module;
      this.name = name;
      this.signature = signature;
      this.kernel = kernel;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public KernelSignature signature() {
      return signature;
    }

    @Override
    public java.util.OptionalInt maxThreadsPerBlock() {
      long[] size = new long[1];
      int r;
      try (Lifecycle.Use u = module.enter()) {
        r =
            CL.clGetKernelWorkGroupInfo(
                kernel,
                device,
                CL.CL_KERNEL_WORK_GROUP_SIZE,
                Sizeof.size_t,
                Pointer.to(size),
                null);
      }
      if (r != CL_SUCCESS) {
        throw new DeviceException(
            OpenClDevice.this.name()
                + ", kernel "
                + name
                + ": clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE) failed: "
                + CL.stringFor_errorCode(r));
      }
      return java.util.OptionalInt.of((int) Math.min(Integer.MAX_VALUE, size[0]));
    }

    @Override
    public void launch(LaunchConfig config, Object... args) {
      String where = OpenClDevice.this.name() + ", kernel " + name;
      signature.checkArguments(where, args);
      long[] local = new long[3];
      long[] global = new long[3];
      for (int d = 0; d < 3; d++) {
        local[d] = config.blockDim(d);
        global[d] = (long) config.gridDim(d) * config.blockDim(d);
      }
      try (Lifecycle.Use u = module.enter()) {
        launch(where, config, args, global, local);
      }
    }

    private void launch(
        String where, LaunchConfig config, Object[] args, long[] global, long[] local) {
      cl_event event = new cl_event();
      int r;
      // Arguments are state of the cl_kernel: set and enqueue as one step per kernel.
      synchronized (kernel) {
        for (int i = 0; i < args.length; i++) {
          Object a = args[i];
          int rc =
              switch (signature.get(i)) {
                case POINTER -> {
                  if (a instanceof OpenClBuffer b && b.device() == OpenClDevice.this) {
                    yield CL.clSetKernelArg(kernel, i, Sizeof.cl_mem, Pointer.to(b.mem()));
                  }
                  throw new IllegalArgumentException(
                      where + ": argument " + i + " (" + a + ") is not a buffer on this device");
                }
                case INT32 ->
                    CL.clSetKernelArg(
                        kernel, i, Sizeof.cl_int, Pointer.to(new int[] {(Integer) a}));
                case INT64 ->
                    CL.clSetKernelArg(
                        kernel,
                        i,
                        Sizeof.cl_long,
                        Pointer.to(new long[] {((Number) a).longValue()}));
                case FLOAT32 ->
                    CL.clSetKernelArg(
                        kernel, i, Sizeof.cl_float, Pointer.to(new float[] {(Float) a}));
                case FLOAT64 ->
                    CL.clSetKernelArg(
                        kernel,
                        i,
                        Sizeof.cl_double,
                        Pointer.to(new double[] {((Number) a).doubleValue()}));
              };
          if (rc != CL_SUCCESS) {
            throw new DeviceException(
                where + ": clSetKernelArg(" + i + ") failed: " + CL.stringFor_errorCode(rc));
          }
        }
        r = CL.clEnqueueNDRangeKernel(queue, kernel, 3, null, global, local, 0, null, event);
      }
      if (r != CL_SUCCESS) {
        throw new DeviceException(
            where
                + ": clEnqueueNDRangeKernel with "
                + config
                + " failed: "
                + CL.stringFor_errorCode(r));
      }
      for (EventTimer t : recording) {
        t.record(event);
      }
      CL.clReleaseEvent(event);
    }
  }

  /**
   * Device time of the kernels launched between start and stop, from the profiling information of
   * the first and the last; wall-clock time around {@code clFinish} when none was launched.
   */
  private final class EventTimer implements DeviceTimer {
    private cl_event first;
    private cl_event last;
    private long hostStart;
    private long hostStop;
    private double elapsedMillis;

    @Override
    public synchronized void start() {
      release();
      synchronize();
      hostStart = System.nanoTime();
      recording.add(this);
    }

    synchronized void record(cl_event event) {
      CL.clRetainEvent(event);
      if (first == null) {
        first = event;
      } else {
        if (last != null) {
          CL.clReleaseEvent(last);
        }
        last = event;
      }
    }

    @Override
    public synchronized void stop() {
      recording.remove(this);
      synchronize();
      hostStop = System.nanoTime();
      if (first == null) {
        elapsedMillis = (hostStop - hostStart) / 1e6;
      } else {
        long start = profile(first, CL_PROFILING_COMMAND_START);
        long end = profile(last != null ? last : first, CL_PROFILING_COMMAND_END);
        elapsedMillis = (end - start) / 1e6;
      }
      release();
    }

    @Override
    public synchronized double elapsedMillis() {
      return elapsedMillis;
    }

    @Override
    public synchronized void close() {
      recording.remove(this);
      release();
    }

    private long profile(cl_event e, int what) {
      long[] v = new long[1];
      check(
          CL.clGetEventProfilingInfo(e, what, Sizeof.cl_ulong, Pointer.to(v), null),
          "clGetEventProfilingInfo");
      return v[0];
    }

    private void release() {
      if (first != null) {
        CL.clReleaseEvent(first);
      }
      if (last != null) {
        CL.clReleaseEvent(last);
      }
      first = null;
      last = null;
    }
  }
}
