package dev.kernelgen.bench.gpu;

import dev.kernelgen.bench.JavaLoops;
import dev.kernelgen.bench.Workload;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.DepthwiseSchedules;
import dev.kernelgen.topi.DepthwiseSchedules.DirectConfig;
import dev.kernelgen.topi.DepthwiseSchedules.GpuConfig;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.GpuLimits;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.Measurer;
import dev.kernelgen.tune.TuningTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The GPU benchmark's search as a tuning task: the seed schedule's knobs ({@link GpuConfig}: block
 * size, threads, virtual threads) as a configuration space, measured on the device by {@link
 * GpuTuning.DeviceMeasurer} (limits from the device, candidates compiled in parallel, each checked
 * against {@link JavaLoops} once and timed in CUDA graphs, or per call on OpenCL).
 */
final class GpuTuning {
  private GpuTuning() {}

  /**
   * The configuration the knobs choose: block {@code block_h x block_w} outputs, {@code threads_y x
   * threads_x} threads each computing {@code vthreads_y x vthreads_x} interleaved groups. More
   * outputs per thread (large blocks, few threads, virtual threads interleaving them so that
   * neighbouring threads still touch neighbouring addresses) is what moves a bandwidth-bound kernel
   * towards the copy bandwidth. A block the threads and virtual threads do not divide is refused
   * here, before anything is compiled.
   */
  static GpuConfig config(Knobs k) {
    int bh = k.knob("block_h", 32, 8, 16, 64);
    int bw = k.knob("block_w", 32, 16, 64, 128);
    int ty = k.knob("threads_y", 8, 1, 2, 4, 16, 32);
    int tx = k.knob("threads_x", 8, 4, 16, 32, 64);
    int vy = k.knob("vthreads_y", 1, 2, 4);
    int vx = k.knob("vthreads_x", 1, 2, 4, 8);
    UserError.check(
        bh % (ty * vy) == 0 && bw % (tx * vx) == 0,
        "threads x vthreads (%dx%d, %dx%d) do not divide the block %dx%d",
        ty,
        tx,
        vy,
        vx,
        bh,
        bw);
    return new GpuConfig(bh, bw, ty, tx, vy, vx);
  }

  /**
   * Candidates for the large, bandwidth-bound workloads, measured early: wide blocks (128 outputs
   * per row, 8 to 64 rows) whose threads each compute several outputs, interleaved by virtual
   * threads so that a warp still loads and stores 32 consecutive floats, and the shared tile's halo
   * is a smaller share of what each block reads.
   */
  static List<GpuConfig> bandwidthCandidates() {
    return List.of(
        new GpuConfig(32, 128, 8, 32, 1, 4),
        new GpuConfig(64, 128, 16, 32, 1, 4),
        new GpuConfig(16, 128, 4, 32, 1, 4),
        new GpuConfig(32, 64, 8, 32, 1, 2),
        new GpuConfig(64, 64, 16, 16, 2, 4),
        new GpuConfig(32, 128, 4, 32, 2, 4),
        new GpuConfig(64, 128, 8, 32, 2, 4));
  }

  /** The knob values of a configuration, to seed the search with known ones. */
  static Configuration configuration(GpuConfig c) {
    return Configuration.of(
        Map.of(
            "block_h", c.blockH(),
            "block_w", c.blockW(),
            "threads_y", c.threadsY(),
            "threads_x", c.threadsX(),
            "vthreads_y", c.vthreadsY(),
            "vthreads_x", c.vthreadsX()));
  }

  static TuningTask task(Device device, Workload w, boolean fused) {
    return task(device, w, fused, "", (s, k) -> fused ? s.fused(config(k)) : s.plain(config(k)));
  }

  /**
   * A workload's depthwise operator (plain or fused) as a tuning task named {@code
   * GpuBench/depthwise[_fused]<suffix>}, scheduled by {@code schedule} from the knobs.
   */
  private static TuningTask task(
      Device device,
      Workload w,
      boolean fused,
      String suffix,
      java.util.function.BiFunction<SeedSchedules, Knobs, Schedule> schedule) {
    SeedSchedules s = SeedSchedules.of(w);
    List<Tensor> args = fused ? s.fusedArgs() : s.plainArgs();
    OperatorDef def = OperatorDef.of(args.subList(0, args.size() - 1), args.get(args.size() - 1));
    return new TuningTask(
        "GpuBench/" + (fused ? "depthwise_fused" : "depthwise") + suffix,
        device.target(),
        def,
        knobs -> schedule.apply(s, knobs),
        fused ? "fused" : "plain");
  }

  /**
   * The configuration of the direct schedule ({@link DepthwiseSchedules#gpuDirect}): {@code rows}
   * outputs per thread down a column, {@code threads_y x threads_x} threads per block.
   */
  static DirectConfig directConfig(Knobs k) {
    int rows = k.knob("rows", 4, 1, 2, 8, 16);
    int ty = k.knob("threads_y", 4, 1, 2, 8);
    int tx = k.knob("threads_x", 32, 16, 64, 128);
    int local = k.knob("local_input", 1, 0);
    return new DirectConfig(rows, ty, tx, local == 1);
  }

  /**
   * Direct configurations measured first: the fastest for [32,256,96,96] on an H200 (16 rows per
   * thread, 2x16 threads, the window in registers) and others that did well there and at batch 1.
   */
  static List<Configuration> directFirst() {
    int[][] c = {{16, 2, 16, 1}, {4, 8, 32, 1}, {8, 2, 128, 0}, {4, 4, 128, 0}, {4, 4, 32, 1}};
    List<Configuration> out = new ArrayList<>();
    for (int[] v : c) {
      out.add(
          Configuration.of(
              Map.of("rows", v[0], "threads_y", v[1], "threads_x", v[2], "local_input", v[3])));
    }
    return out;
  }

