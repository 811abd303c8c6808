package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.json.Json;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The child JVM of {@link ChildJvmRunner}: {@code RunnerMain <target> <input.json> <result.json>
 * [started]} reads a {@link RunnerInput}, opens the first device of {@code target}, creates the
 * file {@code started} (from then on the parent counts the candidate's timeout), measures the input
 * with a {@link DeviceRunner} (on this thread: the parent kills the JVM on a timeout) and writes
 * the {@link RunResult}. Exit status 0 when a result was written, 2 on bad arguments, 3 when no
 * device.
 */
public final class RunnerMain {
  private RunnerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3 && args.length != 4) {
      System.err.println("usage: RunnerMain CUDA|OPENCL|JAVA input.json result.json [started]");
      System.exit(2);
    }
    Target target = Target.valueOf(args[0]);
    Device device = Devices.forTarget(target).orElse(null);
    if (device == null) {
      System.err.println("no " + target + " device: " + Devices.describe());
      System.exit(3);
    }
    RunnerInput in = RunnerInput.fromJson(Json.parse(Files.readAllBytes(Path.of(args[1]))));
    RunnerInput here =
        new RunnerInput(
            in.build(),
            in.data(),
            in.timing(),
            in.callsPerSample(),
            in.tolerance(),
            0,
            in.environment());
    if (args.length == 4) {
      Files.writeString(Path.of(args[3]), "");
    }
    RunResult r = new DeviceRunner(device).run(here);
    Files.writeString(Path.of(args[2]), Json.line(r.toJson()));
    System.out.flush();
    // Kernel pools and driver threads must not keep the JVM: the result is written.
    System.exit(0);
  }
}
