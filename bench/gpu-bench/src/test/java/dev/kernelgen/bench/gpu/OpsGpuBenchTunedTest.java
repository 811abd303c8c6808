package dev.kernelgen.bench.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.TuningLog;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code OpsGpuBench}'s {@code _tuned} rows take a generated schedule's best record only where its
 * configuration is in today's space: a record made before a knob was added would build another
 * schedule than the one it timed.
 */
class OpsGpuBenchTunedTest {
  @Test
  void recordsFromBeforeTheSpaceChangedAreStale(@TempDir Path dir) throws Exception {
    TuningCostBench.Op op = TuningCostBench.depthwiseFused(1, 16, 24);
    TuningTask task = TuningCostBench.task(op, Target.CUDA);
    Configuration today = task.space().defaults();
    Map<String, Integer> before = new TreeMap<>(today.values());
    assertThat(before.remove("DepthwiseConv2d.window")).isNotNull();
    OpsGpuBench.Case auto = new OpsGpuBench.Case(op.name() + "_auto", op.def(), 0, null, null);

    Path stale = dir.resolve("stale.jsonl");
    TuningLog.append(stale, List.of(record(task, Configuration.of(before), 5.0)));
    assertThat(OpsGpuBench.withTuned(List.of(auto), stale))
        .extracting(OpsGpuBench.Case::name)
        .containsExactly(op.name() + "_auto");

    Path both = dir.resolve("both.jsonl");
    TuningLog.append(
        both, List.of(record(task, Configuration.of(before), 5.0), record(task, today, 7.0)));
    java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
    java.io.PrintStream out = System.out;
    List<OpsGpuBench.Case> cases;
    try {
      System.setOut(
          new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
      cases = OpsGpuBench.withTuned(List.of(auto), both);
    } finally {
      System.setOut(out);
    }
    assertThat(cases)
        .extracting(OpsGpuBench.Case::name)
        .containsExactly(op.name() + "_auto", op.name() + "_tuned");
    assertThat(printed.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("(7.0 us when searched)");
  }

  private static TuningRecord record(TuningTask task, Configuration c, double us) {
    return new TuningRecord(
        task.operator(),
        Target.CUDA.name(),
        "CUDA 0: a test device",
        Map.of(),
        task.shape(),
        c,
        List.of(),
        "OK",
        us,
        us,
        "",
        "2026-12-05T00:00:00Z",
        null,
        List.of());
  }
}
