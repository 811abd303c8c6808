package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.GpuLimits;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.Measurer;
import dev.kernelgen.tune.ReferenceCache;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

/**
 * Measures GPU kernels on a runtime device (CUDA or OpenCL), and Java kernels on the Java device. A
 * {@link Builder} rejects candidates over the device's limits (threads per block, shared memory per
 * block) from the lowered IR and compiles the rest in parallel (nvcc processes for CUDA; OpenCL C
 * is built by the driver when loaded; javac in this JVM for Java); a {@link DeviceRunner} loads
 * each, runs it once, checks it against the oracle and times it with the device's timer over
 * repeated launches after a warm-up: on CUDA, events around a CUDA graph of the launches (GPU
 * time); on OpenCL, profiling events. A candidate the driver rejects, that fails at run time or
 * that runs past the timeout is a failed trial. {@link #inChildJvm} runs each candidate in a child
 * JVM instead ({@link ChildJvmRunner}), so that a crash or a hang is the child's.
 */
public final class DeviceMeasurer implements Measurer {
  private final Device device;
  private final NativeToolchain toolchain;
  private final GpuLimits limits;
  private final Builder builder;
  private final int warmup;
  private final int repeats;
  private final int callsPerRepeat;
  private final Map<TuningTask, Path> references = new HashMap<>();
  private Runner runner;
  private long timeoutSeconds = Long.getLong("kernelgen.measure.timeoutSeconds", 120);
  private CHarnessMeasurer referenceSource;

  public DeviceMeasurer(Device device, NativeToolchain toolchain, int parallelCompiles) {
    UserError.check(
        device.target() != Target.C,
        "DeviceMeasurer measures GPU and Java kernels, not C (CHarnessMeasurer does)");
    this.device = device;
    this.toolchain = toolchain;
    this.limits =
        switch (device) {
          case CudaDevice c -> new GpuLimits(c.maxThreadsPerBlock(), c.sharedMemoryPerBlock());
          case OpenClDevice o -> new GpuLimits(o.maxWorkGroupSize(), o.localMemorySize());
          default -> GpuLimits.cudaDefault();
        };
    int sm = device instanceof CudaDevice c ? c.smVersion() : 0;
    this.builder = Builder.forGpu(toolchain, parallelCompiles, limits, sm);
    this.runner = new DeviceRunner(device);
    this.warmup = 10;
    this.repeats = 7;
    this.callsPerRepeat = 50;
  }

  /**
   * Runs each candidate in a child JVM ({@link ChildJvmRunner}) that opens the first device of this
   * one's kind; returns this.
   */
  public synchronized DeviceMeasurer inChildJvm() {
    runner.close();
    runner = new ChildJvmRunner(device.target());
    return this;
  }

  /** Sets the longest a candidate may run (0: no limit, on the caller's thread); returns this. */
  public synchronized DeviceMeasurer withTimeout(long seconds) {
    this.timeoutSeconds = seconds;
    return this;
  }

  @Override
  public String deviceName() {
    return device.name();
  }

  @Override
  public Map<String, String> versions() {
    Map<String, String> v = new LinkedHashMap<>();
    v.put("driver", device.name());
    if (device.target() == Target.CUDA) {
      v.put("toolchain", toolchain.findNvcc().map(Object::toString).orElse("nvcc not found"));
    }
    v.put(TimingProtocol.VERSION_KEY, timing().describe());
    return v;
  }

  /**
   * Takes the expected outputs from {@code c} (its cached references, computed once per task by the
   * interpreter or, for large tasks, the naive C loop nest) instead of interpreting each task here;
   * returns this measurer.
   */
  public synchronized DeviceMeasurer referencesFrom(CHarnessMeasurer c) {
    this.referenceSource = c;
    return this;
  }

  /** How candidates are timed: the device's timer (CUDA events over a graph, OpenCL events). */
  public TimingProtocol timing() {
    String clock =
        switch (device.target()) {
          case CUDA -> "CUDA events around a graph of ";
          case JAVA -> "wall clock over ";
          default -> "device events over ";
        };
    return new TimingProtocol(
        warmup,
        repeats,
        String.format(
            java.util.Locale.ROOT,
            "%s%d launches (fewer past %.0f ms a sample)",
            clock,
            callsPerRepeat,
            DeviceRunner.SAMPLE_BUDGET_US / 1e3),
        false);
  }

  public GpuLimits limits() {
    return limits;
  }

  /** The builder of this measurer's candidates. */
  public Builder builder() {
    return builder;
  }

  /** What the runner gets for {@code b}: the task's reference data and this measurer's protocol. */
  public synchronized RunnerInput runnerInput(TuningTask task, BuildResult b) {
    return new RunnerInput(
        b, reference(task), timing(), callsPerRepeat, 1e-3, timeoutSeconds, Map.of());
  }

  @Override
  public List<Measurement> measure(TuningTask task, List<Configuration> batch) {
    UserError.check(
        task.target() == device.target(),
        "task %s is for %s, the device runs %s",
        task.operator(),
        task.target(),
        device.target());
    reference(task);
    Runner r;
    synchronized (this) {
      r = runner;
    }
    List<Measurement> out = new java.util.ArrayList<>();
    for (Future<BuildResult> f : builder.submit(task, batch)) {
      BuildResult b = Builder.await(f);
      out.add(b.ok() ? r.run(runnerInput(task, b)).toMeasurement(b) : b.measurement());
    }
    return out;
  }

  /** The task's reference data directory: inputs of {@link ReferenceCache#inputs}, outputs. */
  private synchronized Path reference(TuningTask task) {
    return references.computeIfAbsent(
        task,
        t -> {
          List<NDArray> inputs = ReferenceCache.inputs(t);
          // The same inputs (ReferenceCache.inputs draws them from the same seeds).
          List<NDArray> outputs =
              referenceSource != null
                  ? referenceSource.expectedOutputs(t)
                  : CHarnessMeasurer.Oracle.interpreter().outputs(t, inputs);
          return ReferenceData.write(inputs, outputs);
        });
  }

  /** Drops the reference data written per task and stops the runner's worker. */
  @Override
  public synchronized void close() {
    references.values().forEach(ReferenceData::deleteTree);
    references.clear();
    runner.close();
    builder.close();
  }

  /** How many tasks' reference data this measurer holds: a test hook. */
  synchronized int referenceCount() {
    return references.size();
  }
}
