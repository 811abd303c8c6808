package dev.kernelgen.topi;

import static dev.kernelgen.te.DType.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tune.GpuLimits;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The GPU conv2d template's defaults were sized for 3x3 filters over many channels: a 7x7 stride-2
 * stem over 3 channels at batch 8 got chunks of 8 input channels (5 of them zeros) whose shared
 * tiles took 91 KB, and its kernel could not launch on any device.
 */
class Conv2dGpuDefaultsTest {
  private static OperatorDef conv(int n, int c, int hw, int f, int k, int stride) {
    Tensor x = placeholder("X", FLOAT32, n, c, hw, hw);
    Tensor w = placeholder("W", FLOAT32, f, c, k, k);
    int p = k / 2;
    return OperatorDef.of(
        List.of(x, w), Topi.conv2dNchw(x, w, stride, stride, new Padding(p, p, p, p), 1));
  }

  private static String lowersWithinLimits(Target t, OperatorDef op) {
    Schedule s = DefaultSchedules.forTarget(t, op, Knobs.defaults());
    return GpuLimits.cudaDefault().check(Lower.lower(s, "k", op.args(), t, null));
  }

  @Test
  void aStemOverThreeChannelsTakesChunksOfOneChannelWithinSharedMemory() {
    for (int n : new int[] {1, 8}) {
      OperatorDef stem = conv(n, 3, 224, 64, 7, 2);
      for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
        assertThat(DefaultSchedules.usesTemplate(t, stem)).as(t + " batch " + n).isTrue();
        assertThat(lowersWithinLimits(t, stem)).as(t + " batch " + n).isNull();
        assertThat(DefaultSchedules.forTarget(t, stem, Knobs.defaults()).trace().toString())
            .as(t + " batch " + n)
            .contains("split(rc, factor=1)");
      }
    }
    // Many channels keep chunks of 8 (the defaults timed on 3x3 convolutions of 64 channels).
    assertThat(
            DefaultSchedules.forTarget(Target.CUDA, conv(8, 64, 56, 64, 3, 1), Knobs.defaults())
                .trace()
                .toString())
        .contains("split(rc, factor=8)");
  }

  @Test
  void aFilterWhoseTilesCannotFitTakesTheGeneratedSchedule() {
    // 15x15 at stride 4: 32 filters' chunk of one channel and its input tile take 50 KB.
    OperatorDef wide = conv(8, 4, 227, 64, 15, 4);
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      assertThat(DefaultSchedules.usesTemplate(t, wide)).as(t.name()).isFalse();
      assertThat(lowersWithinLimits(t, wide)).as(t.name()).isNull();
    }
  }

  @Test
  void theStemsDefaultsMatchTheOracleOnARaggedImage() {
    OperatorDef stem = conv(2, 3, 23, 8, 7, 2);
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      GpuCheck.check(DefaultSchedules.forTarget(t, stem, Knobs.defaults()), t, Map.of());
    }
  }
}
