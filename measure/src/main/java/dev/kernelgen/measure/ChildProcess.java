package dev.kernelgen.measure;

import dev.kernelgen.diag.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A command run in a child process of its own under a timeout, its output (stdout and stderr) kept
 * in {@code process.log} of its directory: the C compiler, a C harness candidate, a child JVM. A
 * child that crashes or hangs is an exit status or a timeout, never this process's fault.
 */
record ChildProcess(int exit, String output, boolean timedOut) {
  static ChildProcess run(List<String> cmd, Path dir, long timeoutSeconds) {
    return run(cmd, dir, timeoutSeconds, Map.of());
  }

  static ChildProcess run(
      List<String> cmd, Path dir, long timeoutSeconds, Map<String, String> env) {
    return run(cmd, dir, timeoutSeconds, null, 0, env);
  }

  /**
   * As {@link #run(List, Path, long, Map)}, the time limit in two parts: the child has {@code
   * startSeconds} to create the file {@code started} (a child JVM: to start, open its device and
   * read its arguments), then {@code timeoutSeconds} from the moment it appears. A child that
   * misses either is killed ({@code started} tells which); {@code started} null: one limit, {@code
   * startSeconds}.
   */
  static ChildProcess run(
      List<String> cmd,
      Path dir,
      long startSeconds,
      Path started,
      long timeoutSeconds,
      Map<String, String> env) {
    try {
      Path log = dir.resolve("process.log");
      ProcessBuilder pb =
          new ProcessBuilder(cmd)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      pb.environment().putAll(env);
      Process p = start(pb);
      p.getOutputStream().close();
      boolean done = waitFor(p, startSeconds, started, timeoutSeconds);
      if (!done) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor();
        return new ChildProcess(-1, Files.readString(log), true);
      }
      return new ChildProcess(p.exitValue(), Files.readString(log), false);
    } catch (IOException e) {
      return new ChildProcess(-1, "could not start " + cmd.get(0) + ": " + e.getMessage(), false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UserError("interrupted while measuring", e);
    }
  }

  /**
   * Whether {@code p} ended within the limits of {@link #run(List, Path, long, Path, long, Map)}.
   */
  private static boolean waitFor(Process p, long startSeconds, Path started, long timeoutSeconds)
      throws InterruptedException {
    if (started == null) {
      // A limit of 0 s leaves no time at all: deciding by whether the child happened to end
      // before this call would make the outcome a race.
      return startSeconds > 0 && p.waitFor(startSeconds, TimeUnit.SECONDS);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(startSeconds);
    boolean seen = false;
    while (true) {
      if (p.waitFor(20, TimeUnit.MILLISECONDS)) {
        return true;
      }
      if (!seen && Files.exists(started)) {
        seen = true;
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
      }
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
    }
  }

  /**
   * Why the child failed, for a measurement's detail: its exit status or signal and last output.
   */
  String why() {
    String signal = exit > 128 && exit < 160 ? " (signal " + (exit - 128) + ")" : "";
    return "exit " + exit + signal + ": " + tail(output);
  }

  /**
   * Starts {@code pb}, again after a short wait while the executable is "text file busy": a file
   * just written by this JVM (a candidate's executable) stays open for writing in a process that
   * another thread is forking at that moment, until that process execs.
   */
  private static Process start(ProcessBuilder pb) throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return pb.start();
      } catch (IOException e) {
        if (attempt >= 20 || !String.valueOf(e.getMessage()).contains("Text file busy")) {
          throw e;
        }
        Thread.sleep(10L * attempt);
      }
    }
  }

  /** The first line of {@code cmd}'s output ({@code cc --version}). */
  static String firstLine(List<String> cmd) {
    Path dir = ReferenceData.tempDir("kernelgen-cc-version");
    ChildProcess r = run(cmd, dir, 30);
    ReferenceData.deleteTree(dir);
    return r.output.lines().findFirst().orElse("unknown").strip();
  }

  static String tail(String s) {
    String t = s.strip();
    return t.length() > 600 ? "..." + t.substring(t.length() - 600) : t;
  }
}
