package dev.kernelgen.bench.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The operator benchmark's conv + batch norm + swish rows on each GPU target present (OpenCL on
 * PoCL here, CUDA on the GPU machine): the sample's launcher on the device equals the float64 loop
 * at every output of the ragged shapes ({@link ConvBnSwishGpu#checks}, what {@code OpsGpuBench}
 * runs before it times).
 */
class ConvBnSwishGpuTest {
  @ParameterizedTest
  @EnumSource(
      value = Target.class,
      names = {"CUDA", "OPENCL"})
  void theLauncherEqualsTheLoopOnRaggedShapes(Target target) {
    Devices.Probe probe = Devices.probe(target);
    assumeTrue(
        probe.available(), "no " + target + " device here (" + probe.detail() + "): skipped");
    Device device = probe.device().orElseThrow();
    assertThat(ConvBnSwishGpu.checks(device)).hasSize(ConvBnSwishGpu.CHECKS.size());
  }
}
