package dev.kernelgen.maven.tune;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.measure.CHarnessMeasurer;
import dev.kernelgen.measure.DeviceMeasurer;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.ReferenceCache;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceMeasurerReferenceTest {

  @Test
  void aGpuMeasurerChecksCandidatesAgainstTheCachedReference(@TempDir Path dir) throws Exception {
    var probe = Devices.probe(Target.OPENCL);
    assumeThat(probe.device()).as("an OpenCL device (" + probe.detail() + ")").isPresent();
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Tensor a = placeholder("A", FLOAT32, 32, 32);
    Tensor b = placeholder("B", FLOAT32, 32, 32);
    Tensor c = Linalg.matmul(a, b);
    OperatorDef def = OperatorDef.of(List.of(a, b), c);
    TuningTask t =
        new TuningTask(
            "Test/matmul",
            Target.OPENCL,
            def,
            k -> OpSchedules.defaultSchedule(Target.OPENCL, def.output(), k),
            "matmul");
    Path refs = dir.resolve("references");
    DeviceMeasurer m =
        new DeviceMeasurer(probe.device().get(), tc, 1)
            .referencesFrom(new CHarnessMeasurer(tc, 1, 0, 1, 60).cachingReferencesIn(refs));
    Measurement ok = m.measure(t, List.of(t.space().defaults())).get(0);
    assertThat(ok.status()).as(ok.detail()).isEqualTo(Measurement.Status.OK);
    ReferenceCache cache = new ReferenceCache(refs);
    assertThat(cache.source(t)).contains("interpreter");
    // A fresh measurer reads the entry; a corrupted entry makes the same candidate wrong.
    Path out0 = cache.entry(t).resolve("out0.bin");
    Files.write(out0, new byte[(int) Files.size(out0)]);
    DeviceMeasurer fresh =
        new DeviceMeasurer(probe.device().get(), tc, 1)
            .referencesFrom(new CHarnessMeasurer(tc, 1, 0, 1, 60).cachingReferencesIn(refs));
    Measurement wrong = fresh.measure(t, List.of(t.space().defaults())).get(0);
    assertThat(wrong.status()).isEqualTo(Measurement.Status.WRONG);
  }
}
