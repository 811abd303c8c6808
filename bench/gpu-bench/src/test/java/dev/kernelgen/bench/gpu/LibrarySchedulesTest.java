package dev.kernelgen.bench.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@code bench/gpu.sh sanitize} runs under compute-sanitizer ({@code GpuBench --checks-only
 * --tuned LOG}), checked here without CUDA: every schedule lowers and prints as CUDA, the tuned
 * depthwise configurations come out of the GPU run's tuning log, and the checks pass on OpenCL.
 */
class LibrarySchedulesTest {
  /** The last GPU run's tuning log, found from the module's directory upwards. */
  static Path gpuTuningLog() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      Path log = p.resolve("bench/results/gpu-2026-11-29-b/tuning.jsonl");
      if (Files.isRegularFile(log)) {
        return log;
      }
    }
    throw new AssertionError("no bench/results/gpu-2026-11-29-b/tuning.jsonl above " + Path.of(""));
  }

  @Test
  void everyLibraryScheduleAndTunedDepthwiseConfigurationPrintsAsCuda() {
    Map<String, Schedule> lib = LibrarySchedules.gpu(Target.CUDA);
    // The library's default of each operator, beside the explicit schedules.
    assertThat(lib)
        .containsKeys(
            "matmul_default",
            "conv2d_default",
            "softmax_rows_default",
            "depthwise_default",
            "max_pool_default",
            "five_elementwise_default",
            "matmul_gpu_default",
            "conv2d_gpu_default",
            "softmax_lanes_gpu");
    Map<String, LibrarySchedules.Depthwise> tuned = LibrarySchedules.tunedDepthwise(gpuTuningLog());
    assertThat(tuned.keySet())
        .anyMatch(k -> k.startsWith("plain direct"))
        .anyMatch(k -> k.startsWith("fused direct"))
        .anyMatch(k -> k.startsWith("plain block"))
        .anyMatch(k -> k.startsWith("fused block"));
    int kernels = 0;
    for (var e : lib.entrySet()) {
      kernels += cuda(e.getKey(), e.getValue(), args(e.getValue()));
    }
    for (var e : tuned.entrySet()) {
      kernels += cuda(e.getKey(), e.getValue().schedule(), e.getValue().args());
    }
    System.out.printf(
        "%d library schedules, %d tuned depthwise configurations: %d CUDA kernels%n",
        lib.size(), tuned.size(), kernels);
  }

  private static List<Tensor> args(Schedule s) {
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    return args;
  }

  private static int cuda(String name, Schedule s, List<Tensor> args) {
    PrimFunc f = Lower.lower(s, "k", args, Target.CUDA, null);
    SplitHostDevice.DeviceModule m = SplitHostDevice.split(f);
    assertThat(CudaCodegen.generate(m.kernels(), "k")).as(name).contains("__global__");
    return m.kernels().size();
  }

  @Test
  void theSanitizersChecksPassOnOpenCl() {
    OpenClDevice d = OpenClTests.deviceOrSkip();
    List<Object> checks = GpuBench.libraryChecks(d, gpuTuningLog());
    assertThat(checks).isNotEmpty();
    assertThat(checks)
        .allSatisfy(
            c -> assertThat(((Map<?, ?>) c).get("ok")).as(String.valueOf(c)).isEqualTo(true));
  }
}
