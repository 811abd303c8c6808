package dev.kernelgen.runtime.opencl;

import static dev.kernelgen.runtime.opencl.OpenClInfo.cString;
import static dev.kernelgen.runtime.opencl.OpenClInfo.deviceInt;
import static dev.kernelgen.runtime.opencl.OpenClInfo.deviceLong;
import static dev.kernelgen.runtime.opencl.OpenClInfo.deviceString;
import static dev.kernelgen.runtime.opencl.OpenClInfo.platformString;
import static org.jocl.CL.CL_DEVICE_LOCAL_MEM_SIZE;
import static org.jocl.CL.CL_DEVICE_MAX_COMPUTE_UNITS;
import static org.jocl.CL.CL_DEVICE_MAX_WORK_GROUP_SIZE;
import static org.jocl.CL.CL_DEVICE_NAME;
import static org.jocl.CL.CL_DEVICE_TYPE;
import static org.jocl.CL.CL_DEVICE_TYPE_GPU;
import static org.jocl.CL.CL_DEVICE_VERSION;
import static org.jocl.CL.CL_MEM_READ_WRITE;
import static org.jocl.CL.CL_PLATFORM_NAME;
import static org.jocl.CL.CL_PROGRAM_BUILD_LOG;
import static org.jocl.CL.CL_QUEUE_PROFILING_ENABLE;
import static org.jocl.CL.CL_QUEUE_PROPERTIES;
import static org.jocl.CL.CL_SUCCESS;

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
import dev.kernelgen.runtime.backend.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_context_properties;
import org.jocl.cl_device_id;
import org.jocl.cl_event;
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

  /**
   * The programs built so far, by source and options, the least recently loaded first; at most
   * {@link #CACHED_PROGRAMS}. The cache holds one OpenCL reference to each and every module one
   * more, so that a program leaves the cache without leaving a module that still uses it: a tuning
   * session loads a new source per candidate, and kept them all before.
   */
  private final Map<String, cl_program> programs =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, cl_program> eldest) {
          if (size() > CACHED_PROGRAMS) {
            CL.clReleaseProgram(eldest.getValue());
            return true;
          }
          return false;
        }
      };

  /** How many built programs a device keeps for loads of the same source. */
  static final int CACHED_PROGRAMS = 64;

  private final List<OpenClEventTimer> recording = new CopyOnWriteArrayList<>();
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

  OpenClDevice(cl_platform_id platform, cl_device_id device) {
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
   * The device to use: the first whose name contains {@code $KERNELGEN_OPENCL_DEVICE} when that is
   * set, else the first GPU of any platform, else the first device of any type.
   */
  public static Optional<OpenClDevice> open() {
    return OpenClChoice.choose(System.getenv(DEVICE_ENV)).value();
  }

  /** The first device whose name contains {@code nameFilter}. */
  public static Optional<OpenClDevice> open(String nameFilter) {
    return OpenClChoice.choose(nameFilter).value();
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
      return new OpenClBuffer(this, dtype, count, mem);
    }
  }

  @Override
  public KernelModule loadModule(KernelBinary binary) {
    if (!(binary instanceof KernelBinary.OpenCl cl)) {
      throw new DeviceException(name() + " runs OpenCL kernels, not " + binary.describe());
    }
    lifecycle.checkOpen();
    String key =
        Sha256.of((cl.buildOptions() + "\0" + cl.source()).getBytes(StandardCharsets.UTF_8));
    cl_program program;
    synchronized (programs) {
      program = programs.get(key);
      if (program == null) {
        program = build(cl);
        programs.put(key, program);
      }
      // The module's own reference, released when it closes.
      check(CL.clRetainProgram(program), "clRetainProgram(" + cl.name() + ")");
    }
    return new OpenClModule(this, cl.name(), program);
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
    synchronized (programs) {
      return programs.size();
    }
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
    return new OpenClEventTimer(this);
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
      synchronized (programs) {
        programs.values().forEach(CL::clReleaseProgram);
        programs.clear();
      }
      CL.clReleaseCommandQueue(queue);
      CL.clReleaseContext(context);
    }
  }

  @Override
  public String toString() {
    return name();
  }

  cl_device_id id() {
    return device;
  }

  cl_command_queue queue() {
    return queue;
  }

  Lifecycle lifecycle() {
    return lifecycle;
  }

  /** Has {@code timer} record the kernels launched from now on, until {@link #stopRecording}. */
  void startRecording(OpenClEventTimer timer) {
    recording.add(timer);
  }

  void stopRecording(OpenClEventTimer timer) {
    recording.remove(timer);
  }

  /** Hands a launch's event to the timers recording. */
  void launched(cl_event event) {
    for (OpenClEventTimer t : recording) {
      t.record(event);
    }
  }

  void check(int result, String call) {
    if (result != CL_SUCCESS) {
      throw new DeviceException(
          (deviceName == null ? "OpenCL" : name())
              + ": "
              + call
              + " failed: "
              + CL.stringFor_errorCode(result));
    }
  }
}
