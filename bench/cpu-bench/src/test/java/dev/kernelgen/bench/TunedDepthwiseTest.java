package dev.kernelgen.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.tune.CHarnessMeasurer;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuningTask;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every configuration of the tuned CPU schedule computes what the oracle does. */
class TunedDepthwiseTest {
  @Test
  void everyConfigurationMatchesTheOracleOnRaggedAndStridedShapes() {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    CHarnessMeasurer m = new CHarnessMeasurer(NativeToolchain.fromEnvironment(), 2, 0, 1, 60);
    for (Workload w :
        List.of(
            Workload.of(1, 3, 23, 17, 1, 3, 1, Padding.SAME),
            Workload.of(1, 2, 19, 21, 2, 5, 2, Padding.SAME))) {
      for (boolean fused : new boolean[] {false, true}) {
        TunedDepthwise.Op op = TunedDepthwise.operator(w, fused);
        TuningTask t =
            new TuningTask(
                "Test/depthwise",
                Target.C,
                op.def(),
                k -> TunedDepthwise.schedule(op.conv(), op.out(), k),
                "dw");
        ConfigSpace s = t.space();
        // The plain operator also chooses where it sums (local_sum): twice the fused one's space.
        assertThat(s.size()).isEqualTo(fused ? 108 : 216);
        // The whole space on the first shape; every third configuration (all knobs still vary)
        // on the second, to keep the test's compilations few.
        int step = w.stride() == 1 ? 1 : 3;
        List<Configuration> all = new ArrayList<>();
        for (long i = 0; i < s.size(); i += step) {
          all.add(s.get(i));
        }
        for (Measurement x : m.measure(t, all)) {
          assertThat(x.status())
              .as("%s %s: %s", w, x.config(), x.detail())
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
    TunedDepthwise.Op op =
        TunedDepthwise.operator(Workload.of(1, 2, 96, 96, 1, 3, 2, Padding.SAME), false);
    TuningTask t =
        new TuningTask(
            "Test/depthwise_s2",
            Target.C,
            op.def(),
            k -> TunedDepthwise.schedule(op.conv(), op.out(), k),
            "dw");
    Configuration c =
        Configuration.of(
            java.util.Map.of(
                "copy_padded", 1, "row_block", 4, "rows", 0, "unroll_taps", 1, "vector", 0));
    Measurement x = m.measure(t, List.of(c)).get(0);
    assertThat(x.status()).as(x.detail()).isEqualTo(Measurement.Status.OK);
  }
}
