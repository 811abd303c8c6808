package dev.kernelgen.runtime.opencl;

import static org.jocl.CL.CL_SUCCESS;

import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.Lifecycle;
import dev.kernelgen.runtime.backend.FunctionCache;
import org.jocl.CL;
import org.jocl.cl_kernel;
import org.jocl.cl_program;

/**
 * A program built on an OpenCL device and its kernels, created once by name. The program belongs to
 * the device's cache; closing the module releases its kernels only.
 */
final class OpenClModule implements KernelModule {
  private final OpenClDevice device;
  private final String moduleName;
  private final cl_program program;
  private final FunctionCache<OpenClFunction> functions = new FunctionCache<>("OpenCL kernel");
  private final Lifecycle lifecycle;

  OpenClModule(OpenClDevice device, String moduleName, cl_program program) {
    this.device = device;
    this.moduleName = moduleName;
    this.program = program;
    this.lifecycle = new Lifecycle(this, device.lifecycle());
  }

  @Override
  public String toString() {
    return "OpenCL module " + moduleName + " on " + device.name();
  }

  @Override
  public Device device() {
    return device;
  }

  @Override
  public KernelFunction function(String kernel, KernelSignature signature) {
    lifecycle.checkOpen();
    return functions.get(kernel, signature, this::bind);
  }

  private OpenClFunction bind(String kernel, KernelSignature signature) {
    int[] err = new int[1];
    cl_kernel ck = CL.clCreateKernel(program, kernel, err);
    if (err[0] != CL_SUCCESS) {
      throw new DeviceException(
          device.name()
              + ": OpenCL module "
              + moduleName
              + " has no kernel "
              + kernel
              + " ("
              + CL.stringFor_errorCode(err[0])
              + ")");
    }
    return new OpenClFunction(device, kernel, signature, ck, lifecycle);
  }

  /** Releases the kernels after the launches in flight; the program stays in the device's cache. */
  @Override
  public void close() {
    if (lifecycle.close()) {
      Lifecycle.Use u = device.lifecycle().tryEnter();
      if (u != null) {
        try (u) {
          // Launches return once enqueued: let them finish before their kernels go.
          CL.clFinish(device.queue());
          functions.bound().forEach(OpenClFunction::release);
        }
      }
      functions.clear();
    }
  }
}
