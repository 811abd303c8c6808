package dev.kernelgen.measure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.runtime.java.JavaDevice;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuneTest;
import dev.kernelgen.tune.TuningTask;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A slow candidate is timed within a budget: fewer launches a sample and a shorter warm-up, so that
 * the search's time goes to candidates worth measuring (a warm GPU search of 45 s ran 157 s, timing
 * 46 ms matmul candidates 410 times each). Fast kernels keep the full protocol.
 */
class SlowCandidateBudgetTest {
  @Test
  void fastKernelsKeepEveryLaunchSlowOnesGetFewer() {
    assertThat(DeviceRunner.launchesPerSample(50, 5)).isEqualTo(50);
    assertThat(DeviceRunner.launchesPerSample(50, 390)).isEqualTo(50);
    assertThat(DeviceRunner.launchesPerSample(50, 2900)).isEqualTo(6);
    assertThat(DeviceRunner.launchesPerSample(50, 46_000)).isEqualTo(1);
    assertThat(DeviceRunner.warmupsAfterFirst(10, 5)).isEqualTo(9);
    assertThat(DeviceRunner.warmupsAfterFirst(10, 46_000)).isEqualTo(4);
    assertThat(DeviceRunner.warmupsAfterFirst(10, 500_000)).isZero();
  }

  @Test
  void aSlowCandidateIsTimedInAFractionOfTheFullProtocol() {
    // The naive loop nest of a 256-cubed matmul on the Java device: tens of ms a launch.
    TuningTask java = Tasks.on(TuneTest.matmulTask(256), Target.JAVA);
    Configuration naive = java.space().defaults();
    try (DeviceMeasurer m =
            new DeviceMeasurer(JavaDevice.instance(), NativeToolchain.fromEnvironment(), 1);
        DeviceRunner runner = new DeviceRunner(JavaDevice.instance())) {
      BuildResult built = m.builder().build(java, List.of(naive)).get(0);
      RunnerInput in = m.runnerInput(java, built);
      long t0 = System.nanoTime();
      RunResult r = runner.run(in);
      double elapsedUs = (System.nanoTime() - t0) / 1e3;
      assertThat(r.status()).as(r.detail()).isEqualTo(Measurement.Status.OK);
      assertThat(r.medianUs())
          .as("a slow candidate")
          .isGreaterThan(2 * DeviceRunner.SAMPLE_BUDGET_US / 50);
      // The full protocol: 10 warm-ups, then 7 samples of 50 launches.
      double full = (10 + 7 * 50) * r.medianUs();
      assertThat(elapsedUs).as("%.0f us of a full %.0f", elapsedUs, full).isLessThan(full / 4);
    }
  }
}
