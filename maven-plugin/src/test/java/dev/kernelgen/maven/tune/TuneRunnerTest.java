package dev.kernelgen.maven.tune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.maven.generate.GenerateSettings;
import dev.kernelgen.maven.generate.Generator;
import dev.kernelgen.tune.TuningLog;
import dev.kernelgen.tune.TuningRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TuneRunnerTest {
  @TempDir Path tmp;
  final List<String> log = new ArrayList<>();

  static final String SPEC =
      """
      package demo;

      import static dev.kernelgen.te.TE.*;

      import dev.kernelgen.annotations.KernelLibrary;
      import dev.kernelgen.annotations.Operator;
      import dev.kernelgen.annotations.ScheduleFor;
      import dev.kernelgen.annotations.Target;
      import dev.kernelgen.schedule.Schedule;
      import dev.kernelgen.spec.Knobs;
      import dev.kernelgen.spec.OperatorDef;
      import dev.kernelgen.te.Tensor;
      import dev.kernelgen.te.Var;
      import java.util.List;

      @KernelLibrary(name = "TinyKernels", targets = {Target.C, Target.JAVA})
      public final class TinySpec {
        @Operator(specialize = {"n=4096"})
        public static OperatorDef scale() {
          Var n = var("n");
          Tensor x = placeholder("x", FLOAT32, n);
          return OperatorDef.of(List.of(x), compute("y", shape(n), i -> x.at(i).mul(3f)));
        }

        @ScheduleFor(operator = "scale", targets = {Target.C})
        public static void cpu(Schedule s, OperatorDef op, Knobs knobs) {
          var st = s.stage(op.output());
          int v = knobs.knob("vector", 4, 8, 16);
          var sp = st.split(st.axis(0), v);
          st.vectorize(sp.inner());
        }
      }
      """;

  @Test
  void tunesTheFixedShapeVariantThenGenerateUsesTheBestRecord() throws Exception {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    Path spec = tmp.resolve("src/main/kernels/java/demo/TinySpec.java");
    Files.createDirectories(spec.getParent());
    Files.writeString(spec, SPEC);
    Path tuning = tmp.resolve("src/main/kernels/tuning");
    TuneSettings s =
        new TuneSettings(
            tmp.resolve("src/main/kernels/java"),
            List.of(),
            tuning,
            Set.of(),
            List.of(),
            null,
            null,
            8,
            0,
            Duration.ofMinutes(2),
            3,
            log::add);
    List<TuneRunner.Tuned> r = TuneRunner.run(s);
    assertThat(r).hasSize(1);
    assertThat(r.get(0).result().exhaustive()).isTrue();
    assertThat(r.get(0).result().measured()).hasSize(3);
    String text = String.join("\n", log);
    assertThat(text)
        .contains("skipping TinyKernels/scale: its shape has symbolic dims")
        .contains("tuning TinyKernels/scale (scale_n4096) for C")
        .contains("3 configuration(s) of [vector]")
        .contains("[####################] TinyKernels/scale: 3/3 trials, best ");
    List<TuningRecord> recs = TuningLog.read(tuning.resolve("TinyKernels.jsonl"), log::add);
    assertThat(recs).hasSize(3).allMatch(TuningRecord::isOk);
    assertThat(recs)
        .as("C records carry the ISA level they were measured at")
        .allMatch(
            rec ->
                List.of("x86-64-v2", "x86-64-v3", "x86-64-v4", "native")
                    .contains(rec.versions().get("isa")));
    assertThat(recs.get(0).shape()).containsExactly(List.of(4096L), List.of(4096L));

    // Resumed: nothing measured again.
    log.clear();
    List<TuneRunner.Tuned> again = TuneRunner.run(s);
    assertThat(again.get(0).result().measured()).isEmpty();
    assertThat(again.get(0).result().resumed()).isEqualTo(3);
    assertThat(TuningLog.read(tuning.resolve("TinyKernels.jsonl"), log::add)).hasSize(3);

    // generate picks the best.
    TuningRecord best =
        recs.stream().min(java.util.Comparator.comparingDouble(TuningRecord::medianUs)).get();
    log.clear();
    Generator.run(
        new GenerateSettings(
            tmp.resolve("src/main/kernels/java"),
            tuning,
            List.of(),
            tmp.resolve("target/generated-sources/kernels"),
            tmp.resolve("target/generated-resources/kernels"),
            tmp.resolve("target/kernelgen/inputs.sha256"),
            "test",
            Set.of(Target.C),
            null,
            null,
            List.of("sm_90"),
            List.of(),
            Map.of(),
            log::add));
    assertThat(String.join("\n", log))
        .contains(
            "operator 'scale' for C specialized to n=4096 at "
                + best.versions().get("isa")
                + ": tuned configuration "
                + best.config())
        .contains("fell back to default schedules:\n  operator 'scale' for C: its shape");
  }

  @Test
  void progressBar() {
    assertThat(TuneRunner.bar(0, 4)).isEqualTo("[--------------------]");
    assertThat(TuneRunner.bar(1, 4)).isEqualTo("[#####---------------]");
    assertThat(TuneRunner.bar(4, 4)).isEqualTo("[####################]");
  }
}
