package dev.kernelgen.bench.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The operator library's GPU schedules ({@link LibrarySchedules#gpu}: each operator's default and
 * the matmul / conv2d / softmax schedules) generated as OpenCL C and run by the OpenCL driver (PoCL
 * in CI), against the oracle, on ragged shapes.
 */
class OpsOpenClTest {
  private static OpenClDevice device;

  @BeforeAll
  static void open() {
    device = OpenClTests.deviceOrSkip();
  }

  // The device is the process-wide one that Devices probed and caches: closing it here would leave
  // the next OpenCL test class with a released context (a crash inside the driver), so it stays
  // open until the JVM exits.

  static Stream<Arguments> schedules() {
    return schedules(Target.OPENCL);
  }

  /** Every library operator's GPU schedule for {@code target}, on small ragged shapes. */
  static Stream<Arguments> schedules(Target target) {
    return LibrarySchedules.gpu(target).entrySet().stream()
        .map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schedules")
  void matchesTheOracle(String name, Schedule s) {
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    assertThat(OracleCheck.check(device, s, args, "op_" + name)).isNull();
  }
}
