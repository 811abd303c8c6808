package dev.kernelgen.runtime.opencl;

import static org.jocl.CL.CL_PROFILING_COMMAND_END;
import static org.jocl.CL.CL_PROFILING_COMMAND_START;

import dev.kernelgen.runtime.DeviceTimer;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_event;

/**
 * Device time of the kernels launched between start and stop, from the profiling information of the
 * first and the last; wall-clock time around {@code clFinish} when none was launched.
 */
final class OpenClEventTimer implements DeviceTimer {
  private final OpenClDevice device;
  private cl_event first;
  private cl_event last;
  private long hostStart;
  private long hostStop;
  private double elapsedMillis;

  OpenClEventTimer(OpenClDevice device) {
    this.device = device;
  }

  @Override
  public synchronized void start() {
    release();
    device.synchronize();
    hostStart = System.nanoTime();
    device.startRecording(this);
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
    device.stopRecording(this);
    device.synchronize();
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
    device.stopRecording(this);
    release();
  }

  private long profile(cl_event e, int what) {
    long[] v = new long[1];
    device.check(
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
