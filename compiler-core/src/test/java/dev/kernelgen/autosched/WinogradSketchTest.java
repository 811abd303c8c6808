package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Topi;
import dev.kernelgen.tune.Configuration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@link AutoScheduler#WINOGRAD} sketch: in the space of operators with a direct 3x3
 * convolution (not on Java, not elsewhere), equal to the definition on every target, and the
 * untuned pick on C by {@link WinogradSketch#pays}.
 */
class WinogradSketchTest {
  private static final Padding SAME = new Padding(1, 1, 1, 1);

  /** A convolution with a ReLU after it, as a user writes a layer. */
  private static List<Tensor> layer(Tensor x, Tensor w) {
    return List.of(Topi.relu(Conv.conv2dNchw(x, w, 1, 1, SAME, 1)));
  }

  private static List<Integer> sketches(Target t, List<Tensor> out) {
    return AutoScheduler.space(t, out).knobs().get(AutoScheduler.SKETCH);
  }

  @Test
  void offeredWhereTheDagHasADirectConvolution() {
    List<Tensor> conv =
        layer(placeholder("X", FLOAT32, 1, 8, 10, 10), placeholder("W", FLOAT32, 8, 8, 3, 3));
    for (Target t : List.of(Target.C, Target.CUDA, Target.OPENCL)) {
      assertThat(sketches(t, conv)).as("%s", t).containsExactly(0, 1, 2);
      assertThat(AutoScheduler.space(t, conv).knobs().keySet())
          .anyMatch(k -> k.startsWith("winograd.WinogradProduct."));
    }
    assertThat(sketches(Target.JAVA, conv)).containsExactly(0, 1);
    List<Tensor> strided =
        List.of(
            Conv.conv2dNchw(
                placeholder("X", FLOAT32, 1, 8, 10, 10),
                placeholder("W", FLOAT32, 8, 8, 3, 3),
                2,
                2,
                SAME,
                1));
    List<Tensor> matmul =
        List.of(
            Linalg.matmul(placeholder("A", FLOAT32, 16, 16), placeholder("B", FLOAT32, 16, 16)));
    for (List<Tensor> other : List.of(strided, matmul)) {
      assertThat(sketches(Target.C, other)).containsExactly(0, 1);
      assertThat(AutoScheduler.space(Target.C, other).knobs().keySet())
          .noneMatch(k -> k.startsWith("winograd."));
    }
  }

  @Test
  void winogradSketchMatchesTheDefinition() {
    // A symbolic batch and ragged tiles (11 x 13) on C and loop IR; fixed shapes on the GPUs.
    Var n = new Var("n", DType.INT32);
    Tensor x = placeholder("X", FLOAT32, n, 6, 11, 13);
    Tensor w = placeholder("W", FLOAT32, 7, 6, 3, 3);
    List<Tensor> out = layer(x, w);
    Knobs winograd = Knobs.configured(Map.of(AutoScheduler.SKETCH, AutoScheduler.WINOGRAD));
    Schedule c = AutoScheduler.schedule(Target.C, out, winograd);
    assertThat(c.outputs().get(0)).isNotSameAs(out.get(0));
    assertThat(c.stages()).anyMatch(s -> s.name().equals("WinogradProduct"));
    Check.check(
        c,
        List.of(x, w, out.get(0)),
        Map.of(n, 2L),
        EnumSet.of(Check.Backend.C, Check.Backend.IR),
        1e-4,
        1e-4);
    Tensor gx = placeholder("X", FLOAT32, 1, 4, 9, 10);
    Tensor gw = placeholder("W", FLOAT32, 3, 4, 3, 3);
    List<Tensor> gout = layer(gx, gw);
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      GpuCheck.check(
          AutoScheduler.schedule(
              t, gout, Knobs.configured(Map.of(AutoScheduler.SKETCH, AutoScheduler.WINOGRAD))),
          gout,
          Map.of());
    }
  }

  @Test
  void untunedPickOnCpusTakesItOnLargePlanesWithManyChannels() {
    List<Tensor> large =
        layer(placeholder("X", FLOAT32, 1, 64, 56, 56), placeholder("W", FLOAT32, 64, 64, 3, 3));
    Configuration pick =
        AutoScheduler.untunedConfig(
            Target.C, large, SketchRules.defaults(), new AnalyticPredictor());
    assertThat(pick.values().get(AutoScheduler.SKETCH)).isEqualTo(AutoScheduler.WINOGRAD);
    // The configuration holds the direct sketch's pick too.
    assertThat(pick.values().keySet()).anyMatch(k -> k.startsWith("Conv2d."));
    // Few tiles, few channels, a symbolic plane, another target: the direct convolution.
    Var h = new Var("h", DType.INT32);
    for (List<Tensor> direct :
        List.of(
            layer(
                placeholder("X", FLOAT32, 1, 128, 28, 28),
                placeholder("W", FLOAT32, 128, 128, 3, 3)),
            layer(
                placeholder("X", FLOAT32, 1, 16, 56, 56), placeholder("W", FLOAT32, 16, 16, 3, 3)),
            layer(
                placeholder("X", FLOAT32, 1, 64, h, h), placeholder("W", FLOAT32, 64, 64, 3, 3)))) {
      assertThat(
              AutoScheduler.untunedConfig(
                      Target.C, direct, SketchRules.defaults(), new AnalyticPredictor())
                  .values()
                  .get(AutoScheduler.SKETCH))
          .isEqualTo(AutoScheduler.RULES);
    }
    assertThat(
            AutoScheduler.untunedConfig(
                    Target.CUDA, large, SketchRules.defaults(), new AnalyticPredictor())
                .values()
                .get(AutoScheduler.SKETCH))
        .isNotEqualTo(AutoScheduler.WINOGRAD);
  }
}
