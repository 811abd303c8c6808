package dev.kernelgen.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.json.Json;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuneTest;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Build results, runner inputs and run results survive JSON, as a remote runner receives them. */
class RunnerRecordsJsonTest {
  @Test
  void aBuiltCandidateAndItsRunnerInputRoundTrip() {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    TuningTask t = TuneTest.matmulTask(8);
    try (CHarnessMeasurer m =
        new CHarnessMeasurer(NativeToolchain.fromEnvironment(), 1, 0, 1, 60)) {
      BuildResult b = m.builder().build(t, t.space().get(1));
      assertThat(b.ok()).as(b.error()).isTrue();
      assertThat(b.binary()).isNotEmpty();
      assertThat(b.source()).contains("KG_TIMES");
      assertThat(b.kernels()).extracting(KernelLaunch::name).containsExactly("matmul");
      assertThat(b.params())
          .extracting(TensorSpec::shape)
          .containsExactly(List.of(8L, 8L), List.of(8L, 8L), List.of(8L, 8L));
      BuildResult back = BuildResult.fromJson(Json.parse(Json.line(b.toJson())));
      assertThat(back).isEqualTo(b);
      assertThat(back.binary()).isEqualTo(b.binary());
      assertThat(back.config()).isEqualTo(b.config());
      assertThat(back.trace()).isEqualTo(b.trace());

      RunnerInput in =
          new RunnerInput(
              b, m.referenceData(t), m.timing(), 0, 1e-3, 30, Map.of("OMP_NUM_THREADS", "1"));
      RunnerInput inBack = RunnerInput.fromJson(Json.parse(Json.pretty(in.toJson())));
      assertThat(inBack).isEqualTo(in);
      // The input read back measures as the original does.
      assertThat(new CHarnessRunner().run(inBack).status()).isEqualTo(Measurement.Status.OK);
    }
  }

  @Test
  void aFailedBuildAndRunResultsRoundTrip() {
    BuildResult failed =
        BuildResult.failed(
            dev.kernelgen.tune.Configuration.of(Map.of("tile_j", 99)),
            List.of("split(j, 99)"),
            Target.CUDA,
            "scale",
            Measurement.Status.INVALID,
            "tile_j 99 does not divide 8");
    assertThat(BuildResult.fromJson(Json.parse(Json.line(failed.toJson())))).isEqualTo(failed);
    assertThat(failed.measurement().status()).isEqualTo(Measurement.Status.INVALID);

    TimingProtocol p = new TimingProtocol(3, 9, "CUDA events", false);
    RunResult ok = RunResult.ok(12.5, 11.25, p);
    RunResult hang = RunResult.failed(Measurement.Status.TIMEOUT, "over 2 s", p);
    assertThat(RunResult.fromJson(Json.parse(Json.line(ok.toJson())))).isEqualTo(ok);
    RunResult hangBack = RunResult.fromJson(Json.parse(Json.line(hang.toJson())));
    assertThat(hangBack.status()).isEqualTo(Measurement.Status.TIMEOUT);
    assertThat(hangBack.medianUs()).isNaN();
    assertThat(hangBack.detail()).isEqualTo("over 2 s");
    assertThat(hangBack.timing()).isEqualTo(p);
    assertThat(
            new RunnerInput(failed, Path.of("/data"), p, 50, 1e-3, 10, Map.of())
                .toJson()
                .get("data"))
        .isEqualTo("/data");
  }
}
