package dev.kernelgen.codegen;

import dev.kernelgen.diag.UserError;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

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
 *
 * <p>This class is the configuration and the public face; the work is done by package-private
 * classes, one concept each: {@link ToolSearch} (where a tool is), {@link CompilerProcess} (a
 * compiler run under a timeout, the one place that starts a process), {@link CLibraryBuild} (a C
 * shared library per ISA level), {@link IsaLevels} (the levels this CPU runs) and {@link CudaBuild}
 * (PTX, cubins and fatbins).
 */
public final class NativeToolchain {
  /**
   * Flags for the C compiler: optimized, OpenMP, position-independent shared library, and
   * multiply-adds contracted into FMA instructions ({@code -ffp-contract=fast}: ISO C mode, {@code
   * -std=c11}, turns contraction off in gcc, which halved the multiply-add throughput of every
   * kernel: a 3x3 convolution at x86-64-v4 ran 1.96 ms without, 1.31 ms with, on a 2-core Xeon),
   * and math functions that need not set {@code errno} ({@code -fno-math-errno}: otherwise {@code
   * sqrtf} stays a scalar call, and the loop around it, {@code expf} included, is not vectorized: a
   * batch norm + swish epilogue ran 1.6x slower), and loops left as loops rather than turned into
   * {@code memcpy} / {@code memset} ({@code -fno-tree-loop-distribute-patterns}: at {@code
   * -march=x86-64-v3} with gcc's generic tuning those become inline {@code rep movsq} / {@code rep
   * stosq}, slow to start on short rows; the vectorized loops are not: the seed's 3x3 depthwise
   * convolution over [1,256,96,96] ran 1.1 ms with them, 0.7-0.8 ms without, on a 2-core AVX2 Zen
   * 3), and floating-point compares that may be evaluated where they are not needed ({@code
   * -fno-trapping-math}: the kernels never read the floating-point exception flags, and without it
   * gcc does not if-convert a nested clamp such as {@code kg_exp_f32}'s below AVX-512, so every
   * loop that takes an exp stayed scalar at x86-64-v2 and v3: softmax over [4096, 4096] at v3 on 2
   * Zen 4 cores 22.5 ms with, 5.7 ms without, and 4.8 -> 4.1 ms at v4). No {@code -march}: the ISA
   * level is added per library ({@link #compileSharedLibrary(String, Path, String)}).
   */
  public static final List<String> DEFAULT_C_FLAGS =
      List.of(
          "-O3",
          "-fopenmp",
          "-shared",
          "-fPIC",
          "-std=c11",
          "-ffp-contract=fast",
          "-fno-math-errno",
          "-fno-trapping-math",
          "-fno-tree-loop-distribute-patterns");

  /**
   * The ISA levels a C module is compiled for by default: the x86-64 psABI levels v2 (SSE4.2), v3
   * (AVX2, FMA) and v4 (AVX-512). {@code native} (the build machine's own CPU) only when asked for.
   */
  public static final List<String> DEFAULT_ISA_LEVELS =
      List.of("x86-64-v2", "x86-64-v3", "x86-64-v4");

  private static final long DEFAULT_TIMEOUT_SECONDS = 600;

  private final Path cc;
  private final Path nvcc;
  private final List<Path> searchPath;
  private final List<String> cFlags;
  private final List<String> isaLevels;
  private final long timeoutSeconds;
  private final Path aarch64Cc;

