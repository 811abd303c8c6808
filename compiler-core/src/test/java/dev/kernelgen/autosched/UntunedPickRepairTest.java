package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.OpSchedules;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The untuned pick shrinks the best-ranked configurations that do not fit the statement limit until
 * they do, on CPUs, instead of climbing from a degenerate tile that fits.
 */
class UntunedPickRepairTest {
  /** A 3x3x3 convolution over a volume, padded by hand as a user writes it. */
  static Tensor conv3d(int c, int d, int h, int w, int k) {
    Tensor x = TE.placeholder("X", FLOAT32, 1, c, d, h, w);
    Tensor f = TE.placeholder("W", FLOAT32, k, c, 3, 3, 3);
    IterVar ci = TE.reduceAxis(c, "ci");
    IterVar kd = TE.reduceAxis(3, "kd");
    IterVar ky = TE.reduceAxis(3, "ky");
    IterVar kx = TE.reduceAxis(3, "kx");
    return TE.computeN(
        "Conv3d",
        TE.shape(1, k, d, h, w),
        i -> {
          Expr z = i.get(2).add(kd.var()).sub(1);
          Expr y = i.get(3).add(ky.var()).sub(1);
          Expr xx = i.get(4).add(kx.var()).sub(1);
          Expr inside = z.ge(0).and(z.lt(d)).and(y.ge(0)).and(y.lt(h)).and(xx.ge(0)).and(xx.lt(w));
          Expr in = TE.select(inside, x.at(i.get(0), ci.var(), z, y, xx), 0.0);
          return TE.sum(
              in.mul(f.at(i.get(1), ci.var(), kd.var(), ky.var(), kx.var())), ci, kd, ky, kx);
        });
  }

  /**
   * The 3x3x3 convolution over [1,16,16,28,28] x 16 takes the packed layout along its output
   * channels, a register tile of 16 channels; before, a tile of one channel and four planes (58 ms
   * against 1.0 ms in C on a 2-core Zen 4). Its small form matches the oracle in C and Java.
   */
  @Test
  void aConv3dTakesThePackedTileThatFitsOnceShrunk() {
    Map<String, Integer> pick =
        AutoScheduler.untunedConfig(
                Target.C,
                List.of(conv3d(16, 16, 28, 28, 16)),
                SketchRules.defaults(),
                new AnalyticPredictor())
            .values();
    assertThat(pick).containsEntry("Conv3d.layout", 3).containsEntry("Conv3d.tile1", 16);
    Tensor small = conv3d(5, 6, 7, 9, 8);
    for (Target t : List.of(Target.C, Target.JAVA)) {
      Schedule s = AutoScheduler.untuned(t, List.of(small));
      Check.Backend b = t == Target.C ? Check.Backend.C : Check.Backend.JAVA;
      Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(b), 1e-4, 1e-4);
    }
  }
}
