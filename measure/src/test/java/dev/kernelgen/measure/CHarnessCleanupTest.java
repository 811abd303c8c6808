package dev.kernelgen.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuneTest;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The C harness leaves no temporary directory behind once closed. */
class CHarnessCleanupTest {
  @Test
  void closeDeletesTheReferenceDataDirectory() {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    TuningTask t = TuneTest.matmulTask(8);
    List<Path> dirs;
    try (CHarnessMeasurer m =
        new CHarnessMeasurer(NativeToolchain.fromEnvironment(), 1, 0, 1, 60)) {
      List<Measurement> ms = m.measure(t, List.of(t.space().get(0)));
      assertThat(ms.get(0).status()).as(ms.get(0).toString()).isEqualTo(Measurement.Status.OK);
      dirs = m.dataDirectories();
      assertThat(dirs).hasSize(1);
      assertThat(dirs.get(0)).isDirectory();
      m.close();
      assertThat(dirs.get(0)).doesNotExist();
      assertThat(m.dataDirectories()).isEmpty();
      // Usable after close: the data is written again.
      assertThat(m.measure(t, List.of(t.space().get(0))).get(0).status())
          .isEqualTo(Measurement.Status.OK);
      dirs = m.dataDirectories();
    }
    assertThat(dirs.get(0)).doesNotExist();
  }
}
