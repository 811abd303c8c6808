package dev.kernelgen.runtime.cuda;

import static dev.kernelgen.runtime.cuda.CudaDevice.check;

import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import dev.kernelgen.runtime.Lifecycle;
import dev.kernelgen.runtime.backend.KernelArguments;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/** A kernel of a loaded CUDA module; launches go on the device's stream, asynchronously. */
final class CudaFunction implements KernelFunction {
  /** Shared memory a kernel gets without opting in. */
  private static final int DEFAULT_SHARED_LIMIT = 48 * 1024;

  private final CudaDevice device;
  private final String kernel;
  private final KernelSignature signature;
  private final CUfunction function;
  private final AtomicInteger sharedLimit = new AtomicInteger(DEFAULT_SHARED_LIMIT);
  private final Lifecycle moduleLifecycle;

  CudaFunction(
      CudaDevice device,
      String kernel,
      KernelSignature signature,
      CUfunction function,
      Lifecycle moduleLifecycle) {
    this.device = device;
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
  public OptionalInt maxThreadsPerBlock() {
    return OptionalInt.of(
        attribute(CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS"));
  }

  @Override
  public OptionalInt registersPerThread() {
    return OptionalInt.of(attribute(CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS"));
  }

  private int attribute(int attribute, String what) {
    try (Lifecycle.Use u = moduleLifecycle.enter()) {
      device.makeCurrent();
      int[] v = new int[1];
      check(
          JCudaDriver.cuFuncGetAttribute(v, attribute, function),
          device.name() + ", kernel " + kernel,
          "cuFuncGetAttribute(" + what + ")");
      return v[0];
    }
  }

  @Override
  public void launch(LaunchConfig config, Object... args) {
    String where = device.name() + ", kernel " + kernel;
    signature.checkArguments(where, args);
    Pointer[] params = new Pointer[args.length];
    KernelArguments.marshal(
        signature,
        args,
        new KernelArguments.Sink() {
          @Override
          public void pointer(int i, Object arg) {
            if (!(arg instanceof CudaBuffer b && b.device() == device)) {
              throw KernelArguments.notABuffer(where, i, arg, "this GPU");
            }
            params[i] = Pointer.to(b.pointer());
          }

          @Override
          public void int32(int i, int value) {
            params[i] = Pointer.to(new int[] {value});
          }

          @Override
          public void int64(int i, long value) {
            params[i] = Pointer.to(new long[] {value});
          }

          @Override
          public void float32(int i, float value) {
            params[i] = Pointer.to(new float[] {value});
          }

          @Override
          public void float64(int i, double value) {
            params[i] = Pointer.to(new double[] {value});
          }
        });
    if (config.threadsPerBlock() > device.maxThreadsPerBlock()) {
      throw new DeviceException(
          where
              + ": "
              + config
              + " has more than "
              + device.maxThreadsPerBlock()
              + " threads per block");
    }
    try (Lifecycle.Use u = moduleLifecycle.enter()) {
      device.makeCurrent();
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
            device.stream(),
            Pointer.to(params),
            null);
    if (r != CUresult.CUDA_SUCCESS) {
      throw new DeviceException(
          where + ": cuLaunchKernel with " + config + " failed: " + CUresult.stringFor(r));
    }
  }
}
