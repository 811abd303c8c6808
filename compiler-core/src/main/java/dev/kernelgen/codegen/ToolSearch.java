package dev.kernelgen.codegen;

import dev.kernelgen.diag.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where a native compiler is: the configured path if there is one, else the first of its names
 * found on the search path (and in the tool's own extra directories); and, when there is none, the
 * user error that says where it was looked for and how to configure it.
 *
 * @param names the executables' names, in the order they are tried ({@code cc, gcc, clang})
 * @param extraDirs directories searched after the search path ({@code /usr/local/cuda/bin})
 * @param what the tool in messages ({@code C compiler})
 * @param setter the {@link NativeToolchain} method that configures it, for messages
 */
record ToolSearch(List<String> names, List<Path> extraDirs, String what, String setter) {
  static final ToolSearch CC =
      new ToolSearch(List.of("cc", "gcc", "clang"), List.of(), "C compiler", "withCc");

  /** A C compiler that targets aarch64 Linux (Debian's and Ubuntu's gcc-aarch64-linux-gnu). */
  static final ToolSearch AARCH64_CC =
      new ToolSearch(
          List.of("aarch64-linux-gnu-gcc", "aarch64-linux-gnu-clang"),
          List.of(),
          "aarch64 C compiler (for the armv8 ISA levels)",
          "withAarch64Cc");

  /** nvcc, also in {@code $CUDA_HOME/bin} and {@code /usr/local/cuda/bin}. */
  static ToolSearch nvcc() {
    return new ToolSearch(List.of("nvcc"), cudaDirs(), "CUDA compiler", "withNvcc");
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

  /** The tool: {@code configured} if executable (null: search), else the first one found. */
  Optional<Path> find(Path configured, List<Path> searchPath) {
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

  /** The error for a tool that {@link #find} did not find. */
  UserError missing(Path configured, List<Path> searchPath) {
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
}
