package dev.kernelgen.runtime.opencl;

import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.backend.DriverBuffer;
import dev.kernelgen.runtime.backend.HostCopy;
import java.lang.foreign.MemorySegment;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.cl_mem;

/** Memory on an OpenCL device; copies block, so the tensor may be reused as soon as they return. */
final class OpenClBuffer extends DriverBuffer {
  private final OpenClDevice device;
  private final cl_mem mem;

  OpenClBuffer(OpenClDevice device, DataType dtype, long count, cl_mem mem) {
    super(device, device.lifecycle(), dtype, count);
    this.device = device;
    this.mem = mem;
  }

  /** The memory object; throws once the buffer or its device is closed. */
  cl_mem mem() {
    checkOpen();
    return mem;
  }

  @Override
  protected void copyIn(MemorySegment host) {
    HostCopy.inPieces(
        host,
        (off, n, bytes) ->
            device.check(
                CL.clEnqueueWriteBuffer(
                    device.queue(), mem(), true, off, n, Pointer.to(bytes), 0, null, null),
                "clEnqueueWriteBuffer"));
  }

  @Override
  protected void copyOut(MemorySegment host) {
    HostCopy.inPieces(
        host,
        (off, n, bytes) ->
            device.check(
                CL.clEnqueueReadBuffer(
                    device.queue(), mem(), true, off, n, Pointer.to(bytes), 0, null, null),
                "clEnqueueReadBuffer"));
  }

  @Override
  protected void release() {
    CL.clReleaseMemObject(mem);
  }
}
