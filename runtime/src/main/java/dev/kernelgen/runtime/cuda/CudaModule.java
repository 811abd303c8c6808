package dev.kernelgen.runtime.cuda;

import static dev.kernelgen.runtime.cuda.CudaDevice.check;

import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.Lifecycle;
import dev.kernelgen.runtime.backend.FunctionCache;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/** A loaded CUDA module and its kernels, bound once by name. */
final class CudaModule implements KernelModule {
  private final CudaDevice device;
  private final String moduleName;
  private final CUmodule module;
  private final FunctionCache<CudaFunction> functions = new FunctionCache<>("CUDA kernel");
  private final Lifecycle lifecycle;

  CudaModule(CudaDevice device, String moduleName, CUmodule module) {
    this.device = device;
    this.moduleName = moduleName;
    this.module = module;
    this.lifecycle = new Lifecycle(this, device.lifecycle());
  }

  @Override
  public String toString() {
    return "CUDA module " + moduleName + " on " + device.name();
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

  private CudaFunction bind(String kernel, KernelSignature signature) {
    device.makeCurrent();
    CUfunction fn = new CUfunction();
    int r = JCudaDriver.cuModuleGetFunction(fn, module, kernel);
    if (r != CUresult.CUDA_SUCCESS) {
      throw new DeviceException(
          device.name()
              + ": CUDA module "
              + moduleName
              + " has no kernel "
              + kernel
              + " ("
              + CUresult.stringFor(r)
              + "; kernels are extern \"C\" __global__ functions)");
    }
    return new CudaFunction(device, kernel, signature, fn, lifecycle);
  }

  @Override
  public void close() {
    if (lifecycle.close()) {
      // After the device's close the module went with its context.
      Lifecycle.Use u = device.lifecycle().tryEnter();
      if (u != null) {
        try (u) {
          device.makeCurrent();
          // Launches return once issued: let them finish before their code goes.
          JCudaDriver.cuStreamSynchronize(device.stream());
          check(JCudaDriver.cuModuleUnload(module), device.name(), "cuModuleUnload");
        }
      }
    }
  }
}
