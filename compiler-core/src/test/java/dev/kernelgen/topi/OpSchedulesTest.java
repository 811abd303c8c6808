package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The default schedules of the compute-heavy operators against the oracle, on ragged shapes. */
class OpSchedulesTest {
  @Test
  void matmulCpuDefaultAndSmallTiles() {
    Tensor a = placeholder("A", FLOAT32, 37, 29);
    Tensor b = placeholder("B", FLOAT32, 29, 45);
    Check.check(OpSchedules.matmulCpu(Linalg.matmul(a, b), Knobs.defaults()), Map.of());
    Knobs small = Knobs.configured(Map.of("tile_i", 8, "tile_j", 64, "tile_k", 8));
    Check.check(OpSchedules.matmulCpu(Linalg.matmul(a, b), small), Map.of());
    Tensor w = placeholder("W", FLOAT32, 45, 29);
    Check.check(OpSchedules.matmulCpu(Linalg.dense(a, w), small), Map.of());
    Tensor bias = placeholder("Bias", FLOAT32, 45);
    Check.check(
        OpSchedules.matmulCpu(Elementwise.relu(Elementwise.add(Linalg.matmul(a, b), bias)), small),
        Map.of());
  }

  static Stream<Arguments> gpuSamples() {
    return OpSchedules.gpuSamples().entrySet().stream()
        .map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gpuSamples")
  void gpuSchedulesOnTheIrInterpreter(String name, Schedule s) {
    GpuCheck.check(s, Map.of());
  }

  @Test
  void fusedGpuSchedulesOnTheIrInterpreter() {
    for (Ops op : Ops.all()) {
      try {
        GpuCheck.check(Fusion.schedule(Target.CUDA, op.outputs(), 32), op.dims());
      } catch (AssertionError e) {
        throw new AssertionError(op.name() + ": " + e.getMessage(), e);
      }
    }
  }
}
