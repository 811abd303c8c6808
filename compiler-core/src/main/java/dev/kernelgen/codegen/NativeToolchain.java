package dev.kernelgen.codegen;

import dev.kernelgen.diag.UserError;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The native compilers that turn generated source into loadable code: a C compiler ({@code cc},
 * {@code gcc} or {@code clang}) for the C target's shared library, and {@code nvcc} for PTX and
 * cubins. Each is either configured with an explicit path or looked up on the search path (the
 * {@code PATH} directories, and for nvcc also {@code $CUDA_HOME/bin} and {@code
 * /usr/local/cuda/bin}).
 *
 * <p>A missing tool is a {@link UserError} that names the tool, where it was looked for and how to
 * configure it; a failed compilation keeps the source it wrote and quotes the compiler's output.
 * Fast-math flags are not used: kernels are compared with an exact oracle.
 */
public final class NativeToolchain {
  /**
   * Flags for the C compiler: optimized, OpenMP, position-independent shared library. No {@code
   * -march}: the ISA level is added per library ({@link #compileSharedLibrary(String, Path,
   * String)}).
   */
  public static final List<String> DEFAULT_C_FLAGS =
      List.of("-O3", "-fopenmp", "-shared", "-fPIC", "-std=c11");

  /**
   * The ISA levels a C module is compiled for by default: the x86-64 psABI levels v2 (SSE4.2), v3
   * (AVX2, FMA) and v4 (AVX-512). {@code native} (the build machine's own CPU) only when asked for.
   */
  public static final List<String> DEFAULT_ISA_LEVELS =
      List.of("x86-64-v2", "x86-64-v3", "x86-64-v4");

  /**
   * Linker flags of every shared library: the libgcc helpers linked in, and the symbol versions of
   * glibc kept to what the code needs. (libgomp stays a dynamic dependency: Debian's and most
   * distributions' {@code libgomp.a} is not position-independent; the runtime checks for it.)
   */
  static final List<String> LINK_FLAGS = List.of("-static-libgcc", "-Wl,--as-needed");

  private static final long DEFAULT_TIMEOUT_SECONDS = 600;

  /** Runs the C compiles of several ISA levels at once, one per processor. */
  private static final ExecutorService COMPILES =
      Executors.newFixedThreadPool(
          Math.max(1, Runtime.getRuntime().availableProcessors()),
          Thread.ofPlatform().daemon().name("kernelgen-cc-", 0).factory());

  private final Path cc;
  private final Path nvcc;
  private final List<Path> searchPath;
  private final List<String> cFlags;
  private final List<String> isaLevels;
  private final long timeoutSeconds;

  private NativeToolchain(
      Path cc,
      Path nvcc,
      List<Path> searchPath,
      List<String> cFlags,
      List<String> isaLevels,
      long timeoutSeconds) {
    this.cc = cc;
    this.nvcc = nvcc;
    this.searchPath = List.copyOf(searchPath);
    this.cFlags = List.copyOf(cFlags);
    this.isaLevels = List.copyOf(isaLevels);
    this.timeoutSeconds = timeoutSeconds;
  }

