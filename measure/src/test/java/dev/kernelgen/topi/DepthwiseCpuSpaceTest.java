package dev.kernelgen.topi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.measure.CHarnessMeasurer;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.CoveringArray;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuningTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The configurations of the tuned CPU depthwise schedule compute what the oracle does. */
class DepthwiseCpuSpaceTest {
  /**
   * A covering array of strength 2 of each space (every value of any two knobs together), on a
   * ragged shape and a strided one: what {@code verify} runs; the exhaustive tier runs every point.
   */
  @Test
  void everyPairOfKnobValuesMatchesTheOracleOnRaggedAndStridedShapes() {
    checkSpaces(s -> CoveringArray.of(s, 2));
  }

  /** Every configuration of each space: the exhaustive tier, run by CI's step of its own. */
  @Test
  @Tag("exhaustive")
  void everyConfigurationMatchesTheOracleOnRaggedAndStridedShapes() {
    checkSpaces(
        s -> {
          List<Configuration> all = new ArrayList<>();
          for (long i = 0; i < s.size(); i++) {
            all.add(s.get(i));
          }
          return all;
        });
  }

  private static void checkSpaces(Function<ConfigSpace, List<Configuration>> pick) {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    CHarnessMeasurer m = new CHarnessMeasurer(NativeToolchain.fromEnvironment(), 2, 0, 1, 60);
    List<DepthwiseCase> cases =
        List.of(
            DepthwiseCase.of(1, 3, 23, 17, 3, 1, 1, "SAME"),
            DepthwiseCase.of(1, 2, 19, 21, 5, 2, 2, "SAME"));
    for (int c = 0; c < cases.size(); c++) {
      DepthwiseCase d = cases.get(c);
      for (boolean fused : new boolean[] {false, true}) {
        TuningTask t = task("Test/depthwise", d, fused);
        ConfigSpace s = t.space();
        // The plain operator also chooses where it sums (local_sum): twice the fused one's space;
        // a window sliding by one column also chooses tap_rows: twice again, three times on a
        // small plane (its rows summed whole at the padded pitch).
        assertThat(s.size()).isEqualTo((fused ? 108 : 216) * (c == 0 ? 3 : 1));
        for (Measurement x : m.measure(t, pick.apply(s))) {
          assertThat(x.status())
              .as("%s %s: %s", d.conv().shape(), x.config(), x.detail())
              .isEqualTo(Measurement.Status.OK);
        }
      }
    }
  }

  /**
   * A stride-2 convolution with four rows blocked and the plane's padded copy on the stack: gcc 12
   * at -O3 -march=native vectorized its strided reads with aligned loads of the (then unaligned)
   * stack array and the kernel crashed; local arrays are now declared 64-byte aligned.
   */
  @Test
  void strideTwoWithBlockedRowsRuns() {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    CHarnessMeasurer m = new CHarnessMeasurer(NativeToolchain.fromEnvironment(), 1, 0, 1, 60);
    TuningTask t =
        task("Test/depthwise_s2", DepthwiseCase.of(1, 2, 96, 96, 3, 1, 2, "SAME"), false);
    Configuration c =
        Configuration.of(
            Map.of("copy_padded", 1, "row_block", 4, "rows", 0, "unroll_taps", 1, "vector", 0));
    Measurement x = m.measure(t, List.of(c)).get(0);
    assertThat(x.status()).as(x.detail()).isEqualTo(Measurement.Status.OK);
  }

  private static TuningTask task(String name, DepthwiseCase d, boolean fused) {
    Tensor out = fused ? d.fused() : d.conv();
    OperatorDef def =
        fused
            ? OperatorDef.of(List.of(d.in(), d.filter(), d.scale(), d.shift()), out)
            : OperatorDef.of(List.of(d.in(), d.filter()), out);
    return new TuningTask(
        name, Target.C, def, k -> DepthwiseCpuSpace.schedule(d.conv(), out, k), "dw");
  }
}
