package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.Measurer;
import dev.kernelgen.tune.ReferenceCache;
import dev.kernelgen.tune.TuningTask;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

/**
 * Measures C kernels on this machine's CPU: a {@link Builder} prints each candidate with the {@link
 * CHarness} {@code main} and compiles it ({@code cc} processes in parallel), a {@link
 * CHarnessRunner} runs each in its own process under a timeout (one that crashes or hangs is a
 * failed trial and the search goes on), checks its outputs against the oracle's and reads its
 * timings.
 *
 * <p>The expected outputs are computed once per task ({@link References}). With {@link
 * #cachingReferencesIn} they are also kept on disk ({@link ReferenceCache}, keyed by operator,
 * shapes and input seed) and read back by later runs. With the default oracle, the interpreter, a
 * task of more than {@link #INTERPRETER_LIMIT} element operations in its naive loop nest (a 512³
 * matmul has 2.7·10⁸) is not interpreted, which would take minutes: its reference is the output of
 * the naive schedule (the compute definition's own loop nest, no primitive applied, lowered and
 * compiled for C like any candidate), the trusted schedule that the interpreter checks in the tests
 * at small shapes; the cache entry records which of the two ({@code interpreter} or {@code
 * naive-c}) produced it.
 */
public final class CHarnessMeasurer implements Measurer {
  /**
   * The C flags of an executable: kernelgen's, without those of a shared library; {@code -march} is
   * the ISA level measured at ({@link #isaLevel()}).
   */
  public static final List<String> EXECUTABLE_FLAGS = Builder.EXECUTABLE_FLAGS;

  /**
   * The most element operations (floating-point operations plus loads of the naive loop nest) that
   * the interpreter is asked to evaluate for a reference; larger tasks take the naive C loop nest's
   * output.
   */
  public static final long INTERPRETER_LIMIT = 1L << 26;

  /**
   * Computes a task's expected outputs from its inputs (inputs, then outputs, in the order of the
   * operator's arguments). The default is the tensor-expression interpreter; a benchmark with large
   * shapes supplies a faster reference.
   */
  @FunctionalInterface
  public interface Oracle {
    List<NDArray> outputs(TuningTask task, List<NDArray> inputs);

    /** The tensor-expression interpreter: exact, and slow for large shapes. */
    static Oracle interpreter() {
      return (task, inputs) -> {
        Map<Tensor, NDArray> in = new LinkedHashMap<>();
        for (int i = 0; i < inputs.size(); i++) {
          in.put(task.def().inputs().get(i), inputs.get(i));
        }
        Map<Tensor, NDArray> got = TensorInterpreter.evaluate(task.def().outputs(), in, Map.of());
        return task.def().outputs().stream().map(got::get).toList();
      };
    }
  }

  private final NativeToolchain toolchain;
  private final int parallelCompiles;
  private final int warmup;
  private final int repeats;
  private final long timeoutSeconds;
  private final double tolerance = 1e-3;
  private final References references;
  private final CHarnessRunner runner = new CHarnessRunner();
  private Builder builder;
  private String isaLevel;
  private Map<String, String> environment = Map.of();
  private Map<String, String> versions;

  /**
   * @param toolchain provides {@code cc}; its flags are replaced by {@link #EXECUTABLE_FLAGS}
   * @param parallelCompiles how many {@code cc} run at once
   * @param warmup calls before timing
   * @param repeats timed samples (the median and the minimum are reported)
   * @param timeoutSeconds the longest a candidate may run
   */
  public CHarnessMeasurer(
      NativeToolchain toolchain,
      int parallelCompiles,
      int warmup,
      int repeats,
      long timeoutSeconds) {
    this(toolchain, parallelCompiles, warmup, repeats, timeoutSeconds, Oracle.interpreter(), true);
  }

  /** As above, checking against {@code oracle}. */
  public CHarnessMeasurer(
      NativeToolchain toolchain,
      int parallelCompiles,
      int warmup,
      int repeats,
      long timeoutSeconds,
      Oracle oracle) {
    this(toolchain, parallelCompiles, warmup, repeats, timeoutSeconds, oracle, false);
  }

  private CHarnessMeasurer(
      NativeToolchain toolchain,
      int parallelCompiles,
      int warmup,
      int repeats,
      long timeoutSeconds,
      Oracle oracle,
      boolean interpreterOracle) {
    this.toolchain = toolchain;
    this.parallelCompiles = Math.max(1, parallelCompiles);
    this.warmup = warmup;
    this.repeats = Math.max(1, repeats);
    this.timeoutSeconds = timeoutSeconds;
    this.references = new References(oracle, interpreterOracle, this::naiveOutputs);
  }

  /**
   * A measurer with the toolchain found on PATH, one compile per processor, 3 warm-ups, 15 repeats.
   */
  public static CHarnessMeasurer fromEnvironment() {
    return new CHarnessMeasurer(
        NativeToolchain.fromEnvironment(), Runtime.getRuntime().availableProcessors(), 3, 15, 60);
  }

  /**
   * The ISA level candidates are compiled for and their records carry ({@code versions.isa}): the
   * best of the toolchain's levels this CPU runs ({@link NativeToolchain#nativeIsaLevel()}), so
   * that {@code generate} builds each level's library from that level's records. A toolchain with
   * one level ({@code withIsaLevels(List.of("x86-64-v3"))}) measures at that level.
   */
  public synchronized String isaLevel() {
    if (isaLevel == null) {
      isaLevel = toolchain.nativeIsaLevel();
    }
    return isaLevel;
  }

