package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.codegen.LaunchGeometry;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.codegen.OpenClCodegen;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.lower.SplitHostDevice;
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
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.GpuLimits;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.Measurer;
import dev.kernelgen.tune.TuningTask;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Measures GPU kernels on a runtime device (CUDA or OpenCL). Candidates over the device's limits
 * (threads per block, shared memory per block) are rejected from the lowered IR; the rest are
 * compiled in parallel (nvcc processes for CUDA; OpenCL C is built by the driver when loaded), then
 * each is loaded, run once and checked against the tensor-expression oracle, and timed with the
 * device's timer over repeated launches after a warm-up: on CUDA, events around a CUDA graph of the
 * launches (GPU time); on OpenCL, profiling events. A candidate the driver rejects or that fails at
 * run time is a failed trial.
 *
 * <p>A kernel that hangs cannot be interrupted from the host, so there is no per-candidate timeout
 * here; the schedules searched have no data-dependent loops.
 */
public final class DeviceMeasurer implements Measurer {
  private final Device device;
  private final NativeToolchain toolchain;
  private final GpuLimits limits;
  private final int parallelCompiles;
  private final int warmup;
  private final int repeats;
  private final int callsPerRepeat;
  private final Map<TuningTask, List<NDArray>[]> references = new HashMap<>();
  private CHarnessMeasurer referenceSource;

  public DeviceMeasurer(Device device, NativeToolchain toolchain, int parallelCompiles) {
    UserError.check(
        device.target() == Target.CUDA || device.target() == Target.OPENCL,
        "DeviceMeasurer measures GPU kernels, not %s",
        device.target());
    this.device = device;
    this.toolchain = toolchain;
    this.limits =
        switch (device) {
          case CudaDevice c -> new GpuLimits(c.maxThreadsPerBlock(), c.sharedMemoryPerBlock());
          case OpenClDevice o -> new GpuLimits(o.maxWorkGroupSize(), o.localMemorySize());
          default -> GpuLimits.cudaDefault();
        };
    this.parallelCompiles = Math.max(1, parallelCompiles);
    this.warmup = 10;
    this.repeats = 7;
    this.callsPerRepeat = 50;
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
    return new TimingProtocol(
        warmup,
        repeats,
        (device.target() == Target.CUDA ? "CUDA events around a graph of " : "device events over ")
            + callsPerRepeat
            + " launches",
        false);
  }

  public GpuLimits limits() {
    return limits;
  }

  private record Built(
      Configuration config,
      List<String> trace,
      SplitHostDevice.DeviceModule module,
      KernelBinary binary,
      Measurement failure) {}

