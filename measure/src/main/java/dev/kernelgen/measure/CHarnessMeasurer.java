package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.Measurer;
import dev.kernelgen.tune.ReferenceCache;
import dev.kernelgen.tune.TuningTask;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Measures C kernels on this machine's CPU. Each candidate is printed with a small {@code main}
 * that reads the inputs from files, runs the kernel once and writes its outputs (checked against
 * the tensor-expression oracle), then times warm-up and repeated calls with {@code
 * clock_gettime(CLOCK_MONOTONIC)}, several calls per sample for short kernels. Candidates are
 * compiled in parallel by {@code cc} processes; each runs in its own process under a timeout, so
 * one that crashes or hangs is a failed trial and the search goes on.
 *
 * <p>The expected outputs are computed once per task. With {@link #cachingReferencesIn} they are
 * also kept on disk ({@link ReferenceCache}, keyed by operator, shapes and input seed) and read
 * back by later runs. With the default oracle, the interpreter, a task of more than {@link
 * #INTERPRETER_LIMIT} element operations in its naive loop nest (a 512³ matmul has 2.7·10⁸) is not
 * interpreted, which would take minutes: its reference is the output of the naive schedule (the
 * compute definition's own loop nest, no primitive applied, lowered and compiled for C like any
 * candidate), the trusted schedule that the interpreter checks in the tests at small shapes; the
 * cache entry records which of the two ({@code interpreter} or {@code naive-c}) produced it.
 */
public final class CHarnessMeasurer implements Measurer {
  /**
   * The C flags of an executable: kernelgen's, without those of a shared library; {@code -march} is
   * the ISA level measured at ({@link #isaLevel()}).
   */
  public static final List<String> EXECUTABLE_FLAGS =
      NativeToolchain.DEFAULT_C_FLAGS.stream()
          .filter(f -> !f.equals("-shared") && !f.equals("-fPIC"))
          .toList();

  private String isaLevel;

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

  private final NativeToolchain toolchain;
  private final int parallelCompiles;
  private final int warmup;
  private final int repeats;
  private final long timeoutSeconds;
  private final double tolerance;
  private final Map<TuningTask, Reference> references = new HashMap<>();
  private final Oracle oracle;
  private final boolean interpreterOracle;
  private ReferenceCache referenceCache;
  private long interpreterLimit = INTERPRETER_LIMIT;
  private Map<String, String> environment = Map.of();

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
    this.oracle = oracle;
    this.interpreterOracle = interpreterOracle;
    this.toolchain = toolchain;
    this.parallelCompiles = Math.max(1, parallelCompiles);
    this.warmup = warmup;
    this.repeats = Math.max(1, repeats);
    this.timeoutSeconds = timeoutSeconds;
    this.tolerance = 1e-3;
  }

  /**
   * A measurer with the toolchain found on PATH, one compile per processor, 3 warm-ups, 15 repeats.
   */
  public static CHarnessMeasurer fromEnvironment() {
    return new CHarnessMeasurer(
        NativeToolchain.fromEnvironment(), Runtime.getRuntime().availableProcessors(), 3, 15, 60);
  }

  /**
   * Keeps the expected outputs in {@code dir} (the tuning directory's {@code references/}) and
   * reads them from there when an earlier run computed them; returns this measurer.
   */
  public synchronized CHarnessMeasurer cachingReferencesIn(Path dir) {
    this.referenceCache = new ReferenceCache(dir);
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
  public synchronized CHarnessMeasurer withInterpreterLimit(long elementOps) {
    this.interpreterLimit = elementOps;
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

  private Map<String, String> versions;

  @Override
  public synchronized Map<String, String> versions() {
    if (versions == null) {
      versions = Map.copyOf(findVersions());
    }
    return versions;
  }

  /** How candidates are timed: CLOCK_MONOTONIC in the child process, short calls batched. */
  public TimingProtocol timing() {
    return new TimingProtocol(
        warmup, repeats, "clock_gettime(CLOCK_MONOTONIC), calls batched to 500 us", false);
  }

  private Map<String, String> findVersions() {
    Map<String, String> v = new LinkedHashMap<>();
    v.put("driver", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    v.put("toolchain", firstLine(List.of(toolchain.cc().toString(), "--version")));
    v.put("flags", String.join(" ", EXECUTABLE_FLAGS) + " -march=" + isaLevel());
    v.put("isa", isaLevel());
    v.put(TimingProtocol.VERSION_KEY, timing().describe());
    return v;
  }

  @Override
  public List<Measurement> measure(TuningTask task, List<Configuration> batch) {
    UserError.check(
        task.target() == Target.C, "the C measurer runs C kernels, not %s", task.target());
    Reference ref = reference(task);
    ExecutorService pool = Executors.newFixedThreadPool(parallelCompiles);
    List<Future<Candidate>> built = new ArrayList<>();
    try {
      for (Configuration c : batch) {
        built.add(pool.submit(() -> build(task, c, ref)));
      }
      List<Measurement> out = new ArrayList<>();
      for (Future<Candidate> f : built) {
        Candidate cand;
        try {
          cand = f.get();
        } catch (Exception e) {
          throw new IllegalStateException("building a candidate failed: " + e, e);
        }
        try {
          out.add(cand.failure != null ? cand.failure : run(task, cand, ref));
        } finally {
          cand.delete();
        }
      }
      return out;
    } finally {
      pool.shutdownNow();
      // Candidates left by a failure above: their directories go too.
      for (Future<Candidate> f : built) {
        try {
          f.get().delete();
        } catch (Exception e) {
          // Never built: nothing on disk.
        }
      }
    }
  }

  /**
   * Deletes the reference data written for the tasks measured so far (inputs as files for the
   * harness); a later batch writes it again. Without a close it goes when the JVM exits.
   */
  @Override
  public synchronized void close() {
    for (Reference r : references.values()) {
      deleteTree(r.dir());
    }
    references.clear();
  }

  /** The directories of reference data this measurer holds now: a test hook. */
  synchronized List<Path> dataDirectories() {
    return references.values().stream().map(Reference::dir).toList();
  }

  /** The oracle's outputs and the inputs they were computed from, written once per task. */
  private record Reference(Path dir, List<NDArray> inputs, List<NDArray> outputs) {}

  private synchronized Reference reference(TuningTask task) {
    return references.computeIfAbsent(
        task,
        t -> {
          List<NDArray> inputs = ReferenceCache.inputs(t);
          Path dir = tempDir("kernelgen-tune-data");
          // Deleted at exit in the reverse order: the files, then the directory (which
          // deleteOnExit alone never deleted, as it is not empty).
          dir.toFile().deleteOnExit();
          for (int i = 0; i < inputs.size(); i++) {
            Path file = dir.resolve(i + ".bin");
            writeBytes(file, inputs.get(i).segment().toArray(ValueLayout.JAVA_BYTE));
            file.toFile().deleteOnExit();
          }
          return new Reference(dir, inputs, expected(t, inputs, dir));
        });
  }

  /**
   * The task's expected outputs for the inputs of {@link ReferenceCache#inputs}, computed (or read
   * from the cache) once: what a GPU measurer checks its candidates against too, whatever the
   * task's target (the naive loop nest is then lowered for C).
   */
  public List<NDArray> expectedOutputs(TuningTask task) {
    return reference(task).outputs();
  }

  /** The expected outputs: cached, else the oracle's, else (large tasks) the naive loop nest's. */
  private List<NDArray> expected(TuningTask t, List<NDArray> inputs, Path data) {
    if (referenceCache != null) {
      var hit = referenceCache.load(t);
      if (hit.isPresent()) {
        return hit.get();
      }
    }
    List<NDArray> out;
    String source;
    if (interpreterOracle && naiveOps(t) > interpreterLimit) {
      out = naiveOutputs(t, data);
      source = "naive-c";
    } else {
      out = oracle.outputs(t, inputs);
      source = interpreterOracle ? "interpreter" : "oracle";
    }
    if (referenceCache != null) {
      referenceCache.store(t, out, source);
    }
    return out;
  }

  /** Floating-point operations plus loads of the task's naive loop nest. */
  static double naiveOps(TuningTask t) {
    double[] x = dev.kernelgen.tune.features.LoopFeatures.of(naiveFunc(t));
    var names = dev.kernelgen.tune.features.LoopFeatures.NAMES;
    return Math.pow(2, x[names.indexOf("flops")]) + Math.pow(2, x[names.indexOf("loads")]);
  }

  /** The compute definition's own loop nest, no primitive applied, lowered for C. */
  private static PrimFunc naiveFunc(TuningTask t) {
    return dev.kernelgen.lower.Lower.lower(
        Schedule.create(t.def().outputs()), t.kernelName(), t.def().args(), Target.C, null);
  }

  /** Runs the naive schedule's C kernel once on the inputs in {@code data}; its outputs. */
  private List<NDArray> naiveOutputs(TuningTask t, Path data) {
    Candidate cand = compile(t, naiveFunc(t), t.space().defaults(), List.of("naive loop nest"));
    try {
      if (cand.failure != null) {
        throw new CompilerBug(
            "the naive loop nest of "
                + t.operator()
                + " (the reference) does not compile: "
                + cand.failure.detail());
      }
      Exec r =
          exec(
              List.of(cand.exe.toString(), data.toString(), cand.dir.toString(), "0", "1"),
              cand.dir,
              Math.max(600, timeoutSeconds));
      if (r.timedOut || r.exit != 0) {
        throw new UserError(
            "the reference run of "
                + t.operator()
                + "'s naive loop nest failed ("
                + (r.timedOut ? "over 600 s" : "exit " + r.exit + ": " + tail(r.output))
                + ")");
      }
      int nIn = t.def().inputs().size();
      List<NDArray> out = new ArrayList<>();
      for (int o = 0; o < t.def().outputs().size(); o++) {
        byte[] bytes = readBytes(cand.dir.resolve("out" + o + ".bin"));
        MemorySegment seg = Arena.ofAuto().allocate(bytes.length, 8);
        seg.copyFrom(MemorySegment.ofArray(bytes));
        out.add(
            NDArray.wrap(t.def().outputs().get(o).dtype(), seg, toArray(t.shape().get(nIn + o))));
      }
      return out;
    } finally {
      cand.delete();
    }
  }

  private static long[] toArray(List<Long> l) {
    return l.stream().mapToLong(Long::longValue).toArray();
  }

  /** A compiled candidate, or why there is none. */
  private static final class Candidate {
    Configuration config;
    List<String> trace = List.of();
    PrimFunc func;
    Path dir;
    Path exe;
    Measurement failure;

    synchronized void delete() {
      if (dir != null) {
        deleteTree(dir);
        dir = null;
      }
    }
  }

  private Candidate build(TuningTask task, Configuration c, Reference ref) {
    List<String> trace = List.of();
    PrimFunc func;
    try {
      Schedule s = task.schedule(c);
      trace = TuningTask.trace(s);
      func = task.lower(s);
    } catch (UserError | CompilerBug e) {
      Candidate cand = new Candidate();
      cand.config = c;
      cand.failure = Measurement.failed(c, Measurement.Status.INVALID, trace, e.getMessage());
      return cand;
    }
    return compile(task, func, c, trace);
  }

  /** Compiles {@code func} with the harness. */
  private Candidate compile(TuningTask task, PrimFunc func, Configuration c, List<String> trace) {
    Candidate cand = new Candidate();
    cand.config = c;
    cand.trace = trace;
    cand.func = func;
    String source =
        CCodegen.generate(List.of(cand.func), task.kernelName())
            + harness(cand.func, task.def().inputs().size());
    cand.dir = tempDir("kernelgen-tune");
    Path src = cand.dir.resolve("candidate.c");
    cand.exe = cand.dir.resolve("candidate");
    writeBytes(src, source.getBytes(StandardCharsets.UTF_8));
    List<String> cmd = new ArrayList<>();
    cmd.add(toolchain.cc().toString());
    cmd.addAll(EXECUTABLE_FLAGS);
    cmd.add("-march=" + isaLevel());
    cmd.add(src.toString());
    cmd.add("-o");
    cmd.add(cand.exe.toString());
    cmd.add("-lm");
    Exec r = exec(cmd, cand.dir, 600);
    if (r.exit != 0) {
      cand.failure =
          Measurement.failed(
              c, Measurement.Status.COMPILE_ERROR, cand.trace, "cc failed: " + tail(r.output));
    }
    return cand;
  }

  private Measurement run(TuningTask task, Candidate cand, Reference ref) {
    List<String> cmd =
        List.of(
            cand.exe.toString(),
            ref.dir().toString(),
            cand.dir.toString(),
            Integer.toString(warmup),
            Integer.toString(repeats));
    Exec r = exec(cmd, cand.dir, timeoutSeconds, environment);
    if (r.timedOut) {
      return Measurement.failed(
          cand.config,
          Measurement.Status.TIMEOUT,
          cand.trace,
          "did not finish within " + timeoutSeconds + " s");
    }
    if (r.exit != 0) {
      return Measurement.failed(
          cand.config,
          Measurement.Status.RUNTIME_ERROR,
          cand.trace,
          "exit " + r.exit + ": " + tail(r.output));
    }
    int nIn = task.def().inputs().size();
    for (int o = 0; o < ref.outputs().size(); o++) {
      NDArray expected = ref.outputs().get(o);
      byte[] bytes = readBytes(cand.dir.resolve("out" + o + ".bin"));
      MemorySegment seg = Arena.ofAuto().allocate(bytes.length, 8);
      seg.copyFrom(MemorySegment.ofArray(bytes));
      NDArray got = NDArray.wrap(expected.dtype(), seg, toArray(task.shape().get(nIn + o)));
      String diff = NDArray.compare(expected, got, tolerance, tolerance);
      if (diff != null) {
        return Measurement.failed(
            cand.config, Measurement.Status.WRONG, cand.trace, "output " + o + ": " + diff);
      }
    }
    for (String line : r.output.split("\n")) {
      if (line.startsWith("KG_TIMES ")) {
        String[] p = line.strip().split(" ");
        return Measurement.ok(
            cand.config, Double.parseDouble(p[1]), Double.parseDouble(p[2]), cand.trace);
      }
    }
    return Measurement.failed(
        cand.config, Measurement.Status.RUNTIME_ERROR, cand.trace, "no timings: " + tail(r.output));
  }

  /** The {@code main} that loads, checks and times {@code f}. */
  static String harness(PrimFunc f, int inputs) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        """

        /* Tuning harness: argv = data dir, output dir, warm-up calls, timed samples. */
        #include <stdio.h>
        #include <string.h>
        #include <time.h>
        static double kg_now_us(void) {
          struct timespec t;
          clock_gettime(CLOCK_MONOTONIC, &t);
          return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
        }
        static void* kg_load(const char* dir, const char* name, size_t bytes, int read) {
          void* p = aligned_alloc(64, (bytes + 63) / 64 * 64);
          if (!p) { fprintf(stderr, "out of memory\\n"); exit(3); }
          memset(p, 0, bytes);
          if (!read) return p;
          char path[4096];
          snprintf(path, sizeof path, "%s/%s", dir, name);
          FILE* f = fopen(path, "rb");
          if (!f || fread(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot read %s\\n", path); exit(4); }
          fclose(f);
          return p;
        }
        static void kg_save(const char* dir, const char* name, const void* p, size_t bytes) {
          char path[4096];
          snprintf(path, sizeof path, "%s/%s", dir, name);
          FILE* f = fopen(path, "wb");
          if (!f || fwrite(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot write %s\\n", path); exit(5); }
          fclose(f);
        }
        static int kg_cmp(const void* a, const void* b) {
          double x = *(const double*) a, y = *(const double*) b;
          return x < y ? -1 : x > y;
        }
        int main(int argc, char** argv) {
          if (argc < 5) { fprintf(stderr, "usage: data out warmup repeats\\n"); return 2; }
          int warmup = atoi(argv[3]), repeats = atoi(argv[4]);
        """);
    List<Buffer> ps = f.params();
    int stored = inputs;
    for (int i = 0; i < ps.size(); i++) {
      Buffer b = ps.get(i);
      long n = 1;
      for (var d : b.shape()) {
        n *= ((dev.kernelgen.te.IntImm) d).value();
      }
      boolean input = i < stored;
      sb.append(
          String.format(
              Locale.ROOT,
              "  void* a%d = kg_load(argv[1], \"%s\", (size_t) %dL * %d, %d);%n",
              i,
              input ? i + ".bin" : "",
              n,
              b.dtype().bytes(),
              input ? 1 : 0));
      sb.append(
          String.format(
              Locale.ROOT, "  size_t n%d = (size_t) %dL * %d;%n", i, n, b.dtype().bytes()));
    }
    String call =
        f.name()
            + "("
            + String.join(
                ", ",
                java.util.stream.IntStream.range(0, ps.size()).mapToObj(i -> "a" + i).toList())
            + ");";
    // The checked call: a kernel returns the bytes of a temporary it could not allocate.
    sb.append("  { long long st = ")
        .append(call, 0, call.length() - 1)
        .append(
            "; if (st != 0) { fprintf(stderr, \"out of memory: the kernel could not allocate %lld"
                + " bytes\\n\", st); return 6; } }\n");
    for (int i = stored; i < ps.size(); i++) {
      sb.append(
          String.format(
              Locale.ROOT, "  kg_save(argv[2], \"out%d.bin\", a%d, n%d);%n", i - stored, i, i));
    }
    sb.append("  for (int i = 0; i < warmup; i++) ").append(call).append('\n');
    sb.append(
        """
          double t0 = kg_now_us();
        """);
    sb.append("  ").append(call).append('\n');
    sb.append(
        """
          double one = kg_now_us() - t0;
          /* Several calls per sample when one is short, so the clock's resolution does not count. */
          int inner = one >= 500 ? 1 : (int) (500 / (one + 0.01)) + 1;
          if (inner > 10000) inner = 10000;
          double* s = malloc(sizeof(double) * repeats);
          for (int r = 0; r < repeats; r++) {
            double t = kg_now_us();
            for (int i = 0; i < inner; i++) """);
    sb.append(call).append('\n');
    sb.append(
        """
            s[r] = (kg_now_us() - t) / inner;
          }
          qsort(s, repeats, sizeof(double), kg_cmp);
          printf("KG_TIMES %.6f %.6f\\n", s[repeats / 2], s[0]);
          return 0;
        }
        """);
    return sb.toString();
  }

  private record Exec(int exit, String output, boolean timedOut) {}

  private static Exec exec(List<String> cmd, Path dir, long timeoutSeconds) {
    return exec(cmd, dir, timeoutSeconds, Map.of());
  }

  private static Exec exec(
      List<String> cmd, Path dir, long timeoutSeconds, Map<String, String> env) {
    try {
      Path log = dir.resolve("process.log");
      ProcessBuilder pb =
          new ProcessBuilder(cmd)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      pb.environment().putAll(env);
      Process p = pb.start();
      p.getOutputStream().close();
      boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
      if (!done) {
        p.destroyForcibly();
        p.waitFor();
        return new Exec(-1, "", true);
      }
      return new Exec(p.exitValue(), Files.readString(log), false);
    } catch (IOException e) {
      return new Exec(-1, "could not start " + cmd.get(0) + ": " + e.getMessage(), false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UserError("interrupted while measuring", e);
    }
  }

  private static String firstLine(List<String> cmd) {
    Path dir = tempDir("kernelgen-cc-version");
    Exec r = exec(cmd, dir, 30);
    deleteTree(dir);
    return r.output.lines().findFirst().orElse("unknown").strip();
  }

  private static String tail(String s) {
    String t = s.strip();
    return t.length() > 600 ? "..." + t.substring(t.length() - 600) : t;
  }

  private static Path tempDir(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeBytes(Path p, byte[] b) {
    try {
      Files.write(p, b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] readBytes(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    } catch (IOException e) {
      // A temporary directory left behind is harmless.
    }
  }
}
