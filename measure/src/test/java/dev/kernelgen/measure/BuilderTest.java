package dev.kernelgen.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuneTest;
import dev.kernelgen.tune.TuningTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The builder: a batch built in parallel comes back in order, with each failure's reason; a source
 * built before is not compiled again.
 */
class BuilderTest {
  private static final NativeToolchain TC = NativeToolchain.fromEnvironment();

  @Test
  void aBatchIsBuiltInParallelAndComesBackInItsOrder() {
    assumeThat(TC.findCc()).as("cc on PATH").isPresent();
    TuningTask c = TuneTest.matmulTask(13);
    List<Configuration> batch = new ArrayList<>(DeviceMeasurerLeakTest.all(c.space()));
    batch.add(3, Configuration.of(Map.of("tile_j", 99)));
    try (Builder b = Builder.forCpu(TC, 2, "x86-64-v2")) {
      for (TuningTask t : List.of(c, Tasks.on(c, Target.JAVA))) {
        List<BuildResult> built = b.build(t, batch);
        assertThat(built).extracting(BuildResult::config).containsExactlyElementsOf(batch);
        for (int i = 0; i < built.size(); i++) {
          BuildResult r = built.get(i);
          assertThat(r.target()).isEqualTo(t.target());
          if (i == 3) {
            assertThat(r.failure()).isEqualTo(Measurement.Status.INVALID);
            assertThat(r.error()).contains("tile_j");
          } else {
            assertThat(r.ok()).as(r.error()).isTrue();
            assertThat(r.binary()).isNotEmpty();
            assertThat(r.kernels()).hasSize(1);
            assertThat(r.inputs()).isEqualTo(2);
          }
        }
      }
    }
  }

  @Test
  void aSourceCompiledBeforeIsNotCompiledAgainAndAFailureIsNotKept() {
    assumeThat(TC.findCc()).as("cc on PATH").isPresent();
    TuningTask c = TuneTest.matmulTask(8);
    try (Builder b = Builder.forCpu(TC, 2, "x86-64-v2")) {
      for (TuningTask t : List.of(c, Tasks.on(c, Target.JAVA))) {
        int before = b.compiles();
        // The same configuration twice in one parallel batch (one waits for the other's compile).
        List<BuildResult> built =
            b.build(t, List.of(t.space().get(0), t.space().get(0), t.space().get(1)));
        assertThat(built).allMatch(BuildResult::ok);
        assertThat(built.get(1).source()).isEqualTo(built.get(0).source());
        assertThat(built.get(2).source()).isNotEqualTo(built.get(0).source());
        assertThat(b.compiles() - before).isEqualTo(2);
        assertThat(built.get(1).binary()).isSameAs(built.get(0).binary());
        assertThat(b.compile(built.get(2).withSource(built.get(2).source())).binary())
            .isSameAs(built.get(2).binary());
        assertThat(b.compiles() - before).isEqualTo(2);
        // A rejected source is compiled (and rejected) again each time.
        for (int i = 0; i < 2; i++) {
          assertThat(b.compile(built.get(0).withSource("class {")).failure())
              .isEqualTo(Measurement.Status.COMPILE_ERROR);
        }
        assertThat(b.compiles() - before).isEqualTo(4);
      }
    }
  }

  @Test
  void aSourceTheCompilerRejectsIsACompileErrorWithItsMessage() {
    assumeThat(TC.findCc()).as("cc on PATH").isPresent();
    TuningTask c = TuneTest.matmulTask(8);
    try (Builder b = Builder.forCpu(TC, 1, "x86-64-v2")) {
      BuildResult good = b.build(c, c.space().get(0));
      BuildResult badC = b.compile(good.withSource("int main( {"));
      assertThat(badC.failure()).isEqualTo(Measurement.Status.COMPILE_ERROR);
      assertThat(badC.error()).startsWith("cc failed:");
      assertThat(badC.measurement().status()).isEqualTo(Measurement.Status.COMPILE_ERROR);
      TuningTask java = Tasks.on(c, Target.JAVA);
      BuildResult goodJava = b.build(java, java.space().get(0));
      BuildResult badJava = b.compile(goodJava.withSource("class {"));
      assertThat(badJava.failure()).isEqualTo(Measurement.Status.COMPILE_ERROR);
      assertThat(badJava.error()).startsWith("javac failed:");
      // A printed candidate not yet compiled has no binary and is not a success.
      assertThat(good.withSource(good.source()).ok()).isFalse();
    }
  }

  @Test
  void aGpuCandidateOverTheDevicesLimitsIsInvalidWithTheReasonNotACrash() {
    // The limits are checked when the source is printed; the build then has nothing to compile
    // (it threw a NullPointerException from the binary cache, failing the whole batch).
    var a = dev.kernelgen.te.TE.placeholder("A", dev.kernelgen.te.TE.FLOAT32, 64, 64);
    var bt = dev.kernelgen.te.TE.placeholder("B", dev.kernelgen.te.TE.FLOAT32, 64, 64);
    var def =
        dev.kernelgen.spec.OperatorDef.of(List.of(a, bt), dev.kernelgen.topi.Linalg.matmul(a, bt));
    TuningTask t =
        new TuningTask(
            "BuilderTest/matmul",
            Target.CUDA,
            def,
            k -> dev.kernelgen.autosched.AutoScheduler.generate(Target.CUDA, def.outputs(), k),
            "k");
    Configuration staged =
        Configuration.of(
            Map.of(
                "MatMul.reg0",
                4,
                "MatMul.reg1",
                4,
                "MatMul.threads0",
                8,
                "MatMul.threads1",
                8,
                "MatMul.tile_k",
                8,
                "MatMul.shared",
                1,
                "sketch",
                0));
    try (Builder b = Builder.forGpu(TC, 2, new dev.kernelgen.tune.GpuLimits(1024, 1024), 90)) {
      List<BuildResult> built = b.build(t, List.of(staged, staged));
      for (BuildResult r : built) {
        assertThat(r.failure()).isEqualTo(Measurement.Status.INVALID);
        assertThat(r.error())
            .contains("bytes of shared memory per block, more than the device's 1024");
      }
      assertThat(b.compiles()).isZero();
    }
  }
}
