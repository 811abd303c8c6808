package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.json.Json;
import dev.kernelgen.tune.Measurement;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs each candidate in a child JVM of its own ({@link RunnerMain}, on this JVM's class path): the
 * {@link RunnerInput} goes to it as a JSON file, the {@link RunResult} comes back as one. The child
 * has {@code startupSeconds} to start, open its device and read its input, then the input's timeout
 * from that moment: a kernel that hangs is killed with its JVM at that timeout (a {@code TIMEOUT}),
 * however long the start took; one that crashes the JVM or the driver is the child's exit status (a
 * {@code RUNTIME_ERROR}). The price is a JVM start and a cold JIT per candidate, so short kernels
 * need enough warm-up. For Java, OpenCL and CUDA; the C harness is a child process already.
 */
public final class ChildJvmRunner implements Runner {
  private final Target target;
  private final long startupSeconds;
  private final List<String> jvmOptions;

  /**
   * @param target the kernels' kind; the child opens the first device of it ({@link RunnerMain})
   * @param startupSeconds what the child may take to start, open its device and read its input,
   *     before the candidate's timeout begins
   * @param jvmOptions options of the child JVM ({@code -Xmx1g})
   */
  public ChildJvmRunner(Target target, long startupSeconds, List<String> jvmOptions) {
    if (target == Target.C) {
      throw new IllegalArgumentException("C candidates run in the C harness, a child process");
    }
    this.target = target;
    this.startupSeconds = startupSeconds;
    this.jvmOptions = List.copyOf(jvmOptions);
  }

  public ChildJvmRunner(Target target) {
    this(target, 60, List.of());
  }

  /**
   * The class path of the child: the URLs of this module's class loader and its parents where they
   * are URL class loaders (a Maven plugin's realm, whose classes are not on {@code
   * java.class.path}), else this JVM's {@code java.class.path} (tests, a plain {@code java -cp}).
   */
  static String classPath() {
    java.util.LinkedHashSet<String> entries = new java.util.LinkedHashSet<>();
    for (ClassLoader l = RunnerMain.class.getClassLoader(); l != null; l = l.getParent()) {
      if (l instanceof java.net.URLClassLoader u) {
        for (java.net.URL url : u.getURLs()) {
          if (url.getProtocol().equals("file")) {
            try {
              entries.add(Path.of(url.toURI()).toString());
            } catch (java.net.URISyntaxException e) {
              // Not a path: the child cannot use it either.
            }
          }
        }
      }
    }
    for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      if (!e.isEmpty()) {
        // Absolute: the child runs in a directory of its own.
        entries.add(Path.of(e).toAbsolutePath().toString());
      }
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  @Override
  public Target target() {
    return target;
  }

  @Override
  public String deviceName() {
    return target + " device of a child JVM";
  }

  @Override
  public RunResult run(RunnerInput in) {
    Path dir = ReferenceData.tempDir("kernelgen-child-jvm");
    try {
      Path input = dir.resolve("input.json");
      Path result = dir.resolve("result.json");
      Files.writeString(input, Json.line(in.toJson()));
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.add("--enable-native-access=ALL-UNNAMED");
      cmd.addAll(jvmOptions);
      cmd.add("-cp");
      cmd.add(classPath());
      cmd.add(RunnerMain.class.getName());
      cmd.add(target.name());
      cmd.add(input.toString());
      cmd.add(result.toString());
      Path started = dir.resolve("started");
      cmd.add(started.toString());
      long timeout = Math.max(1, in.timeoutSeconds());
      ChildProcess r =
          ChildProcess.run(cmd, dir, startupSeconds, started, timeout, in.environment());
      if (r.timedOut()) {
        return RunResult.failed(
            Measurement.Status.TIMEOUT,
            Files.exists(started)
                ? "the candidate did not finish within "
                    + timeout
                    + " s of the child JVM opening its device; the JVM was killed"
                : "the child JVM did not open its device within "
                    + startupSeconds
                    + " s and was killed",
            in.timing());
      }
      if (r.exit() != 0 || !Files.exists(result)) {
        return RunResult.failed(
            Measurement.Status.RUNTIME_ERROR, "the child JVM failed: " + r.why(), in.timing());
      }
      return RunResult.fromJson(Json.parse(Files.readAllBytes(result)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      ReferenceData.deleteTree(dir);
    }
  }
}
