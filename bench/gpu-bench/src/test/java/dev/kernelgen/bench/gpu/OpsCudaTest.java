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
 * The operator library's GPU schedules (the same set as {@link OpsOpenClTest}) and the
 * auto-scheduler's picks and floors (those of {@link AutoScheduledOpenClTest}: double-buffered
 * tiles, strided register tiles and 128-bit fetches on CUDA) generated as CUDA C, compiled by nvcc
 * and run on a CUDA device against the oracle, on ragged shapes. Runs where a CUDA device is
 * present (the GPU machine: {@code bench/gpu.sh tests OUT}).
 */
class OpsCudaTest {
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
    return Stream.concat(
        OpsOpenClTest.schedules(Target.CUDA),
        AutoScheduledOpenClTest.schedules(Target.CUDA)
            .map(a -> Arguments.of("auto_" + a.get()[0], a.get()[1])));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schedules")
  void matchesTheOracle(String name, Schedule s) {
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    assertThat(OracleCheck.check(device, s, args, "op_" + name)).isNull();
  }
}
