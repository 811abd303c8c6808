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

  @Test
  void conv2dCpu() {
    Tensor in = placeholder("Input", FLOAT32, 2, 5, 11, 9);
    Tensor f = placeholder("Filter", FLOAT32, 6, 5, 3, 3);
    Tensor conv = Conv.conv2dNchw(in, f, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 1), 1);
    Check.check(OpSchedules.conv2dCpu(conv, Knobs.defaults()), Map.of());
    Tensor strided = Conv.conv2dNchw(in, f, 2, 2, Padding.valid(), 1);
    Check.check(
        OpSchedules.conv2dCpu(strided, Knobs.configured(Map.of("tile_f", 16, "tile_w", 4))),
        Map.of());
    // More channels than a tile (a ragged last group of 4) and rows of 6-pixel tiles (9 = 6 + 3).
    Tensor wide = placeholder("Wide", FLOAT32, 20, 5, 3, 3);
    Check.check(
        OpSchedules.conv2dCpu(
            Conv.conv2dNchw(in, wide, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 1), 1),
            Knobs.configured(Map.of("tile_f", 16, "tile_w", 6, "tile_h", 2))),
        Map.of());
    Tensor bias = placeholder("ConvBias", FLOAT32, 6, 1, 1);
    Tensor fused = Elementwise.relu(Elementwise.add(conv, bias));
    Check.check(OpSchedules.conv2dCpu(fused, Knobs.defaults()), Map.of());
    Check.check(OpSchedules.defaultSchedule(Target.C, fused, Knobs.defaults()), Map.of());
  }

  @Test
  void defaultSchedulesPerTarget() {
    Tensor a = placeholder("A", FLOAT32, 19, 23);
    Tensor b = placeholder("B", FLOAT32, 23, 21);
    Tensor x = placeholder("X", FLOAT32, 7, 33);
    for (Tensor out : new Tensor[] {Linalg.matmul(a, b), Reduction.softmax(x, 1)}) {
      Check.check(OpSchedules.defaultSchedule(Target.C, out, Knobs.defaults()), Map.of());
      Check.check(OpSchedules.defaultSchedule(Target.JAVA, out, Knobs.defaults()), Map.of());
      GpuCheck.check(OpSchedules.defaultSchedule(Target.CUDA, out, Knobs.defaults()), Map.of());
    }
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
