package dev.kernelgen.codegen;

import dev.kernelgen.diag.UserError;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One run of a native compiler: the process under a timeout (past it, the compiler and every
 * process it started are killed), and the scratch directory its source and output live in. The one
 * place of the product code that starts a process for a build ({@code NoOtherMeasurementPathTest}
 * in the measure module checks it).
 */
final class CompilerProcess {
  private CompilerProcess() {}

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

  /** A new scratch directory for one compiler run. */
  static Path tempDir(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void write(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The bytes a successful run wrote to {@code out}; then its scratch directory is deleted. */
  static byte[] readAndDelete(Path out, Path dir) {
    try {
      byte[] bytes = Files.readAllBytes(out);
      delete(dir);
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void delete(Path dir) {
    try (var files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    } catch (IOException e) {
      // A leftover temporary directory is harmless.
    }
  }
}