  /** Tools found on this process's {@code PATH} (and the usual CUDA directories for nvcc). */
  public static NativeToolchain fromEnvironment() {
    List<Path> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      for (String d : path.split(File.pathSeparator)) {
        if (!d.isEmpty()) {
          dirs.add(Path.of(d));
        }
      }
    }
    return new NativeToolchain(
        null, null, dirs, DEFAULT_C_FLAGS, DEFAULT_ISA_LEVELS, DEFAULT_TIMEOUT_SECONDS);
  }

  /** The same toolchain, looking up tools only in {@code dirs}. */
  public NativeToolchain withSearchPath(List<Path> dirs) {
    return new NativeToolchain(cc, nvcc, dirs, cFlags, isaLevels, timeoutSeconds);
  }

  /** The same toolchain with an explicit C compiler (null: search for one). */
  public NativeToolchain withCc(Path path) {
    return new NativeToolchain(path, nvcc, searchPath, cFlags, isaLevels, timeoutSeconds);
  }

  /** The same toolchain with an explicit nvcc (null: search for it). */
  public NativeToolchain withNvcc(Path path) {
    return new NativeToolchain(cc, path, searchPath, cFlags, isaLevels, timeoutSeconds);
  }

  /** The same toolchain with other C compiler flags than {@link #DEFAULT_C_FLAGS}. */
  public NativeToolchain withCFlags(List<String> flags) {
    return new NativeToolchain(cc, nvcc, searchPath, flags, isaLevels, timeoutSeconds);
  }

  /**
   * The same toolchain compiling each C module for {@code levels} ({@code x86-64-v2}, {@code
   * x86-64-v3}, {@code x86-64-v4}, {@code native}: any {@code -march} value of the compiler).
   *
   * @throws UserError when the list is empty, repeats a level or names one that is not a word
   */
  public NativeToolchain withIsaLevels(List<String> levels) {
    UserError.check(!levels.isEmpty(), "no CPU ISA level to compile C kernels for");
    for (String l : levels) {
      UserError.check(
          l.matches("[a-z0-9][a-z0-9._+-]*"),
          "CPU ISA level '%s' is not a -march value such as x86-64-v3",
          l);
    }
    UserError.check(
        levels.stream().distinct().count() == levels.size(), "CPU ISA levels %s repeat", levels);
    return new NativeToolchain(cc, nvcc, searchPath, cFlags, levels, timeoutSeconds);
  }

  /** The same toolchain with another limit on one compiler run (600 s by default). */
  public NativeToolchain withTimeout(long seconds) {
    UserError.check(seconds > 0, "compiler timeout must be positive, not %s s", seconds);
    return new NativeToolchain(cc, nvcc, searchPath, cFlags, isaLevels, seconds);
  }

  /** The ISA levels each C module is compiled for. */
  public List<String> isaLevels() {
    return isaLevels;
  }

  /** The C compiler flags, without the ISA level. */
  public List<String> cFlags() {
    return cFlags;
  }

  /** The C compiler, if configured and present or found. */
  public Optional<Path> findCc() {
    return find(cc, List.of("cc", "gcc", "clang"), List.of());
  }

  /** nvcc, if configured and present or found. */
  public Optional<Path> findNvcc() {
    return find(nvcc, List.of("nvcc"), cudaDirs());
  }

  /** The C compiler, else a user error that says where it was looked for. */
  public Path cc() {
    return findCc()
        .orElseThrow(
            () -> missing("C compiler", cc, List.of("cc", "gcc", "clang"), List.of(), "withCc"));
  }

  /** nvcc, else a user error that says where it was looked for. */
  public Path nvcc() {
    return findNvcc()
        .orElseThrow(() -> missing("CUDA compiler", nvcc, List.of("nvcc"), cudaDirs(), "withNvcc"));
  }

  private static List<Path> cudaDirs() {
    List<Path> dirs = new ArrayList<>();
    String home = System.getenv("CUDA_HOME");
    if (home != null && !home.isEmpty()) {
      dirs.add(Path.of(home, "bin"));
    }
    dirs.add(Path.of("/usr/local/cuda/bin"));
    return dirs;
  }

  private Optional<Path> find(Path configured, List<String> names, List<Path> extraDirs) {
    if (configured != null) {
      return Files.isExecutable(configured) ? Optional.of(configured) : Optional.empty();
    }
    List<Path> dirs = new ArrayList<>(searchPath);
    dirs.addAll(extraDirs);
    for (String n : names) {
      for (Path d : dirs) {
        Path p = d.resolve(n);
        if (Files.isRegularFile(p) && Files.isExecutable(p)) {
          return Optional.of(p);
        }
      }
    }
    return Optional.empty();
  }

  private UserError missing(
      String what, Path configured, List<String> names, List<Path> extraDirs, String setter) {
    if (configured != null) {
      return new UserError(
          what
              + " "
              + configured
              + " (configured explicitly) does not exist or is not executable; fix the"
              + " configured path (NativeToolchain."
              + setter
              + ") or leave it unset to search PATH");
    }
    List<Path> dirs = new ArrayList<>(searchPath);
    dirs.addAll(extraDirs);
    return new UserError(
        what
            + " not found: looked for "
            + String.join(", ", names)
            + " in "
            + (dirs.isEmpty() ? "no directories (PATH is empty)" : dirs.toString())
            + "; install one, add its directory to PATH, or configure its path explicitly"
            + " (NativeToolchain."
            + setter
            + ")");
  }

  /**
   * Compiles C source to a shared library at {@code out} for this machine's CPU ({@code
   * -march=native}): for tests and benchmarks that run where they are built.
   *
   * @throws UserError when there is no C compiler or the source does not compile
   */
  public void compileSharedLibrary(String cSource, Path out) {
    compileSharedLibrary(cSource, out, "native");
  }

  /**
   * Compiles C source to a shared library at {@code out} for one ISA level ({@code -march=level}).
   *
   * @throws UserError when there is no C compiler or the source does not compile
   */
  public void compileSharedLibrary(String cSource, Path out, String isaLevel) {
    Path tool = cc();
    Path dir = tempDir("kernelgen-cc");
    Path src = dir.resolve("kernels.c");
    write(src, cSource);
    List<String> cmd = new ArrayList<>();
    cmd.add(tool.toString());
    cmd.addAll(cFlags);
    cmd.add("-march=" + isaLevel);
    cmd.add(src.toString());
    cmd.add("-o");
    cmd.add(out.toAbsolutePath().toString());
    cmd.addAll(LINK_FLAGS);
    cmd.add("-lm");
    run(cmd, src, timeoutSeconds);
    delete(dir);
  }

  /**
   * Compiles C source once per ISA level of {@link #isaLevels()}, in parallel, to {@code
   * out.apply(level)}.
   *
   * @return the libraries by level, in the order of {@link #isaLevels()}
   * @throws UserError when there is no C compiler or a level fails to compile (naming it)
   */
  public Map<String, Path> compileSharedLibraries(
      String cSource, java.util.function.Function<String, Path> out) {
    Map<String, String> sources = new LinkedHashMap<>();
    for (String level : isaLevels) {
      sources.put(level, cSource);
    }
    return compileSharedLibraries(sources, out);
  }

  /**
   * Compiles one C source per ISA level ({@code sourceByLevel}: level to source; the levels' own
   * schedules may differ), in parallel, to {@code out.apply(level)}.
   *
   * @return the libraries by level, in the map's order
   * @throws UserError when there is no C compiler or a level fails to compile (naming it)
   */
  public Map<String, Path> compileSharedLibraries(
      Map<String, String> sourceByLevel, java.util.function.Function<String, Path> out) {
    cc();
    Map<String, Path> paths = new LinkedHashMap<>();
    for (String level : sourceByLevel.keySet()) {
      paths.put(level, out.apply(level));
    }
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    for (var e : paths.entrySet()) {
      runs.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  compileSharedLibrary(sourceByLevel.get(e.getKey()), e.getValue(), e.getKey());
                } catch (UserError u) {
                  throw new UserError("ISA level " + e.getKey() + ": " + u.getMessage(), u);
                }
              },
              COMPILES));
    }
    for (CompletableFuture<Void> r : runs) {
      try {
        r.join();
      } catch (CompletionException e) {
        if (e.getCause() instanceof RuntimeException re) {
          throw re;
        }
        throw e;
      }
    }
    return paths;
  }

  /**
   * The best of {@link #isaLevels()} this machine's CPU runs, as the C compiler sees it ({@code
   * -march=native}'s predefined macros against the x86-64 psABI levels); {@code native} when none
   * of the levels is an x86-64 level the CPU has. Tuning measures C kernels at this level.
   *
   * @throws UserError when there is no C compiler
   */
  public String nativeIsaLevel() {
    Path dir = tempDir("kernelgen-isa");
    String macros;
    try {
      macros =
          run(
              List.of(cc().toString(), "-march=native", "-dM", "-E", "-x", "c", "/dev/null"),
              dir,
              timeoutSeconds);
    } finally {
      delete(dir);
    }
    String best = "native";
    for (String level : isaLevels) {
      List<String> needs = ISA_MACROS.get(level);
      if (needs != null
          && needs.stream().allMatch(m -> macros.contains("#define " + m + " "))
          && (best.equals("native") || ISA_ORDER.indexOf(level) > ISA_ORDER.indexOf(best))) {
        best = level;
      }
    }
    return best;
  }

  private static final List<String> ISA_ORDER = List.of("x86-64-v2", "x86-64-v3", "x86-64-v4");

  /** The compiler's predefined macros that each psABI level implies (its and the lower ones'). */
  private static final Map<String, List<String>> ISA_MACROS =
      Map.of(
          "x86-64-v2",
          List.of("__SSE4_2__", "__POPCNT__", "__SSSE3__"),
          "x86-64-v3",
          List.of(
              "__SSE4_2__",
              "__POPCNT__",
              "__SSSE3__",
              "__AVX2__",
              "__FMA__",
              "__BMI2__",
              "__F16C__",
              "__LZCNT__",
              "__MOVBE__"),
          "x86-64-v4",
          List.of(
              "__SSE4_2__",
              "__POPCNT__",
              "__SSSE3__",
              "__AVX2__",
              "__FMA__",
              "__BMI2__",
              "__F16C__",
              "__LZCNT__",
              "__MOVBE__",
              "__AVX512F__",
              "__AVX512BW__",
              "__AVX512CD__",
              "__AVX512DQ__",
              "__AVX512VL__"));

  /** The version line of a tool ({@code cc --version}'s first line), for build digests. */
  public String version(Path tool) {
    Path dir = tempDir("kernelgen-version");
    try {
      String out = run(List.of(tool.toString(), "--version"), dir, timeoutSeconds);
      return out.strip();
    } finally {
      delete(dir);
    }
  }

  /**
   * Compiles CUDA source to PTX for a virtual architecture ({@code compute_90}).
   *
   * @throws UserError when there is no nvcc or the source does not compile
   */
  public String compilePtx(String cudaSource, String arch) {
    return new String(nvccCompile(cudaSource, "-ptx", arch, "kernels.ptx"), StandardCharsets.UTF_8);
  }

  /**
   * Compiles CUDA source to a cubin for a real architecture ({@code sm_90}).
   *
   * @throws UserError when there is no nvcc or the source does not compile
   */
  public byte[] compileCubin(String cudaSource, String sm) {
    return nvccCompile(cudaSource, "-cubin", sm, "kernels.cubin");
  }

  /**
   * Compiles CUDA source to one fatbin holding SASS for every real architecture of {@code sms}
   * ({@code sm_80}, {@code sm_90}) and the PTX of the newest, which the driver compiles for GPUs
   * newer than all of them.
   *
   * @return the fatbin, and what it holds ({@code sm_80, sm_90, compute_90})
   * @throws UserError when there is no nvcc, an architecture is malformed, or the source does not
   *     compile
   */
  public Fatbin compileFatbin(String cudaSource, List<String> sms) {
    UserError.check(!sms.isEmpty(), "no CUDA architecture to build for (for example sm_90)");
    List<Integer> numbers = new ArrayList<>();
    for (String a : sms) {
      UserError.check(
          a.matches("(sm|compute)_[0-9]+"), "CUDA architecture '%s' is not of the form sm_90", a);
      int n = Integer.parseInt(a.substring(a.indexOf('_') + 1));
      if (!numbers.contains(n)) {
        numbers.add(n);
      }
    }
    numbers.sort(null);
    Path tool = nvcc();
    Path dir = tempDir("kernelgen-nvcc");
    Path src = dir.resolve("kernels.cu");
    Path out = dir.resolve("kernels.fatbin");
    write(src, cudaSource);
    List<String> cmd = new ArrayList<>(List.of(tool.toString(), "-fatbin"));
    List<String> holds = new ArrayList<>();
    for (int n : numbers) {
      cmd.add("-gencode=arch=compute_" + n + ",code=sm_" + n);
      holds.add("sm_" + n);
    }
    int newest = numbers.getLast();
    cmd.add("-gencode=arch=compute_" + newest + ",code=compute_" + newest);
    holds.add("compute_" + newest);
    cmd.addAll(List.of(src.toString(), "-o", out.toString()));
    run(cmd, src, timeoutSeconds);
    try {
      byte[] bytes = Files.readAllBytes(out);
      delete(dir);
      return new Fatbin(bytes, holds);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A CUDA fatbin and what it holds: {@code sm_NN} for SASS, {@code compute_NN} for PTX.
   *
   * @param bytes the fatbin, as {@code cuModuleLoadData} takes it
   * @param architectures SASS architectures, lowest first, then the PTX's
   */
  public record Fatbin(byte[] bytes, List<String> architectures) {
    public Fatbin {
      architectures = List.copyOf(architectures);
    }
  }

  private byte[] nvccCompile(String source, String mode, String arch, String outName) {
    UserError.check(
        arch.matches("(compute|sm)_[0-9]+[a-z]?"),
        "CUDA architecture '%s' is not of the form compute_90 or sm_90",
        arch);
    Path tool = nvcc();
    Path dir = tempDir("kernelgen-nvcc");
    Path src = dir.resolve("kernels.cu");
    Path out = dir.resolve(outName);
    write(src, source);
    run(
        List.of(tool.toString(), mode, "-arch=" + arch, src.toString(), "-o", out.toString()),
        src,
        timeoutSeconds);
    try {
      byte[] bytes = Files.readAllBytes(out);
      delete(dir);
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Runs a compiler and returns its output; on failure the source file stays, and the message
   * quotes the output. The output is drained by another thread, so that the timeout holds however
   * much or little the tool prints; past it, the tool and every process it started are killed.
   */
  static String run(List<String> cmd, Path source, long timeoutSeconds) {
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new UserError("could not start " + cmd.get(0) + ": " + e.getMessage(), e);
    }
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    Thread reader =
        Thread.ofVirtual()
            .start(
                () -> {
                  try (var in = p.getInputStream()) {
                    in.transferTo(output);
                  } catch (IOException e) {
                    // The process was killed: what was read so far is kept.
                  }
                });
    try {
      p.getOutputStream().close();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        killTree(p);
        throw new UserError(
            cmd.get(0)
                + " did not finish within "
                + timeoutSeconds
                + " s compiling "
                + source
                + "; it and its child processes were killed");
      }
      reader.join(TimeUnit.SECONDS.toMillis(10));
    } catch (IOException e) {
      killTree(p);
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      killTree(p);
      Thread.currentThread().interrupt();
      throw new UserError("interrupted while compiling " + source, e);
    }
    String text = output.toString(StandardCharsets.UTF_8); // synchronized with the reader's writes
    if (p.exitValue() != 0) {
      throw new UserError(
          "compiling "
              + source
              + " failed (exit "
              + p.exitValue()
              + "): "
              + String.join(" ", cmd)
              + "\n"
              + text.strip());
    }
    return text;
  }

  /** Kills a process and all its descendants, children first collected so that none escape. */
  private static void killTree(Process p) {
    List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
    p.destroyForcibly();
    for (ProcessHandle h : all) {
      h.destroyForcibly();
    }
    // Children that the killed ones started between the two looks.
    for (ProcessHandle h : all) {
      h.descendants().forEach(ProcessHandle::destroyForcibly);
    }
    try {
      p.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Path tempDir(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void delete(Path dir) {
    try (var files = Files.walk(dir)) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    } catch (IOException e) {
      // A leftover temporary directory is harmless.
    }
  }
}
