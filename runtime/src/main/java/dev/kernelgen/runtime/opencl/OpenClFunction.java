package dev.kernelgen.runtime.opencl;

import static org.jocl.CL.CL_SUCCESS;

import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import dev.kernelgen.runtime.Lifecycle;
import dev.kernelgen.runtime.backend.KernelArguments;
import java.util.OptionalInt;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_event;
import org.jocl.cl_kernel;

/**
 * A kernel of a built OpenCL program. Its arguments are state of the {@code cl_kernel}, so a launch
 * sets them and enqueues as one step.
 */
final class OpenClFunction implements KernelFunction {
  private final OpenClDevice device;
  private final String name;
  private final KernelSignature signature;
  private final cl_kernel kernel;
  private final Lifecycle module;

  OpenClFunction(
      OpenClDevice device,
      String name,
      KernelSignature signature,
      cl_kernel kernel,
      Lifecycle module) {
    this.device = device;
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

  void release() {
    CL.clReleaseKernel(kernel);
  }

  @Override
  public OptionalInt maxThreadsPerBlock() {
    long[] size = new long[1];
    int r;
    try (Lifecycle.Use u = module.enter()) {
      r =
          CL.clGetKernelWorkGroupInfo(
              kernel,
              device.id(),
              CL.CL_KERNEL_WORK_GROUP_SIZE,
              Sizeof.size_t,
              Pointer.to(size),
              null);
    }
    if (r != CL_SUCCESS) {
      throw new DeviceException(
          device.name()
              + ", kernel "
              + name
              + ": clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE) failed: "
              + CL.stringFor_errorCode(r));
    }
    return OptionalInt.of((int) Math.min(Integer.MAX_VALUE, size[0]));
  }

  @Override
  public void launch(LaunchConfig config, Object... args) {
    String where = device.name() + ", kernel " + name;
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
      KernelArguments.marshal(signature, args, new Setter(where));
      r = CL.clEnqueueNDRangeKernel(device.queue(), kernel, 3, null, global, local, 0, null, event);
    }
    if (r != CL_SUCCESS) {
      throw new DeviceException(
          where
              + ": clEnqueueNDRangeKernel with "
              + config
              + " failed: "
              + CL.stringFor_errorCode(r));
    }
    device.launched(event);
    CL.clReleaseEvent(event);
  }

  /** Sets the kernel's arguments, one {@code clSetKernelArg} each. */
  private final class Setter implements KernelArguments.Sink {
    private final String where;

    Setter(String where) {
      this.where = where;
    }

    @Override
    public void pointer(int i, Object arg) {
      if (!(arg instanceof OpenClBuffer b && b.device() == device)) {
        throw KernelArguments.notABuffer(where, i, arg, "this device");
      }
      set(i, Sizeof.cl_mem, Pointer.to(b.mem()));
    }

    @Override
    public void int32(int i, int value) {
      set(i, Sizeof.cl_int, Pointer.to(new int[] {value}));
    }

    @Override
    public void int64(int i, long value) {
      set(i, Sizeof.cl_long, Pointer.to(new long[] {value}));
    }

    @Override
    public void float32(int i, float value) {
      set(i, Sizeof.cl_float, Pointer.to(new float[] {value}));
    }

    @Override
    public void float64(int i, double value) {
      set(i, Sizeof.cl_double, Pointer.to(new double[] {value}));
    }

    private void set(int i, long size, Pointer value) {
      int rc = CL.clSetKernelArg(kernel, i, size, value);
      if (rc != CL_SUCCESS) {
        throw new DeviceException(
            where + ": clSetKernelArg(" + i + ") failed: " + CL.stringFor_errorCode(rc));
      }
    }
  }
}
