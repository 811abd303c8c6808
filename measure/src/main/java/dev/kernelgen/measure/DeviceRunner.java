package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.DeviceTimer;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.runtime.cuda.CudaGraph;
import dev.kernelgen.runtime.launch.Launchers;
import dev.kernelgen.tune.Measurement;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs candidates on a runtime device in this JVM: CUDA (cubins), OpenCL (source the driver builds)
 * and Java (a jar's kernel class, loaded by a class loader of its own). Each is loaded, run once
 * and checked, then timed with the device's timer over {@code callsPerSample} launches per sample
 * after the warm-up: on CUDA, events around a CUDA graph of the launches (GPU time); on OpenCL,
 * profiling events; on Java, the wall clock. A slow candidate gets fewer launches a sample and a
 * shorter warm-up ({@link #SAMPLE_BUDGET_US}).
 *
 * <p>A candidate runs on a worker thread of this runner; one that does not finish within the
 * input's timeout is a {@code TIMEOUT} and its thread is abandoned (a kernel cannot be interrupted;
 * it keeps its core until it ends, and a hung GPU kernel keeps the device). Where that is not good
 * enough, {@link ChildJvmRunner} runs each candidate in a child JVM that is killed instead. A
 * timeout of 0 or less runs on the caller's thread without one.
 */
public final class DeviceRunner implements Runner {
  private final Device device;
  private ExecutorService worker;
  private Path cachedData;
  private List<NDArray> cachedInputs;
  private List<NDArray> cachedExpected;

  public DeviceRunner(Device device) {
    this.device = device;
  }

  public Device device() {
    return device;
  }

  @Override
  public Target target() {
    return device.target();
  }

  @Override
  public String deviceName() {
    return device.name();
  }

  @Override
  public RunResult run(RunnerInput in) {
    if (in.timeoutSeconds() <= 0) {
      return measure(in);
    }
    Future<RunResult> f;
    synchronized (this) {
      if (worker == null) {
        worker =
            Executors.newSingleThreadExecutor(
                Thread.ofPlatform().daemon().name("kernelgen-runner").factory());
      }
      f = worker.submit(() -> measure(in));
    }
    try {
      return f.get(in.timeoutSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      synchronized (this) {
        // Its thread is stuck in the kernel: the next candidate gets a new one.
        f.cancel(true);
        worker.shutdownNow();
        worker = null;
      }
      return RunResult.failed(
          Measurement.Status.TIMEOUT,
          "did not finish within " + in.timeoutSeconds() + " s (its thread is abandoned)",
          in.timing());
    } catch (ExecutionException e) {
      return RunResult.failed(
          Measurement.Status.RUNTIME_ERROR, String.valueOf(e.getCause()), in.timing());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return RunResult.failed(Measurement.Status.RUNTIME_ERROR, "interrupted", in.timing());
    }
  }

  private synchronized List<NDArray> inputs(RunnerInput in) {
    refresh(in);
    return cachedInputs;
  }

  /**
   * The expected outputs, read once per task like the inputs: reading them per candidate churned a
   * heap array and a native copy of every output per trial (4 MiB each at a million floats), which
   * the collector freed but the process kept as resident memory.
   */
  private synchronized List<NDArray> expected(RunnerInput in) {
    refresh(in);
    return cachedExpected;
  }

  private void refresh(RunnerInput in) {
    if (!in.data().equals(cachedData)) {
      cachedInputs = null;
      cachedExpected = null;
      cachedInputs = ReferenceData.inputs(in.data(), in.build());
      cachedExpected = ReferenceData.expected(in.data(), in.build());
      cachedData = in.data();
    }
  }

  private KernelBinary binary(BuildResult b) throws ClassNotFoundException {
    return switch (b.target()) {
      case CUDA ->
          new KernelBinary.Cuda(
              b.module(), Map.of(((CudaDevice) device).smVersion(), b.binary()), null);
      case OPENCL ->
          new KernelBinary.OpenCl(b.module(), new String(b.binary(), StandardCharsets.UTF_8));
      case JAVA ->
          new KernelBinary.Java(b.module(), JavaClasses.load(b.binary(), Builder.JAVA_CLASS));
      case C -> throw new IllegalArgumentException("C candidates run in the C harness");
    };
  }

  private RunResult measure(RunnerInput in) {
    BuildResult b = in.build();
    TimingProtocol timing = in.timing();
    List<NDArray> inputs = inputs(in);
    List<DeviceBuffer> buffers = new ArrayList<>();
    KernelModule loaded = null;
    try {
      try {
        loaded = device.loadModule(binary(b));
      } catch (RuntimeException | ClassNotFoundException | LinkageError e) {
        return RunResult.failed(Measurement.Status.COMPILE_ERROR, e.getMessage(), timing);
      }
      for (NDArray a : inputs) {
        try (HostTensor t = HostTensor.wrap(dtype(a.dtype().name()), a.segment(), a.shape())) {
          buffers.add(device.upload(t));
        }
      }
      for (TensorSpec s : b.params().subList(b.inputs(), b.params().size())) {
        buffers.add(device.allocate(dtype(s.dtype()), s.elements()));
      }
      for (TensorSpec s : b.temporaries()) {
        buffers.add(device.allocate(dtype(s.dtype()), s.elements()));
      }
      List<KernelFunction> fns = new ArrayList<>();
      List<LaunchConfig> configs = new ArrayList<>();
      for (KernelLaunch k : b.kernels()) {
        fns.add(
            loaded.function(
                k.name(),
                new KernelSignature(
                    Collections.nCopies(k.params(), KernelSignature.ParamKind.POINTER))));
        configs.add(new LaunchConfig(ints(k.grid()), ints(k.block()), 0));
      }
      // Too many registers per thread for the block (or shared memory): known once the module is
      // loaded, before anything runs.
      for (int i = 0; i < fns.size(); i++) {
        String why = fns.get(i).cannotLaunch(configs.get(i));
        if (why != null) {
          return RunResult.failed(Measurement.Status.INVALID, why, timing);
        }
      }
      Object[] args = buffers.toArray();
      Runnable launch =
          () -> {
            for (int i = 0; i < fns.size(); i++) {
              fns.get(i).launch(configs.get(i), args);
            }
          };
      try {
        launch.run();
        device.synchronize();
      } catch (RuntimeException e) {
        return RunResult.failed(Measurement.Status.RUNTIME_ERROR, e.getMessage(), timing);
      }
      List<NDArray> got = new ArrayList<>();
      List<HostTensor> copies = new ArrayList<>();
      try {
        for (int o = b.inputs(); o < b.params().size(); o++) {
          TensorSpec s = b.params().get(o);
          // Native memory, not the garbage collector's: freed here, once compared.
          HostTensor h = HostTensor.zeros(dtype(s.dtype()), s.dims());
          copies.add(h);
          buffers.get(o).copyToHost(h);
          got.add(NDArray.wrap(s.type(), h.segment(), s.dims()));
        }
        String diff = ReferenceData.compare(expected(in), got, in.tolerance());
        if (diff != null) {
          return RunResult.failed(Measurement.Status.WRONG, diff, timing);
        }
      } finally {
        copies.forEach(HostTensor::close);
      }
      return time(launch, Math.max(1, in.callsPerSample()), timing);
    } catch (RuntimeException e) {
      return RunResult.failed(
          Measurement.Status.RUNTIME_ERROR, String.valueOf(e.getMessage()), timing);
    } finally {
      // Every buffer and the module, even when one close fails (after a sticky CUDA error).
      List<AutoCloseable> all = new ArrayList<>(buffers);
      all.add(loaded);
      try {
        Launchers.closeAll(all.toArray(AutoCloseable[]::new), null);
      } catch (RuntimeException e) {
        // The measurement is already decided; a failing free must not hide it.
        System.getLogger(DeviceRunner.class.getName())
            .log(System.Logger.Level.WARNING, "freeing a candidate's buffers: " + e);
      }
    }
  }

  /**
   * A sample's launches stop at about this long, and the warm-up at {@link #WARMUP_BUDGET_US}: a
   * candidate 100x slower than the best costs a few of its own runs, not 410 (50 a sample: a 46 ms
   * matmul candidate took 19 s to time, and a warm search of 45 s ran 157). Kernels under 400 us
   * keep all their launches.
   */
  static final double SAMPLE_BUDGET_US = 20_000;

  /** The warm-up's launches stop at about this long. */
  static final double WARMUP_BUDGET_US = 200_000;

  /**
   * Launches per sample for a kernel whose launch alone took {@code oneUs}: {@code calls}, or fewer
   * where they would pass {@link #SAMPLE_BUDGET_US}; at least one.
   */
  static int launchesPerSample(int calls, double oneUs) {
    return (int) Math.max(1, Math.min(calls, Math.floor(SAMPLE_BUDGET_US / Math.max(oneUs, 1e-3))));
  }

  /** Warm-up launches after the first: {@code warmup - 1}, or fewer past the warm-up budget. */
  static int warmupsAfterFirst(int warmup, double oneUs) {
    return (int)
        Math.max(0, Math.min(warmup - 1, Math.floor(WARMUP_BUDGET_US / Math.max(oneUs, 1e-3))));
  }

  private RunResult time(Runnable launch, int maxCalls, TimingProtocol timing) {
    // The first warm-up launch alone, timed on the host clock, sizes the rest.
    long t0 = System.nanoTime();
    launch.run();
    device.synchronize();
    double oneUs = (System.nanoTime() - t0) / 1e3;
    int calls = launchesPerSample(maxCalls, oneUs);
    for (int i = 0; i < warmupsAfterFirst(timing.warmup(), oneUs); i++) {
      launch.run();
    }
    device.synchronize();
    double[] samples = new double[timing.repeats()];
    // On CUDA the launches of a sample are captured in a graph and replayed: GPU time, not the
    // host's cost of launching, which would hide the differences between small kernels.
    Runnable repeat =
        () -> {
          for (int i = 0; i < calls; i++) {
            launch.run();
          }
        };
    CudaGraph graph = device instanceof CudaDevice cuda ? cuda.captureGraph(repeat) : null;
    try (DeviceTimer t = device.timer()) {
      if (graph != null) {
        graph.launch();
        device.synchronize();
      }
      for (int r = 0; r < samples.length; r++) {
        t.start();
        if (graph != null) {
          graph.launch();
        } else {
          repeat.run();
        }
        t.stop();
        samples[r] = t.elapsedMillis() * 1e3 / calls;
      }
    } finally {
      if (graph != null) {
        graph.close();
      }
    }
    Arrays.sort(samples);
    return RunResult.ok(samples[samples.length / 2], samples[0], timing);
  }

  private static int[] ints(List<Integer> l) {
    return l.stream().mapToInt(Integer::intValue).toArray();
  }

  private static DataType dtype(String name) {
    return DataType.valueOf(name);
  }

  /** Stops the worker thread (an abandoned one keeps running until its kernel ends). */
  @Override
  public synchronized void close() {
    if (worker != null) {
      worker.shutdownNow();
      worker = null;
    }
    cachedData = null;
    cachedInputs = null;
    cachedExpected = null;
  }
}
