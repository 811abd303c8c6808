package dev.kernelgen.runtime.cuda;

import static dev.kernelgen.runtime.cuda.CudaDevice.check;

import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Lifecycle;
import dev.kernelgen.runtime.backend.DriverBuffer;
import dev.kernelgen.runtime.backend.HostCopy;
import java.lang.foreign.MemorySegment;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/** Memory on a GPU; copies go on the device's stream. */
final class CudaBuffer extends DriverBuffer {
  private final CudaDevice device;
  private final CUdeviceptr ptr;

  CudaBuffer(CudaDevice device, DataType dtype, long count, CUdeviceptr ptr) {
    super(device, device.lifecycle(), dtype, count);
    this.device = device;
    this.ptr = ptr;
  }

  /** The device pointer; throws once the buffer or its device is closed. */
  CUdeviceptr pointer() {
    checkOpen();
    return ptr;
  }

  @Override
  protected Lifecycle.Use enterDevice() {
    return device.use();
  }

  @Override
  protected void copyIn(MemorySegment host) {
    HostCopy.inPieces(
        host,
        (off, n, bytes) ->
            // Pageable memory: the call returns once the bytes are staged, so the tensor may
            // change.
            check(
                JCudaDriver.cuMemcpyHtoDAsync(
                    pointer().withByteOffset(off), Pointer.to(bytes), n, device.stream()),
                device.name(),
                "cuMemcpyHtoDAsync"));
  }

  @Override
  protected void copyOut(MemorySegment host) {
    HostCopy.inPieces(
        host,
        (off, n, bytes) ->
            check(
                JCudaDriver.cuMemcpyDtoHAsync(
                    Pointer.to(bytes), pointer().withByteOffset(off), n, device.stream()),
                device.name(),
                "cuMemcpyDtoHAsync"));
    // The kernel errors of earlier launches surface here, so name them as such.
    int r = JCudaDriver.cuStreamSynchronize(device.stream());
    if (r != CUresult.CUDA_SUCCESS) {
      throw CudaDevice.failure(device.name(), "copyToHost (waiting for earlier kernels)", r);
    }
  }

  @Override
  protected void release() {
    device.makeCurrent();
    check(JCudaDriver.cuMemFree(ptr), device.name(), "cuMemFree");
  }
}
