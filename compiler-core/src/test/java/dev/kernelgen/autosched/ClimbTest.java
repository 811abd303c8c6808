package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.pow;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.sum;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Climb}: the wide exchange crosses between the divisors of an extent, where steps of one
 * knob, or of two by a factor of 2, pass through worse values; the untuned pick of a window across
 * channels (LRN) on GPUs takes whole rows.
 */
class ClimbTest {
  /**
   * Cost: a warp's run of columns (up to 32) the more the better, ragged column counts (not
   * dividing 55) 4x, blocks under 160 threads starved; over 256 threads they do not fit.
   */
  private static double cost(Configuration c) {
    int cols = c.values().get("cols");
    int chans = c.values().get("chans");
    double ragged = 55 % cols == 0 ? 1 : 4;
    return ragged * 100.0 / Math.min(32, cols) + (cols * chans < 160 ? 50 : 0) + chans * 0.01;
  }

  @Test
  void theWideExchangeCrossesBetweenDivisors() {
    ConfigSpace space =
        new ConfigSpace(
            Map.of(
                "cols", List.of(1, 2, 4, 5, 8, 11, 16, 32, 55),
                "chans", List.of(1, 2, 3, 4, 6, 16)));
    Configuration start = Configuration.of(Map.of("cols", 11, "chans", 16));
    java.util.function.Predicate<Configuration> fits =
        c -> c.values().get("cols") * c.values().get("chans") <= 256;
    var narrow = Climb.from(space, start, cost(start), ClimbTest::cost, fits, false);
    var wide = Climb.from(space, start, cost(start), ClimbTest::cost, fits, true);
    assertThat(narrow.getKey().values().get("cols")).isEqualTo(11);
    assertThat(wide.getKey().values()).containsEntry("cols", 55);
    assertThat(wide.getValue()).isLessThan(narrow.getValue());
  }

  @Test
  void aWindowAcrossChannelsTakesWholeRowsOnGpus() {
    Tensor x = placeholder("X", FLOAT32, 8, 96, 55, 55);
    IterVar d = reduceAxis(5, "d");
    Tensor sq =
        compute(
            "WindowSquares",
            x.shape(),
            (n, c, i, j) -> {
              Expr cc = c.add(d.var()).sub(2);
              Expr v = select(cc.ge(0).and(cc.lt(96)), x.at(n, cc, i, j), 0.0);
              return sum(v.mul(v), d);
            });
    Tensor y =
        compute(
            "Lrn",
            x.shape(),
            (n, c, i, j) ->
                x.at(n, c, i, j).div(pow(sq.at(n, c, i, j).mul(1e-4 / 5).add(2.0), TE.f32(0.75))));
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      Configuration pick =
          AutoScheduler.untunedConfig(
              t, List.of(y), SketchRules.defaults(), new AnalyticPredictor());
      assertThat(pick.values()).as(pick.key()).containsEntry("WindowSquares.threads3", 55);
      assertThat(pick.values()).containsEntry(AutoScheduler.SKETCH, AutoScheduler.RULES);
    }
    GpuCheck.check(AutoScheduler.untuned(Target.CUDA, List.of(y)), Map.of());
  }
}