  /** The builder of this measurer's candidates: {@code parallelCompiles} workers. */
  public synchronized Builder builder() {
    if (builder == null) {
      builder = Builder.forCpu(toolchain, parallelCompiles, isaLevel());
    }
    return builder;
  }

  /**
   * Keeps the expected outputs in {@code dir} (the tuning directory's {@code references/}) and
   * reads them from there when an earlier run computed them; returns this measurer.
   */
  public CHarnessMeasurer cachingReferencesIn(Path dir) {
    references.cacheIn(new ReferenceCache(dir));
    return this;
  }

  /**
   * Sets environment variables of the timed runs (for example {@code OMP_NUM_THREADS=1} for
   * single-thread timings on a shared, overloaded machine, where OpenMP's threads wait for each
   * other's time slices); returns this.
   */
  public synchronized CHarnessMeasurer withEnvironment(Map<String, String> env) {
    this.environment = Map.copyOf(env);
    return this;
  }

  /** Sets the largest task the interpreter computes references for (tests); returns this. */
  public CHarnessMeasurer withInterpreterLimit(long elementOps) {
    references.interpreterLimit(elementOps);
    return this;
  }

  @Override
  public String deviceName() {
    return cpuName();
  }

  /** This CPU's model name and thread count, as the log records it. */
  public static String cpuName() {
    String model = System.getProperty("os.arch");
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          model = line.substring(line.indexOf(':') + 1).strip();
          break;
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux: the architecture names the CPU well enough.
    }
    return model + " (" + Runtime.getRuntime().availableProcessors() + " threads)";
  }

  @Override
  public synchronized Map<String, String> versions() {
    if (versions == null) {
      Map<String, String> v = new LinkedHashMap<>();
      v.put("driver", System.getProperty("os.name") + " " + System.getProperty("os.version"));
      v.put("toolchain", ChildProcess.firstLine(List.of(toolchain.cc().toString(), "--version")));
      v.put("flags", String.join(" ", EXECUTABLE_FLAGS) + " -march=" + isaLevel());
      v.put("isa", isaLevel());
      v.put(TimingProtocol.VERSION_KEY, timing().describe());
      versions = Map.copyOf(v);
    }
    return versions;
  }

  /** How candidates are timed: CLOCK_MONOTONIC in the child process, short calls batched. */
  public TimingProtocol timing() {
    return new TimingProtocol(warmup, repeats, CHarness.CLOCK, false);
  }

  /** What the runner gets for {@code b}: the task's reference data and this measurer's protocol. */
  public RunnerInput runnerInput(TuningTask task, BuildResult b) {
    Map<String, String> env;
    synchronized (this) {
      env = environment;
    }
    return new RunnerInput(
        b, references.of(task).dir(), timing(), 0, tolerance, timeoutSeconds, env);
  }

  @Override
  public List<Measurement> measure(TuningTask task, List<Configuration> batch) {
    UserError.check(
        task.target() == Target.C, "the C measurer runs C kernels, not %s", task.target());
    references.of(task);
    List<Measurement> out = new ArrayList<>();
    // The whole batch is built (in parallel) before any candidate is timed: the kernels run on the
    // same cores as the compiler, and a kernel timed beside a compile measured up to 2x slow on a
    // 2-core machine, enough to rank the candidates wrongly.
    List<BuildResult> built = new ArrayList<>();
    for (Future<BuildResult> f : builder().submit(task, batch)) {
      built.add(Builder.await(f));
    }
    for (BuildResult b : built) {
      out.add(b.ok() ? runner.run(runnerInput(task, b)).toMeasurement(b) : b.measurement());
    }
    return out;
  }

  /**
   * Deletes the reference data written for the tasks measured so far (inputs as files for the
   * harness) and stops the builder's workers; a later batch writes and starts them again. Without a
   * close the data goes when the JVM exits.
   */
  @Override
  public void close() {
    references.clear();
    Builder b;
    synchronized (this) {
      b = builder;
    }
    if (b != null) {
      // Its workers stop; a later batch starts new ones.
      b.close();
    }
  }

  /** The directories of reference data this measurer holds now: a test hook. */
  List<Path> dataDirectories() {
    return references.directories();
  }

  /**
   * The task's expected outputs for the inputs of {@link ReferenceCache#inputs}, computed (or read
   * from the cache) once: what a GPU measurer checks its candidates against too, whatever the
   * task's target (the naive loop nest is then lowered for C).
   */
  public List<NDArray> expectedOutputs(TuningTask task) {
    return references.of(task).outputs();
  }

  /** The reference data directory of {@code task}, written once. */
  public Path referenceData(TuningTask task) {
    return references.of(task).dir();
  }

  /** Runs the naive schedule's C kernel once on the inputs in {@code data}; its outputs. */
  private List<NDArray> naiveOutputs(TuningTask t, Path data) {
    BuildResult b =
        builder()
            .compile(
                builder()
                    .print(
                        Target.C,
                        t,
                        References.referenceFunc(t),
                        t.space().defaults(),
                        List.of("naive loop nest")));
    if (!b.ok()) {
      throw new CompilerBug(
          "the naive loop nest of "
              + t.operator()
              + " (the reference) does not compile: "
              + b.error());
    }
    RunnerInput in =
        new RunnerInput(b, data, timing(), 0, tolerance, Math.max(600, timeoutSeconds), Map.of());
    try {
      return runner.outputsOf(in);
    } catch (IllegalStateException e) {
      throw new UserError(
          "the reference run of "
              + t.operator()
              + "'s naive loop nest failed ("
              + e.getMessage()
              + ")");
    }
  }
}
