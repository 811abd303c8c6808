package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.tune.Measurement;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs C harness executables ({@link CHarness}), each in a child process of its own in a temporary
 * directory under the input's timeout: a candidate that crashes (a segmentation fault is exit 139,
 * signal 11) is a {@code RUNTIME_ERROR}, one that hangs is killed and a {@code TIMEOUT}. The
 * harness batches short calls to 500 µs per sample itself; {@code callsPerSample} is not used.
 */
public final class CHarnessRunner implements Runner {
  @Override
  public Target target() {
    return Target.C;
  }

  @Override
  public String deviceName() {
    return CHarnessMeasurer.cpuName();
  }

  @Override
  public RunResult run(RunnerInput in) {
    Path dir = ReferenceData.tempDir("kernelgen-run");
    try {
      ChildProcess r = exec(in, dir, in.timing().warmup(), in.timing().repeats());
      if (r.timedOut()) {
        return RunResult.failed(
            Measurement.Status.TIMEOUT,
            "did not finish within " + in.timeoutSeconds() + " s",
            in.timing());
      }
      if (r.exit() != 0) {
        return RunResult.failed(Measurement.Status.RUNTIME_ERROR, r.why(), in.timing());
      }
      String diff =
          ReferenceData.compare(in.data(), in.build(), outputs(in.build(), dir), in.tolerance());
      if (diff != null) {
        return RunResult.failed(Measurement.Status.WRONG, diff, in.timing());
      }
      for (String line : r.output().split("\n")) {
        if (line.startsWith("KG_TIMES ")) {
          String[] p = line.strip().split(" ");
          return RunResult.ok(Double.parseDouble(p[1]), Double.parseDouble(p[2]), in.timing());
        }
      }
      return RunResult.failed(
          Measurement.Status.RUNTIME_ERROR,
          "no timings: " + ChildProcess.tail(r.output()),
          in.timing());
    } finally {
      ReferenceData.deleteTree(dir);
    }
  }

  /**
   * The outputs of one untimed run of {@code in}'s kernel on its inputs (no expected outputs
   * needed): how the naive loop nest computes a large task's reference. Throws when it fails.
   */
  List<NDArray> outputsOf(RunnerInput in) {
    Path dir = ReferenceData.tempDir("kernelgen-run");
    try {
      ChildProcess r = exec(in, dir, 0, 1);
      if (r.timedOut() || r.exit() != 0) {
        throw new IllegalStateException(
            r.timedOut() ? "over " + in.timeoutSeconds() + " s" : r.why());
      }
      return outputs(in.build(), dir);
    } finally {
      ReferenceData.deleteTree(dir);
    }
  }

  private static ChildProcess exec(RunnerInput in, Path dir, int warmup, int repeats) {
    Path exe = dir.resolve("candidate");
    try {
      Files.write(exe, in.build().binary());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!exe.toFile().setExecutable(true)) {
      throw new UncheckedIOException(new IOException("cannot make " + exe + " executable"));
    }
    List<String> cmd =
        List.of(
            exe.toString(),
            in.data().toString(),
            dir.toString(),
            Integer.toString(warmup),
            Integer.toString(repeats));
    return ChildProcess.run(cmd, dir, in.timeoutSeconds(), in.environment());
  }

  private static List<NDArray> outputs(BuildResult b, Path dir) {
    List<NDArray> out = new ArrayList<>();
    for (int o = b.inputs(); o < b.params().size(); o++) {
      out.add(
          ReferenceData.read(dir.resolve("out" + (o - b.inputs()) + ".bin"), b.params().get(o)));
    }
    return out;
  }
}
