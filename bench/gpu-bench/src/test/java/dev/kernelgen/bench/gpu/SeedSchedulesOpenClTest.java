package dev.kernelgen.bench.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.bench.Padding;
import dev.kernelgen.bench.Workload;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.topi.DepthwiseSchedules.DirectConfig;
import dev.kernelgen.topi.DepthwiseSchedules.GpuConfig;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every seed schedule, generated as OpenCL C, run by the OpenCL driver (PoCL in CI). */
class SeedSchedulesOpenClTest {
  private static OpenClDevice device;

  @BeforeAll
  static void open() {
    device = OpenClTests.deviceOrSkip();
  }

  // The device is the process-wide one that Devices probed and caches: closing it here would leave
  // the next OpenCL test class with a released context (a crash inside the driver), so it stays
  // open until the JVM exits.

  static Stream<Arguments> workloads() {
    return Stream.of(
        Arguments.of(Workload.of(1, 3, 23, 17, 1, 3, 1, Padding.SAME)),
        Arguments.of(Workload.of(2, 2, 19, 21, 2, 5, 2, Padding.SAME)),
        Arguments.of(Workload.of(1, 2, 21, 21, 1, 3, 1, Padding.VALID)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("workloads")
  void everyStepMatchesTheOracle(Workload w) {
    SeedSchedules s = SeedSchedules.of(w);
    assertThat(OracleCheck.check(device, s.step1(), s.plainArgs(), "step1")).isNull();
    GpuConfig small = new GpuConfig(8, 8, 4, 4, 1, 1);
    GpuConfig ragged = new GpuConfig(16, 8, 4, 2, 2, 2);
    for (GpuConfig k : new GpuConfig[] {GpuConfig.seed(), small, ragged}) {
      assertThat(OracleCheck.check(device, s.plain(k), s.plainArgs(), "plain"))
          .as("plain %s", k)
          .isNull();
      assertThat(OracleCheck.check(device, s.fused(k), s.fusedArgs(), "fused"))
          .as("fused %s", k)
          .isNull();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("workloads")
  void directScheduleMatchesTheOracle(Workload w) {
    SeedSchedules s = SeedSchedules.of(w);
    for (DirectConfig k :
        new DirectConfig[] {new DirectConfig(4, 4, 32), new DirectConfig(3, 2, 8, false)}) {
      assertThat(OracleCheck.check(device, s.plainDirect(k), s.plainArgs(), "plain_direct"))
          .as("plain %s", k)
          .isNull();
      assertThat(OracleCheck.check(device, s.fusedDirect(k), s.fusedArgs(), "fused_direct"))
          .as("fused %s", k)
          .isNull();
    }
  }
}
