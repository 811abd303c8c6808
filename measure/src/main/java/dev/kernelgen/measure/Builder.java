package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.codegen.JavaCodegen;
import dev.kernelgen.codegen.LaunchGeometry;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.codegen.OpenClCodegen;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.GpuLimits;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuningTask;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Builds candidates: schedule, lowered module, printed source, binary ({@link BuildResult}), in
 * parallel on a fixed pool of {@code threads} (one per core by default; the compilers are child
 * processes, javac runs in this JVM). A schedule that does not apply or a module over the GPU's
 * limits is {@code INVALID}; a source the compiler rejects is {@code COMPILE_ERROR}. Nothing is
 * loaded or run here: that is a {@link Runner}'s work, possibly on another host.
 *
 * <p>Binaries per target: C, an executable of the kernel and its {@link CHarness} for {@code
 * -march=isaLevel}; CUDA, a cubin for {@code sm_<smVersion>}; OpenCL, the source (the driver builds
 * it when the runner loads it); Java, a jar of the kernel class {@link #JAVA_CLASS}.
 */
public final class Builder implements AutoCloseable {
  /** The C flags of an executable: kernelgen's, without those of a shared library. */
  public static final List<String> EXECUTABLE_FLAGS =
      NativeToolchain.DEFAULT_C_FLAGS.stream()
          .filter(f -> !f.equals("-shared") && !f.equals("-fPIC"))
          .toList();

  /** The binary name of a Java candidate's kernel class. */
  public static final String JAVA_CLASS = "dev.kernelgen.tuned.Kernels";

  private final NativeToolchain toolchain;
  private final int threads;
  private final String isaLevel;
  private final GpuLimits limits;
  private final int smVersion;
  private final CompiledBinaries binaries = new CompiledBinaries();
  private ExecutorService pool;

  private Builder(
      NativeToolchain toolchain, int threads, String isaLevel, GpuLimits limits, int smVersion) {
    this.toolchain = toolchain;
    this.threads = Math.max(1, threads);
    this.isaLevel = isaLevel;
    this.limits = limits;
    this.smVersion = smVersion;
  }

  /** A builder of {@code threads} workers for C at {@code isaLevel}, and Java. */
  public static Builder forCpu(NativeToolchain toolchain, int threads, String isaLevel) {
    return new Builder(toolchain, threads, isaLevel, null, 0);
  }

  /**
   * A builder for GPU kernels within {@code limits}; CUDA cubins for {@code sm_<smVersion>} (0 for
   * an OpenCL-only builder).
   */
  public static Builder forGpu(
      NativeToolchain toolchain, int threads, GpuLimits limits, int smVersion) {
    return new Builder(toolchain, threads, null, limits, smVersion);
  }

  /** Builds {@code batch} in parallel; the futures in the batch's order, none failing. */
  public synchronized List<Future<BuildResult>> submit(TuningTask task, List<Configuration> batch) {
    if (pool == null) {
      pool =
          Executors.newFixedThreadPool(
              threads, Thread.ofPlatform().daemon().name("kernelgen-build-", 0).factory());
    }
    List<Future<BuildResult>> out = new ArrayList<>();
    for (Configuration c : batch) {
      out.add(pool.submit(() -> build(task, c)));
    }
    return out;
  }

  /** Builds {@code batch} in parallel and waits for all. */
  public List<BuildResult> build(TuningTask task, List<Configuration> batch) {
    List<BuildResult> out = new ArrayList<>();
    for (Future<BuildResult> f : submit(task, batch)) {
      out.add(await(f));
    }
    return out;
  }

  /** The result of a build submitted here; a bug in the compiler is rethrown. */
  static BuildResult await(Future<BuildResult> f) {
    try {
      return f.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("building a candidate failed: " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UserError("interrupted while building candidates", e);
    }
  }

  /** One candidate: scheduled, lowered, printed and compiled, on the calling thread. */
  public BuildResult build(TuningTask task, Configuration c) {
    List<String> trace = List.of();
    PrimFunc func;
    try {
      Schedule s = task.schedule(c);
      trace = TuningTask.trace(s);
      func = task.lower(s);
    } catch (UserError | CompilerBug e) {
      return BuildResult.failed(
          c, trace, task.target(), task.kernelName(), Measurement.Status.INVALID, e.getMessage());
    }
    return compile(print(task, func, c, trace));
  }

  /**
   * The source of {@code func} (a lowering of {@code task}'s schedule for {@code c}), not yet
   * compiled; a GPU module over the device's limits fails here as {@code INVALID}.
   */
  public BuildResult print(TuningTask task, PrimFunc func, Configuration c, List<String> trace) {
    return print(task.target(), task, func, c, trace);
  }

  /**
   * As above, for {@code target} ({@code func} lowered for it): the naive C loop nest of a task.
   */
  public BuildResult print(
      Target target, TuningTask task, PrimFunc func, Configuration c, List<String> trace) {
    String name = task.kernelName();
    List<TensorSpec> params = new ArrayList<>();
    List<Tensor> args = new ArrayList<>(task.def().inputs());
    args.addAll(task.def().outputs());
    for (int i = 0; i < args.size(); i++) {
      params.add(new TensorSpec(args.get(i).dtype().name(), task.shape().get(i)));
    }
    int inputs = task.def().inputs().size();
    String source;
    List<KernelLaunch> kernels = new ArrayList<>();
    List<TensorSpec> temporaries = new ArrayList<>();
    switch (target) {
      case C -> {
        source = CCodegen.generate(List.of(func), name) + CHarness.harness(func, inputs);
        kernels.add(KernelLaunch.host(func.name(), func.params().size()));
      }
      case JAVA -> {
        int dot = JAVA_CLASS.lastIndexOf('.');
        source =
            JavaCodegen.generate(
                List.of(func), JAVA_CLASS.substring(0, dot), JAVA_CLASS.substring(dot + 1));
        kernels.add(KernelLaunch.host(func.name(), func.params().size()));
      }
      case CUDA, OPENCL -> {
        String over = limits == null ? null : limits.check(func);
        if (over != null) {
          return BuildResult.failed(c, trace, target, name, Measurement.Status.INVALID, over);
        }
        SplitHostDevice.DeviceModule module;
        try {
          module = SplitHostDevice.split(func);
        } catch (UserError | CompilerBug e) {
          return BuildResult.failed(
              c, trace, target, name, Measurement.Status.INVALID, e.getMessage());
        }
        for (int t = 0; t < module.temporaries().size(); t++) {
          temporaries.add(
              new TensorSpec(
                  module.temporaries().get(t).dtype().name(),
                  List.of(constant(module.temporarySizes().get(t)))));
        }
        for (PrimFunc k : module.kernels()) {
          long[] g = LaunchGeometry.of(k).evaluate(java.util.Map.of());
          kernels.add(
              new KernelLaunch(
                  k.name(),
                  k.params().size(),
                  List.of((int) g[0], (int) g[1], (int) g[2]),
                  List.of((int) g[3], (int) g[4], (int) g[5])));
        }
        source =
            target == Target.CUDA
                ? CudaCodegen.generate(module.kernels(), name)
                : OpenClCodegen.generate(module.kernels(), name);
      }
      default -> throw new IllegalStateException("no builder for " + target);
    }
    return new BuildResult(
        c, trace, target, name, source, null, kernels, inputs, params, temporaries, null, "");
  }

  /**
   * {@code b}'s source compiled: its binary, or a {@code COMPILE_ERROR} saying why. A source this
   * builder compiled before is not compiled again ({@link CompiledBinaries}).
   */
  public BuildResult compile(BuildResult b) {
    if (b.failure() != null) {
      return b; // nothing to compile: the print failed, and says why
    }
    try {
      byte[] binary =
          switch (b.target()) {
            case C -> binaries.get(b.target(), b.source(), () -> compileC(b.source()));
            case CUDA ->
                binaries.get(
                    b.target(),
                    b.source(),
                    () -> toolchain.compileCubin(b.source(), "sm_" + smVersion));
            case OPENCL -> b.source().getBytes(StandardCharsets.UTF_8);
            case JAVA ->
                binaries.get(
                    b.target(), b.source(), () -> JavaClasses.compile(b.source(), JAVA_CLASS));
          };
      return b.withBinary(binary);
    } catch (UserError e) {
      return b.fail(Measurement.Status.COMPILE_ERROR, e.getMessage());
    }
  }

  private byte[] compileC(String source) {
    Path dir = ReferenceData.tempDir("kernelgen-tune");
    try {
      Path src = dir.resolve("candidate.c");
      Path exe = dir.resolve("candidate");
      Files.writeString(src, source);
      List<String> cmd = new ArrayList<>();
      cmd.add(toolchain.cc().toString());
      cmd.addAll(EXECUTABLE_FLAGS);
      cmd.add("-march=" + isaLevel);
      cmd.add(src.toString());
      cmd.add("-o");
      cmd.add(exe.toString());
      cmd.add("-lm");
      ChildProcess r = ChildProcess.run(cmd, dir, 600);
      if (r.exit() != 0) {
        throw new UserError("cc failed: " + ChildProcess.tail(r.output()));
      }
      return Files.readAllBytes(exe);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      ReferenceData.deleteTree(dir);
    }
  }

  /** How many compiles this builder started: sources it had not compiled before (tests). */
  int compiles() {
    return binaries.compiles();
  }

  private static long constant(Expr e) {
    Expr s = dev.kernelgen.arith.Simplifier.simplify(e);
    if (s instanceof IntImm i) {
      return i.value();
    }
    throw new CompilerBug("temporary size " + e.show() + " is not a constant for a fixed shape");
  }

  /** Stops the pool's workers; a later {@link #submit} starts new ones. */
  @Override
  public synchronized void close() {
    if (pool != null) {
      pool.shutdownNow();
      pool = null;
    }
  }
}