  static TuningTask directTask(Device device, Workload w, boolean fused) {
    return task(
        device,
        w,
        fused,
        "_direct",
        (s, k) -> fused ? s.fusedDirect(directConfig(k)) : s.plainDirect(directConfig(k)));
  }

  /** Measures depthwise candidates of one workload on a GPU device. */
  static final class DeviceMeasurer implements Measurer {
    private final Device device;
    private final Workload w;
    private final boolean fused;
    private final GpuLimits limits;
    private float[][] inputs;
    private float[] expected;

    DeviceMeasurer(Device device, Workload w, boolean fused) {
      this.device = device;
      this.w = w;
      this.fused = fused;
      this.limits =
          switch (device) {
            case CudaDevice c -> new GpuLimits(c.maxThreadsPerBlock(), c.sharedMemoryPerBlock());
            case OpenClDevice o -> new GpuLimits(o.maxWorkGroupSize(), o.localMemorySize());
            default -> GpuLimits.cudaDefault();
          };
    }

    @Override
    public String deviceName() {
      return device.name();
    }

    @Override
    public Map<String, String> versions() {
      return Map.of("driver", device.name());
    }

    private record Built(
        Configuration config,
        List<String> trace,
        DeviceOperator.Compiled compiled,
        Measurement failure) {}

    @Override
    public List<Measurement> measure(TuningTask task, List<Configuration> batch) {
      int threads = Math.max(1, Runtime.getRuntime().availableProcessors() - 1);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
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
            throw new IllegalStateException(e);
          }
          out.add(b.failure() != null ? b.failure() : run(b));
        }
        return out;
      } finally {
        pool.shutdownNow();
      }
    }

    private Built build(TuningTask task, Configuration c) {
      List<String> trace = List.of();
      Schedule s;
      try {
        s = task.schedule(c);
        trace = TuningTask.trace(s);
        PrimFunc f = Lower.lower(s, task.kernelName(), task.def().args(), task.target(), null);
        String over = limits.check(f);
        if (over != null) {
          return new Built(
              c, trace, null, Measurement.failed(c, Measurement.Status.INVALID, trace, over));
        }
      } catch (UserError | CompilerBug e) {
        return new Built(
            c,
            trace,
            null,
            Measurement.failed(c, Measurement.Status.INVALID, trace, e.getMessage()));
      }
      try {
        return new Built(
            c,
            trace,
            DeviceOperator.compile(task.target(), s, task.def().args(), task.kernelName()),
            null);
      } catch (UserError | CompilerBug e) {
        return new Built(
            c,
            trace,
            null,
            Measurement.failed(c, Measurement.Status.COMPILE_ERROR, trace, e.getMessage()));
      }
    }

    private void reference() {
      if (expected != null) {
        return;
      }
      Random random = new Random(42);
      inputs =
          new float[][] {
            uniform(random, w.inputSize(), -1, 1),
            uniform(random, w.filterSize(), -1, 1),
            uniform(random, w.outChannels(), 0.5f, 1.5f),
            uniform(random, w.outChannels(), -0.5f, 0.5f)
          };
      expected = new float[w.outputSize()];
      JavaLoops.of(w, fused).run(inputs[0], inputs[1], inputs[2], inputs[3], expected);
    }

    private Measurement run(Built b) {
      reference();
      List<DeviceBuffer> buffers = new ArrayList<>();
      try {
        buffers.add(device.upload(HostTensor.of(inputs[0])));
        buffers.add(device.upload(HostTensor.of(inputs[1])));
        if (fused) {
          buffers.add(device.upload(HostTensor.of(inputs[2])));
          buffers.add(device.upload(HostTensor.of(inputs[3])));
        }
        DeviceBuffer output = device.allocate(DataType.FLOAT32, w.outputSize());
        buffers.add(output);
        try (DeviceOperator op = new DeviceOperator(device, b.compiled(), Map.of())) {
          String why = op.cannotLaunch();
          if (why != null) {
            return Measurement.failed(b.config(), Measurement.Status.INVALID, b.trace(), why);
          }
          op.launch(buffers);
          device.synchronize();
          HostTensor got = HostTensor.zeros(DataType.FLOAT32, w.outputSize());
          output.copyToHost(got);
          float[] g = got.toFloatArray();
          double maxErr = 0;
          for (int i = 0; i < g.length; i++) {
            double e = Math.abs(g[i] - expected[i]);
            if (!(e <= maxErr)) {
              maxErr = Double.isNaN(e) ? Double.POSITIVE_INFINITY : e;
            }
          }
          if (maxErr > 1e-3) {
            return Measurement.failed(
                b.config(), Measurement.Status.WRONG, b.trace(), "max abs error " + maxErr);
          }
          double us = GpuBench.gpuTime(device, op, buffers);
          return Measurement.ok(b.config(), us, us, b.trace());
        }
      } catch (RuntimeException e) {
        return Measurement.failed(
            b.config(),
            Measurement.Status.RUNTIME_ERROR,
            b.trace(),
            String.valueOf(e.getMessage()));
      } finally {
        buffers.forEach(DeviceBuffer::close);
      }
    }

    private static float[] uniform(Random r, int n, float lo, float hi) {
      float[] a = new float[n];
      for (int i = 0; i < n; i++) {
        a[i] = lo + (hi - lo) * r.nextFloat();
      }
      return a;
    }
  }
}
