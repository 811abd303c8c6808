package dev.kernelgen.runtime.opencl;

import static org.jocl.CL.CL_SUCCESS;

import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.backend.BackendModule;
import org.jocl.CL;
import org.jocl.cl_kernel;
import org.jocl.cl_program;

/**
 * A program built on an OpenCL device and its kernels, created once by name. The module holds its
 * own reference to the program (the device's cache holds another); closing the module releases its
 * kernels and that reference.
 */
final class OpenClModule extends BackendModule<OpenClDevice, OpenClFunction> {
  private final cl_program program;

  OpenClModule(OpenClDevice device, String moduleName, cl_program program) {
    super(device, device.lifecycle(), "OpenCL", moduleName);
    this.program = program;
  }

  @Override
  protected OpenClFunction bind(String kernel, KernelSignature signature) {
    int[] err = new int[1];
    cl_kernel ck = CL.clCreateKernel(program, kernel, err);
    if (err[0] != CL_SUCCESS) {
      throw new DeviceException(
          device().name()
              + ": OpenCL module "
              + moduleName()
              + " has no kernel "
              + kernel
              + " ("
              + CL.stringFor_errorCode(err[0])
              + ")");
    }
    return new OpenClFunction(device(), kernel, signature, ck, lifecycle());
  }

  /** Releases the kernels after the launches in flight, then the module's program reference. */
  @Override
  protected void release() {
    // Launches return once enqueued: let them finish before their kernels go.
    CL.clFinish(device().queue());
    bound().forEach(OpenClFunction::release);
    CL.clReleaseProgram(program);
  }
}
