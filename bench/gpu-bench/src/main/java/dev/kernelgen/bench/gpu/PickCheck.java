package dev.kernelgen.bench.gpu;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.measure.CHarnessMeasurer;
import dev.kernelgen.measure.DeviceMeasurer;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuningTask;
import java.util.List;
import java.util.Map;

/**
 * The floor table's untuned picks ({@link FloorBench#operators}: the library's, the sample's and
 * the user operators) built for one GPU target and run on that target's device here, each output
 * checked against the C harness's result of the same operator: the real-device check of a target
 * that the floor table does not time (OpenCL on PoCL, on the CPU machine).
 *
 * <p>Usage: {@code PickCheck [OPENCL|CUDA] [--only TEXT]}; exits 1 if a pick fails.
 */
public final class PickCheck {
  private PickCheck() {}

  public static void main(String[] args) throws Exception {
    Target target =
        Target.valueOf(args.length > 0 && !args[0].startsWith("--") ? args[0] : "OPENCL");
    int onlyAt = List.of(args).indexOf("--only");
    String only = onlyAt >= 0 ? args[onlyAt + 1] : null;
    Device device =
        Devices.forTarget(target)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no " + target + " device: " + Devices.probe(target).detail()));
    System.out.println("device: " + device);
    int failed = 0;
    try (CHarnessMeasurer c = CHarnessMeasurer.fromEnvironment();
        DeviceMeasurer m =
            new DeviceMeasurer(device, NativeToolchain.fromEnvironment(), 2).referencesFrom(c)) {
      for (FloorBench.Op op : FloorBench.operators()) {
        if (only != null && !op.name().contains(only)) {
          continue;
        }
        TuningTask task =
            new TuningTask(
                "PickCheck/" + op.name(), target, op.def(), k -> op.pick().apply(target), "k");
        Measurement r = m.measure(task, List.of(Configuration.of(Map.of()))).get(0);
        failed += r.isOk() ? 0 : 1;
        System.out.printf(
            "%-45s %-8s %s%n",
            op.name(), r.status(), r.isOk() ? String.format("%.1f us", r.medianUs()) : r.detail());
      }
    }
    System.out.printf("%d failed%n", failed);
    System.exit(failed == 0 ? 0 : 1);
  }
}