  @Override
  public List<Measurement> measure(TuningTask task, List<Configuration> batch) {
    UserError.check(
        task.target() == device.target(),
        "task %s is for %s, the device runs %s",
        task.operator(),
        task.target(),
        device.target());
    ExecutorService pool = Executors.newFixedThreadPool(parallelCompiles);
    try {
      List<Future<Built>> fs = new ArrayList<>();
      for (Configuration c : batch) {
        fs.add(pool.submit(() -> build(task, c)));
      }
      List<Measurement> out = new ArrayList<>();
      for (Future<Built> f : fs) {
        Built b;
        try {
          b = f.get();
        } catch (Exception e) {
          throw new IllegalStateException("building a candidate failed: " + e, e);
        }
        out.add(b.failure() != null ? b.failure() : run(task, b));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  private Built build(TuningTask task, Configuration c) {
    List<String> trace = List.of();
    SplitHostDevice.DeviceModule module;
    try {
      Schedule s = task.schedule(c);
      trace = TuningTask.trace(s);
      PrimFunc f = task.lower(s);
      String over = limits.check(f);
      if (over != null) {
        return new Built(
            c, trace, null, null, Measurement.failed(c, Measurement.Status.INVALID, trace, over));
      }
      module = SplitHostDevice.split(f);
    } catch (UserError | CompilerBug e) {
      return new Built(
          c,
          trace,
          null,
          null,
          Measurement.failed(c, Measurement.Status.INVALID, trace, e.getMessage()));
    }
    try {
      String name = task.kernelName();
      KernelBinary binary;
      if (device instanceof CudaDevice cuda) {
        String src = CudaCodegen.generate(module.kernels(), name);
        String sm = "sm_" + cuda.smVersion();
        binary =
            new KernelBinary.Cuda(
                name, Map.of(cuda.smVersion(), toolchain.compileCubin(src, sm)), null);
      } else {
        binary = new KernelBinary.OpenCl(name, OpenClCodegen.generate(module.kernels(), name));
      }
      return new Built(c, trace, module, binary, null);
    } catch (UserError e) {
      return new Built(
          c,
          trace,
          null,
          null,
          Measurement.failed(c, Measurement.Status.COMPILE_ERROR, trace, e.getMessage()));
    }
  }

  @SuppressWarnings("unchecked")
  private synchronized List<NDArray>[] reference(TuningTask task) {
    return references.computeIfAbsent(
        task,
        t -> {
          Map<Tensor, NDArray> in = new LinkedHashMap<>();
          List<NDArray> inputs = new ArrayList<>();
          int k = 0;
          for (Tensor x : t.def().inputs()) {
            long[] shape = t.shape().get(k).stream().mapToLong(Long::longValue).toArray();
            NDArray a =
                NDArray.random(x.dtype(), dev.kernelgen.tune.ReferenceCache.INPUT_SEED + k, shape);
            in.put(x, a);
            inputs.add(a);
            k++;
          }
          if (referenceSource != null) {
            // The same inputs (ReferenceCache.inputs draws them from the same seeds).
            return new List[] {inputs, referenceSource.expectedOutputs(t)};
          }
          Map<Tensor, NDArray> got = TensorInterpreter.evaluate(t.def().outputs(), in, Map.of());
          List<NDArray> outputs = t.def().outputs().stream().map(got::get).toList();
          return new List[] {inputs, outputs};
        });
  }

  private Measurement run(TuningTask task, Built b) {
    List<NDArray>[] ref = reference(task);
    List<DeviceBuffer> buffers = new ArrayList<>();
    KernelModule loaded = null;
    try {
      try {
        loaded = device.loadModule(b.binary());
      } catch (RuntimeException e) {
        return Measurement.failed(
            b.config(), Measurement.Status.COMPILE_ERROR, b.trace(), e.getMessage());
      }
      for (NDArray a : ref[0]) {
        try (HostTensor in = HostTensor.wrap(dtype(a), a.segment(), a.shape())) {
          buffers.add(device.upload(in));
        }
      }
      for (NDArray a : ref[1]) {
        buffers.add(device.allocate(dtype(a), a.size()));
      }
      for (int t = 0; t < b.module().temporaries().size(); t++) {
        buffers.add(
            device.allocate(
                DataType.valueOf(b.module().temporaries().get(t).dtype().name()),
                constant(b.module().temporarySizes().get(t))));
      }
      List<KernelFunction> fns = new ArrayList<>();
      List<LaunchConfig> configs = new ArrayList<>();
      for (PrimFunc k : b.module().kernels()) {
        List<KernelSignature.ParamKind> kinds = new ArrayList<>();
        k.params().forEach(p -> kinds.add(KernelSignature.ParamKind.POINTER));
        fns.add(loaded.function(k.name(), new KernelSignature(kinds)));
        long[] g = LaunchGeometry.of(k).evaluate(Map.of());
        configs.add(
            new LaunchConfig(
                new int[] {(int) g[0], (int) g[1], (int) g[2]},
                new int[] {(int) g[3], (int) g[4], (int) g[5]},
                0));
      }
      // Too many registers per thread for the block (or shared memory): known once the module is
      // loaded, before anything runs.
      for (int i = 0; i < fns.size(); i++) {
        String why = fns.get(i).cannotLaunch(configs.get(i));
        if (why != null) {
          return Measurement.failed(b.config(), Measurement.Status.INVALID, b.trace(), why);
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
        return Measurement.failed(
            b.config(), Measurement.Status.RUNTIME_ERROR, b.trace(), e.getMessage());
      }
      int nIn = ref[0].size();
      for (int o = 0; o < ref[1].size(); o++) {
        NDArray expected = ref[1].get(o);
        String diff;
        // Native memory, not the garbage collector's: freed here, once compared.
        try (HostTensor got = HostTensor.zeros(dtype(expected), expected.shape())) {
          buffers.get(nIn + o).copyToHost(got);
          diff =
              NDArray.compare(
                  expected,
                  NDArray.wrap(expected.dtype(), got.segment(), expected.shape()),
                  1e-3,
                  1e-3);
        }
        if (diff != null) {
          return Measurement.failed(
              b.config(), Measurement.Status.WRONG, b.trace(), "output " + o + ": " + diff);
        }
      }
      for (int i = 0; i < warmup; i++) {
        launch.run();
      }
      device.synchronize();
      double[] samples = new double[repeats];
      // On CUDA the launches of a repeat are captured in a graph and replayed: GPU time, not the
      // host's cost of launching, which would hide the differences between small kernels.
      Runnable repeat =
          () -> {
            for (int i = 0; i < callsPerRepeat; i++) {
              launch.run();
            }
          };
      CudaGraph graph = device instanceof CudaDevice cuda ? cuda.captureGraph(repeat) : null;
      try (DeviceTimer t = device.timer()) {
        if (graph != null) {
          graph.launch();
          device.synchronize();
        }
        for (int r = 0; r < repeats; r++) {
          t.start();
          if (graph != null) {
            graph.launch();
          } else {
            repeat.run();
          }
          t.stop();
          samples[r] = t.elapsedMillis() * 1e3 / callsPerRepeat;
        }
      } finally {
        if (graph != null) {
          graph.close();
        }
      }
      Arrays.sort(samples);
      return Measurement.ok(b.config(), samples[repeats / 2], samples[0], b.trace());
    } catch (RuntimeException e) {
      return Measurement.failed(
          b.config(), Measurement.Status.RUNTIME_ERROR, b.trace(), String.valueOf(e.getMessage()));
    } finally {
      // Every buffer and the module, even when one close fails (after a sticky CUDA error).
      List<AutoCloseable> all = new ArrayList<>(buffers);
      all.add(loaded);
      try {
        Launchers.closeAll(all.toArray(AutoCloseable[]::new), null);
      } catch (RuntimeException e) {
        // The measurement is already decided; a failing free must not hide it.
        System.getLogger(DeviceMeasurer.class.getName())
            .log(System.Logger.Level.WARNING, "freeing a candidate's buffers: " + e);
      }
    }
  }

  /** Drops the reference inputs and outputs computed per task. */
  @Override
  public synchronized void close() {
    references.clear();
  }

  /** How many tasks' reference data this measurer holds: a test hook. */
  synchronized int referenceCount() {
    return references.size();
  }

  private static DataType dtype(NDArray a) {
    return DataType.valueOf(a.dtype().name());
  }

  private static long constant(Expr e) {
    Expr s = dev.kernelgen.arith.Simplifier.simplify(e);
    if (s instanceof IntImm i) {
      return i.value();
    }
    throw new CompilerBug("temporary size " + e.show() + " is not a constant for a fixed shape");
  }
}