  private NativeToolchain(
      Path cc,
      Path nvcc,
      List<Path> searchPath,
      List<String> cFlags,
      List<String> isaLevels,
      long timeoutSeconds,
      Path aarch64Cc) {
    this.cc = cc;
    this.nvcc = nvcc;
    this.aarch64Cc = aarch64Cc;
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
        null, null, dirs, DEFAULT_C_FLAGS, DEFAULT_ISA_LEVELS, DEFAULT_TIMEOUT_SECONDS, null);
  }

  /** The same toolchain, looking up tools only in {@code dirs}. */
  public NativeToolchain withSearchPath(List<Path> dirs) {
    return new NativeToolchain(cc, nvcc, dirs, cFlags, isaLevels, timeoutSeconds, aarch64Cc);
  }

  /** The same toolchain with an explicit C compiler (null: search for one). */
  public NativeToolchain withCc(Path path) {
    return new NativeToolchain(
        path, nvcc, searchPath, cFlags, isaLevels, timeoutSeconds, aarch64Cc);
  }

  /** The same toolchain with an explicit nvcc (null: search for it). */
  public NativeToolchain withNvcc(Path path) {
    return new NativeToolchain(cc, path, searchPath, cFlags, isaLevels, timeoutSeconds, aarch64Cc);
  }

  /**
   * The same toolchain with {@code path} as the C compiler of the aarch64 levels ({@link
   * #isAarch64Level}); unset, {@code aarch64-linux-gnu-gcc} is searched for, and on an aarch64
   * build machine the C compiler itself.
   */
  public NativeToolchain withAarch64Cc(Path path) {
    return new NativeToolchain(cc, nvcc, searchPath, cFlags, isaLevels, timeoutSeconds, path);
  }

  /**
   * Whether {@code level} is an Arm A-profile level ({@code armv8-a}, {@code armv8.2-a}, ...),
   * compiled by the aarch64 C compiler, rather than an x86-64 one.
   */
  public static boolean isAarch64Level(String level) {
    return level.startsWith("armv8") || level.startsWith("armv9");
  }

  /** The aarch64 C compiler, if configured and present or found. */
  public Optional<Path> findAarch64Cc() {
    Optional<Path> cross = ToolSearch.AARCH64_CC.find(aarch64Cc, searchPath);
    if (cross.isEmpty() && aarch64Cc == null && isAarch64Host()) {
      return findCc();
    }
    return cross;
  }

  /** The aarch64 C compiler, else a user error that says where it was looked for. */
  public Path aarch64Cc() {
    return findAarch64Cc().orElseThrow(() -> ToolSearch.AARCH64_CC.missing(aarch64Cc, searchPath));
  }

  /** The compiler of a level's library: the aarch64 one for Arm levels, else {@link #cc()}. */
  public Path ccFor(String level) {
    return isAarch64Level(level) ? aarch64Cc() : cc();
  }

  private static boolean isAarch64Host() {
    String arch = System.getProperty("os.arch", "");
    return arch.equals("aarch64") || arch.equals("arm64");
  }

  /** The same toolchain with other C compiler flags than {@link #DEFAULT_C_FLAGS}. */
  public NativeToolchain withCFlags(List<String> flags) {
    return new NativeToolchain(cc, nvcc, searchPath, flags, isaLevels, timeoutSeconds, aarch64Cc);
  }

  /**
   * The same toolchain compiling each C module for {@code levels} ({@code x86-64-v2}, {@code
   * x86-64-v3}, {@code x86-64-v4}, {@code native}, {@code armv8-a} for aarch64 machines: any {@code
   * -march} value of the compiler).
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
    return new NativeToolchain(cc, nvcc, searchPath, cFlags, levels, timeoutSeconds, aarch64Cc);
  }

  /** The same toolchain with another limit on one compiler run (600 s by default). */
  public NativeToolchain withTimeout(long seconds) {
    UserError.check(seconds > 0, "compiler timeout must be positive, not %s s", seconds);
    return new NativeToolchain(cc, nvcc, searchPath, cFlags, isaLevels, seconds, aarch64Cc);
  }

  /** The ISA levels each C module is compiled for. */
  public List<String> isaLevels() {
    return isaLevels;
  }

  /** The C compiler flags, without the ISA level. */
  public List<String> cFlags() {
    return cFlags;
  }

  /** The limit on one compiler run, in seconds. */
  long timeoutSeconds() {
    return timeoutSeconds;
  }

  /** The C compiler, if configured and present or found. */
  public Optional<Path> findCc() {
    return ToolSearch.CC.find(cc, searchPath);
  }

  /** nvcc, if configured and present or found. */
  public Optional<Path> findNvcc() {
    return ToolSearch.nvcc().find(nvcc, searchPath);
  }

  /** The C compiler, else a user error that says where it was looked for. */
  public Path cc() {
    return findCc().orElseThrow(() -> ToolSearch.CC.missing(cc, searchPath));
  }

  /** nvcc, else a user error that says where it was looked for. */
  public Path nvcc() {
    return findNvcc().orElseThrow(() -> ToolSearch.nvcc().missing(nvcc, searchPath));
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
    CLibraryBuild.build(this, cSource, out, isaLevel);
  }

  /**
   * Compiles C source once per ISA level of {@link #isaLevels()}, in parallel, to {@code
   * out.apply(level)}.
   *
   * @return the libraries by level, in the order of {@link #isaLevels()}
   * @throws UserError when there is no C compiler or a level fails to compile (naming it)
   */
  public Map<String, Path> compileSharedLibraries(String cSource, Function<String, Path> out) {
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
      Map<String, String> sourceByLevel, Function<String, Path> out) {
    return CLibraryBuild.buildAll(this, sourceByLevel, out);
  }

  /**
   * The best of {@link #isaLevels()} this machine's CPU runs, as the C compiler sees it ({@code
   * -march=native}'s predefined macros against the x86-64 psABI levels); {@code native} when none
   * of the levels is an x86-64 level the CPU has. Tuning measures C kernels at this level.
   *
   * @throws UserError when there is no C compiler
   */
  public String nativeIsaLevel() {
    return IsaLevels.nativeLevel(this);
  }

  /** The version line of a tool ({@code cc --version}'s first line), for build digests. */
  public String version(Path tool) {
    Path dir = CompilerProcess.tempDir("kernelgen-version");
    try {
      String out = CompilerProcess.run(List.of(tool.toString(), "--version"), dir, timeoutSeconds);
      return out.strip();
    } finally {
      CompilerProcess.delete(dir);
    }
  }

  /**
   * Compiles CUDA source to PTX for a virtual architecture ({@code compute_90}).
   *
   * @throws UserError when there is no nvcc or the source does not compile
   */
  public String compilePtx(String cudaSource, String arch) {
    return new String(
        CudaBuild.single(this, cudaSource, "-ptx", arch, "kernels.ptx"), StandardCharsets.UTF_8);
  }

  /**
   * Compiles CUDA source to a cubin for a real architecture ({@code sm_90}).
   *
   * @throws UserError when there is no nvcc or the source does not compile
   */
  public byte[] compileCubin(String cudaSource, String sm) {
    return CudaBuild.single(this, cudaSource, "-cubin", sm, "kernels.cubin");
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
    return CudaBuild.fatbin(this, cudaSource, sms);
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
}
