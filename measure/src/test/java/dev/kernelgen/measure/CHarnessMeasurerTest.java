package dev.kernelgen.measure;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuningTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** C kernels measured by the harness: compiled, checked against the oracle, timed, or failed. */
class CHarnessMeasurerTest {
  static TuningTask matmulTask(int n) {
    Tensor a = placeholder("A", FLOAT32, n, n);
    Tensor b = placeholder("B", FLOAT32, n, n);
    IterVar k = reduceAxis(n, "k");
    Tensor c =
        compute(
            "C",
            shape(n, n),
            (i, j) -> sum(Binary.of(BinOp.MUL, a.at(i, k.var()), b.at(k.var(), j)), k));
    OperatorDef def = OperatorDef.of(List.of(a, b), c);
    return new TuningTask(
        "Test/matmul",
        Target.C,
        def,
        knobs -> {
          Schedule s = Schedule.create(def.outputs());
          Stage st = s.stage(c);
          long[] tj = knobs.split("tile_j", n, 2);
          int order = knobs.knob("k_outside", 0, 1);
          Stage.Split sj = st.split(st.axis(1), tj[1]);
          if (order == 1) {
            st.reorder(st.axis(0), st.reduceAxis(0), sj.outer(), sj.inner());
          }
          st.parallel(st.axis(0));
          return s;
        },
        "matmul");
  }

  @Test
  void cKernelsAreCompiledCheckedAndTimed() {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    TuningTask t = matmulTask(24);
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
    TuningTask t = matmulTask(8);
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
