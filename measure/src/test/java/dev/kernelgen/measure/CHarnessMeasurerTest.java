package dev.kernelgen.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuneTest;
import dev.kernelgen.tune.TuningTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** C kernels measured by the harness: compiled, checked against the oracle, timed, or failed. */
class CHarnessMeasurerTest {
  @Test
  void cKernelsAreCompiledCheckedAndTimed() {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    TuningTask t = TuneTest.matmulTask(24);
    CHarnessMeasurer m = new CHarnessMeasurer(NativeToolchain.fromEnvironment(), 2, 1, 3, 60);
    ConfigSpace s = t.space();
    List<Configuration> all = new ArrayList<>();
    for (long i = 0; i < s.size(); i++) {
      all.add(s.get(i));
    }
    List<Measurement> ms = m.measure(t, all);
    assertThat(ms).hasSize((int) s.size());
    for (Measurement x : ms) {
      assertThat(x.status()).as(x.toString()).isEqualTo(Measurement.Status.OK);
      assertThat(x.medianUs()).isPositive();
      assertThat(x.minUs()).isLessThanOrEqualTo(x.medianUs());
      assertThat(x.trace()).isNotEmpty();
    }
    assertThat(m.deviceName()).contains("threads");
    assertThat(m.versions()).containsKey("toolchain");
    // The timing protocol goes with every record the measurer's versions are stored in.
    assertThat(m.versions())
        .containsEntry(TimingProtocol.VERSION_KEY, m.timing().describe())
        .hasEntrySatisfying(
            TimingProtocol.VERSION_KEY, p -> assertThat(p).startsWith("warmup 1, median of 3"));
  }

  @Test
  void aCandidateOverItsTimeIsRecordedAndTheBatchGoesOn() {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    TuningTask t = TuneTest.matmulTask(8);
    CHarnessMeasurer m = new CHarnessMeasurer(NativeToolchain.fromEnvironment(), 1, 0, 1, 0);
    ConfigSpace s = t.space();
    List<Measurement> ms = m.measure(t, List.of(s.get(0), s.get(1)));
    assertThat(ms)
        .extracting(Measurement::status)
        .containsExactly(Measurement.Status.TIMEOUT, Measurement.Status.TIMEOUT);
    // A configuration the schedule rejects is invalid, not an exception.
    List<Measurement> bad = m.measure(t, List.of(Configuration.of(Map.of("tile_j", 99))));
    assertThat(bad.get(0).status()).isEqualTo(Measurement.Status.INVALID);
    assertThat(bad.get(0).detail()).contains("tile_j");
  }

  @Test
  void measuresAtTheBestConfiguredLevelTheCpuRuns() {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    assumeThat(tc.findCc()).as("cc on PATH").isPresent();
    var measurer = new CHarnessMeasurer(tc.withIsaLevels(List.of("x86-64-v2")), 1, 1, 1, 60);
    assertThat(measurer.versions())
        .containsEntry("isa", "x86-64-v2")
        .hasEntrySatisfying("flags", f -> assertThat(f).endsWith("-march=x86-64-v2"));
  }
}
