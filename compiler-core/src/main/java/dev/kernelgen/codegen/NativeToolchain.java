package dev.kernelgen.codegen;

import dev.kernelgen.diag.UserError;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
  /** Flags for the C compiler: optimized, OpenMP, position-independent shared library. */
  public static final List<String> DEFAULT_C_FLAGS =
      List.of("-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", "-std=c11");

  private static final long TIMEOUT_SECONDS = 600;

  private final Path cc;
  private final Path nvcc;
  private final List<Path> searchPath;
  private final List<String> cFlags;

  private NativeToolchain(Path cc, Path nvcc, List<Path> searchPath, List<String> cFlags) {
    this.cc = cc;
    this.nvcc = nvcc;
    this.searchPath = List.copyOf(searchPath);
    this.cFlags = List.copyOf(cFlags);
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
    return new NativeToolchain(null, null, dirs, DEFAULT_C_FLAGS);
  }

  /** The same toolchain, looking up tools only in {@code dirs}. */
  public NativeToolchain withSearchPath(List<Path> dirs) {
    return new NativeToolchain(cc, nvcc, dirs, cFlags);
  }

  /** The same toolchain with an explicit C compiler (null: search for one). */
  public NativeToolchain withCc(Path path) {
    return new NativeToolchain(path, nvcc, searchPath, cFlags);
  }

  /** The same toolchain with an explicit nvcc (null: search for it). */
  public NativeToolchain withNvcc(Path path) {
    return new NativeToolchain(cc, path, searchPath, cFlags);
  }

  /** The same toolchain with other C compiler flags than {@link #DEFAULT_C_FLAGS}. */
  public NativeToolchain withCFlags(List<String> flags) {
    return new NativeToolchain(cc, nvcc, searchPath, flags);
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
   * Compiles C source to a shared library at {@code out}.
   *
   * @throws UserError when there is no C compiler or the source does not compile
   */
  public void compileSharedLibrary(String cSource, Path out) {
    Path tool = cc();
    Path dir = tempDir("kernelgen-cc");
    Path src = dir.resolve("kernels.c");
    write(src, cSource);
    List<String> cmd = new ArrayList<>();
    cmd.add(tool.toString());
    cmd.addAll(cFlags);
    cmd.add(src.toString());
    cmd.add("-o");
    cmd.add(out.toAbsolutePath().toString());
    cmd.add("-lm");
    run(cmd, src);
    delete(dir);
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
    run(List.of(tool.toString(), mode, "-arch=" + arch, src.toString(), "-o", out.toString()), src);
    try {
      byte[] bytes = Files.readAllBytes(out);
      delete(dir);
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs a compiler; on failure the source file stays, and the message quotes the output. */
  private static void run(List<String> cmd, Path source) {
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new UserError("could not start " + cmd.get(0) + ": " + e.getMessage(), e);
    }
    String output;
    try {
      p.getOutputStream().close();
      output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new UserError(
            cmd.get(0) + " did not finish within " + TIMEOUT_SECONDS + " s compiling " + source);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new UserError("interrupted while compiling " + source, e);
    }
    if (p.exitValue() != 0) {
      throw new UserError(
          "compiling "
              + source
              + " failed (exit "
              + p.exitValue()
              + "): "
              + String.join(" ", cmd)
              + "\n"
              + output.strip());
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
