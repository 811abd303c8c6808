package dev.kernelgen.bench.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The schedules of {@link AutoScheduledOpenClTest} generated for CUDA (double-buffered tiles and
 * 128-bit fetches included), compiled by nvcc and run on a CUDA device against the oracle on ragged
 * shapes. Runs where a CUDA device is present (the GPU machine: {@code bench/gpu.sh tests OUT}).
 */
class AutoScheduledCudaTest {
  private static CudaDevice device;

  @BeforeAll
  static void open() {
    Optional<CudaDevice> d = Devices.cuda();
    assumeTrue(
        d.isPresent(),
        "no CUDA device found ("
            + Devices.probe(Target.CUDA).detail()
            + "); runs on a GPU machine");
    device = d.get();
  }

  static Stream<Arguments> schedules() {
    return AutoScheduledOpenClTest.schedules(Target.CUDA);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schedules")
  void matchesTheOracle(String name, Schedule s) {
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    assertThat(OracleCheck.check(device, s, args, "auto_" + name)).isNull();
  }
}
