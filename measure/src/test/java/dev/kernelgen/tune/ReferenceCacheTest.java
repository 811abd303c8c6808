package dev.kernelgen.tune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.measure.CHarnessMeasurer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReferenceCacheTest {

  @Test
  void aLargeTasksReferenceIsTheNaiveLoopNestsRunCachedAndCheckedAgainst(@TempDir Path dir)
      throws Exception {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    TuningTask t = TuneTest.matmulTask(24);
    Path refs = dir.resolve("references");
    // A limit of 0 element operations: every task counts as too large for the interpreter.
    CHarnessMeasurer first =
        new CHarnessMeasurer(NativeToolchain.fromEnvironment(), 2, 0, 1, 60)
            .cachingReferencesIn(refs)
            .withInterpreterLimit(0);
    ConfigSpace s = t.space();
    List<Measurement> ms = first.measure(t, List.of(s.get(0), s.get(3)));
    assertThat(ms).allMatch(Measurement::isOk);
    ReferenceCache cache = new ReferenceCache(refs);
    assertThat(cache.source(t)).contains("naive-c");
    List<NDArray> cached = cache.load(t).orElseThrow();
    // The naive loop nest's output is the interpreter's.
    List<NDArray> interpreted =
        CHarnessMeasurer.Oracle.interpreter().outputs(t, ReferenceCache.inputs(t));
    assertThat(NDArray.compare(interpreted.get(0), cached.get(0), 1e-5, 1e-5)).isNull();

    // A later run reads the cache: its oracle is never called.
    CHarnessMeasurer later =
        new CHarnessMeasurer(
                NativeToolchain.fromEnvironment(),
                2,
                0,
                1,
                60,
                (task, in) -> {
                  throw new AssertionError("the oracle ran although the reference was cached");
                })
            .cachingReferencesIn(refs);
    assertThat(later.measure(t, List.of(s.get(1)))).allMatch(Measurement::isOk);

    // Candidates are checked against the cached outputs: a corrupted entry fails them.
    Path out0 = cache.entry(t).resolve("out0.bin");
    Files.write(out0, new byte[(int) Files.size(out0)]);
    CHarnessMeasurer corrupted =
        new CHarnessMeasurer(NativeToolchain.fromEnvironment(), 2, 0, 1, 60)
            .cachingReferencesIn(refs);
    Measurement wrong = corrupted.measure(t, List.of(s.get(2))).get(0);
    assertThat(wrong.status()).isEqualTo(Measurement.Status.WRONG);
  }

  @Test
  void smallTasksUseTheInterpreterAndEntriesAreKeyedByShape(@TempDir Path dir) {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    Path refs = dir.resolve("references");
    CHarnessMeasurer m =
        new CHarnessMeasurer(NativeToolchain.fromEnvironment(), 2, 0, 1, 60)
            .cachingReferencesIn(refs);
    TuningTask a = TuneTest.matmulTask(8);
    TuningTask b = TuneTest.matmulTask(16);
    assertThat(m.measure(a, List.of(a.space().get(0)))).allMatch(Measurement::isOk);
    assertThat(m.measure(b, List.of(b.space().get(0)))).allMatch(Measurement::isOk);
    ReferenceCache cache = new ReferenceCache(refs);
    assertThat(cache.source(a)).contains("interpreter");
    assertThat(refs.resolve(".gitignore")).hasContent("*");
    assertThat(cache.entry(a)).isNotEqualTo(cache.entry(b));
    assertThat(cache.load(b).orElseThrow().get(0).shape()).containsExactly(16, 16);
  }
}
