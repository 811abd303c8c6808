package dev.kernelgen.runtime;

import java.util.concurrent.atomic.AtomicBoolean;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
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
