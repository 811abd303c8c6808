package dev.kernelgen.runtime.cuda;

import dev.kernelgen.runtime.Lifecycle;
import java.util.concurrent.atomic.AtomicBoolean;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCaptureMode;
import jcuda.driver.JCudaDriver;

/**
 * A captured and instantiated sequence of launches (see {@link CudaDevice#captureGraph}); each
 * {@link #launch()} replays it on the device's stream, asynchronously.
 */
public final class CudaGraph implements AutoCloseable {
  private final CudaDevice device;
  private final CUgraph graph;
  private final CUgraphExec exec;
  private final AtomicBoolean closed = new AtomicBoolean();

  CudaGraph(CudaDevice device, CUgraph graph, CUgraphExec exec) {
    this.device = device;
    this.graph = graph;
    this.exec = exec;
  }

  /**
   * Records what {@code launches} issues on {@code device}'s stream and instantiates it; the caller
   * holds the device alone (see {@link CudaDevice#captureGraph}).
   */
  static CudaGraph capture(CudaDevice device, Runnable launches) {
    CUstream stream = device.stream();
    device.makeCurrent();
    CudaDevice.check(
        JCudaDriver.cuStreamBeginCapture(
            stream, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
        device.name(),
        "cuStreamBeginCapture");
    CUgraph graph = new CUgraph();
    try {
      launches.run();
    } catch (RuntimeException | Error e) {
      // End the capture so that the stream is usable again; the partial graph is dropped.
      if (JCudaDriver.cuStreamEndCapture(stream, graph) == CUresult.CUDA_SUCCESS) {
        JCudaDriver.cuGraphDestroy(graph);
      }
      throw e;
    }
    device.makeCurrent();
    CudaDevice.check(
        JCudaDriver.cuStreamEndCapture(stream, graph), device.name(), "cuStreamEndCapture");
    CUgraphExec exec = new CUgraphExec();
    int r = JCudaDriver.cuGraphInstantiate(exec, graph, 0);
    if (r != CUresult.CUDA_SUCCESS) {
      JCudaDriver.cuGraphDestroy(graph);
      throw CudaDevice.failure(device.name(), "cuGraphInstantiate", r);
    }
    return new CudaGraph(device, graph, exec);
  }

  public CudaDevice device() {
    return device;
  }

  /** Replays the captured launches on the device's stream. */
  public void launch() {
    if (closed.get()) {
      throw new IllegalStateException("CUDA graph on " + device.name() + " was closed");
    }
    try (Lifecycle.Use u = device.use()) {
      CudaDevice.check(
          JCudaDriver.cuGraphLaunch(exec, device.stream()), device.name(), "cuGraphLaunch");
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      Lifecycle.Use u = device.lifecycle().tryEnter();
      if (u != null) {
        try (u) {
          device.makeCurrent();
          JCudaDriver.cuGraphExecDestroy(exec);
          JCudaDriver.cuGraphDestroy(graph);
        }
      }
    }
  }
}
