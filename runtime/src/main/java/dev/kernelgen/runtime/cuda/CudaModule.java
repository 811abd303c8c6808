package dev.kernelgen.runtime.cuda;

import static dev.kernelgen.runtime.cuda.CudaDevice.check;

import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.backend.BackendModule;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/** A loaded CUDA module and its kernels, bound once by name. */
final class CudaModule extends BackendModule<CudaDevice, CudaFunction> {
  private final CUmodule module;

  CudaModule(CudaDevice device, String moduleName, CUmodule module) {
    super(device, device.lifecycle(), "CUDA", moduleName);
    this.module = module;
  }

  @Override
  protected CudaFunction bind(String kernel, KernelSignature signature) {
    CudaDevice device = device();
    device.makeCurrent();
    CUfunction fn = new CUfunction();
    int r = JCudaDriver.cuModuleGetFunction(fn, module, kernel);
    if (r != CUresult.CUDA_SUCCESS) {
      throw new DeviceException(
          device.name()
              + ": CUDA module "
              + moduleName()
              + " has no kernel "
              + kernel
              + " ("
              + CUresult.stringFor(r)
              + "; kernels are extern \"C\" __global__ functions)");
    }
    return new CudaFunction(device, kernel, signature, fn, lifecycle());
  }

  /**
   * Unloads the module after the launches in flight (after the device's close it went with its
   * context).
   */
  @Override
  protected void release() {
    CudaDevice device = device();
    device.makeCurrent();
    // Launches return once issued: let them finish before their code goes.
    JCudaDriver.cuStreamSynchronize(device.stream());
    check(JCudaDriver.cuModuleUnload(module), device.name(), "cuModuleUnload");
  }
}
