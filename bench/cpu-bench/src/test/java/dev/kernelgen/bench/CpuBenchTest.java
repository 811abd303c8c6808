package dev.kernelgen.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.json.Json;
import dev.kernelgen.measure.WallClockTiming;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuBenchTest {
  private static final WallClockTiming QUICK = new WallClockTiming(0, 1_000_000, 2, 3);
  private static final List<Workload> TINY =
      List.of(Workload.of(1, 4, 9, 7, 2, 3, 2, Padding.SAME));

  @Test
  void jsonIsAListOfFlatObjectsWithNullsForMissingFigures() {
    String json =
        CpuBench.toJson(
            List.of(
                new CpuBench.Result("1x256x21x21 k3 m1 s1 SAME", false, null, 12.345, 100.0),
                new CpuBench.Result("1x256x21x21 k3 m1 s1 SAME", true, 5.0, 14.0, 110.26)));
    Object parsed = Json.parse(json);
    assertThat(parsed).isInstanceOf(List.class);
    List<?> list = (List<?>) parsed;
    assertThat(list).hasSize(2);
    Map<?, ?> first = (Map<?, ?>) list.get(0);
    assertThat(first.keySet().stream().map(String::valueOf).toList())
        .containsExactly("workload", "fused", "ours_us", "ort_us", "java_us", "kgjava_us");
    assertThat(first.get("workload")).isEqualTo("1x256x21x21 k3 m1 s1 SAME");
    assertThat(first.get("fused")).isEqualTo(false);
    assertThat(first.containsKey("ours_us")).isTrue();
    assertThat(first.get("ours_us")).isNull();
    assertThat(((Number) first.get("ort_us")).doubleValue()).isEqualTo(12.3);
    Map<?, ?> second = (Map<?, ?>) list.get(1);
    assertThat(second.get("fused")).isEqualTo(true);
    assertThat(((Number) second.get("ours_us")).doubleValue()).isEqualTo(5.0);
    assertThat(((Number) second.get("java_us")).doubleValue()).isEqualTo(110.3);
  }

  /** The JSON says which CPU and ISA level the figures are from, beside the rows. */
  @Test
  void jsonNamesTheMachine() {
    CpuInfo cpu = new CpuInfo("AMD EPYC 9654", "AVX-512", 2);
    Object parsed =
        Json.parse(
            CpuBench.toJson(cpu, List.of(new CpuBench.Result("w", false, 2.0, 3.0, 4.0, 5.0))));
    Map<?, ?> root = (Map<?, ?>) parsed;
    assertThat(root.keySet().stream().map(String::valueOf).toList())
        .containsExactly("machine", "results");
    Map<?, ?> machine = (Map<?, ?>) root.get("machine");
    assertThat(machine.get("cpu_model")).isEqualTo("AMD EPYC 9654");
    assertThat(machine.get("isa")).isEqualTo("AVX-512");
    Map<?, ?> row = (Map<?, ?>) ((List<?>) root.get("results")).get(0);
    assertThat(((Number) row.get("kgjava_us")).doubleValue()).isEqualTo(5.0);
  }

  /** The ISA level is the highest whose features /proc/cpuinfo lists, AVX-512 needing four. */
  @Test
  void cpuInfoReadsModelAndIsaLevel() {
    List<String> zen4 =
        List.of(
            "processor\t: 0",
            "model name\t: AMD EPYC 9654 96-Core Processor",
            "flags\t\t: fpu sse2 avx avx2 fma avx512f avx512dq avx512bw avx512vl",
            "model name\t: ignored second processor");
    assertThat(CpuInfo.parse(zen4, 2))
        .isEqualTo(new CpuInfo("AMD EPYC 9654 96-Core Processor", "AVX-512", 2));
    List<String> zen3 = List.of("model name : AMD EPYC 7763", "flags : sse2 avx avx2 fma avx512f");
    assertThat(CpuInfo.parse(zen3, 2).isa()).isEqualTo("AVX2");
    assertThat(CpuInfo.parse(List.of("flags : sse2 sse4_2"), 1).isa()).isEqualTo("baseline");
    assertThat(CpuInfo.parse(List.of(), 1).isa()).isEqualTo("unknown");
    assertThat(CpuInfo.detect().line()).startsWith("cpu: ").contains("ISA level");
  }

  /**
   * The generated Java column: the library's CPU schedule through the Java target, compiled in
   * memory and run on the Java device, checked against the Java loops (a ragged, strided,
   * multiplier-2 workload) and timed; the summary gives its geometric mean over C.
   */
  /** The C kernels, compiled through the measure module's {@code Modules}, match the loops. */
  @Test
  void generatedCKernelsAreCheckedAndTimed() throws Exception {
    org.assertj.core.api.Assumptions.assumeThat(
            dev.kernelgen.codegen.NativeToolchain.fromEnvironment().findCc())
        .as("cc on PATH")
        .isPresent();
    for (OursKernel ours : List.of(new KernelgenDepthwise(), new KernelgenDepthwise(0, true))) {
      // The template, then the auto-scheduler's untuned pick (--generated): both checked by run.
      List<CpuBench.Result> results = CpuBench.run(TINY, ours, null, QUICK, silent());
      assertThat(results).hasSize(2 * TINY.size());
      for (CpuBench.Result r : results) {
        assertThat(r.oursUs()).isPositive();
      }
    }
  }

  @Test
  void generatedJavaKernelsAreCheckedAndTimed() throws Exception {
    OursKernel c = JavaLoops::of;
    List<CpuBench.Result> results = CpuBench.run(TINY, c, new KernelgenJava(0), QUICK, silent());
    for (CpuBench.Result r : results) {
      assertThat(r.kgJavaUs()).isPositive();
      assertThat(r.kgJavaOverOurs()).isPositive();
    }
    assertThat(CpuBench.table(results).lines().findFirst().orElseThrow())
        .contains("kgjava_us", "kgjava/ours");
    assertThat(CpuBench.javaSummary(results, List.of(TINY.get(0).name())))
        .contains("geomean kgjava/ours (generated Java over C) = ")
        .contains("over 2 rows");
    assertThat(CpuBench.javaSummary(results, List.of())).contains("= - over 0 rows");
  }

  @Test
  void runMeasuresEveryImplementationAndTheTableShowsSpeedup() throws Exception {
    OursKernel ours = JavaLoops::of; // a correct implementation stands in for generated code
    List<CpuBench.Result> results = CpuBench.run(TINY, ours, QUICK, silent());
    assertThat(results).extracting(CpuBench.Result::fused).containsExactly(false, true);
    for (CpuBench.Result r : results) {
      assertThat(r.oursUs()).isPositive();
      assertThat(r.ortUs()).isPositive();
      assertThat(r.javaUs()).isPositive();
    }
    String table = CpuBench.table(results);
    assertThat(table.lines().findFirst().orElseThrow())
        .contains("workload", "fused", "ours_us", "ort_us", "java_us", "ort/ours");
    assertThat(table).contains("1x4x9x7 k3 m2 s2 SAME").contains("x");
    assertThat(CpuBench.summary(results)).contains("plain: geomean ort/ours = ");
  }

  @Test
  void oursIsNullWhenNotRegisteredOrUnsupported() throws Exception {
    List<CpuBench.Result> none = CpuBench.run(TINY, null, QUICK, silent());
    assertThat(none).allSatisfy(r -> assertThat(r.oursUs()).isNull());
    List<CpuBench.Result> unsupported = CpuBench.run(TINY, (w, fused) -> null, QUICK, silent());
    assertThat(unsupported).allSatisfy(r -> assertThat(r.oursUs()).isNull());
    assertThat(CpuBench.summary(none)).contains("geomean ort/ours = - over 0 workloads");
  }

  @Test
  void wrongOutputFailsLoudly() {
    // Forgets relu: wrong exactly where the fused result is clipped.
    OursKernel noRelu = (w, fused) -> JavaLoops.of(w, false);
    assertThatThrownBy(() -> CpuBench.run(TINY, noRelu, QUICK, silent()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ours")
        .hasMessageContaining("1x4x9x7 k3 m2 s2 SAME fused")
        .hasMessageContaining("max abs error");
  }

  @Test
  void nanIsNeverWithinTolerance() {
    assertThatThrownBy(
            () -> CpuBench.check("x", "w", new float[] {1, 2}, new float[] {1, Float.NaN}))
        .hasMessageContaining("flat index 1");
  }

  @Test
  void geomean() {
    assertThat(CpuBench.geomean(List.of(2.0, 8.0)))
        .isCloseTo(4.0, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(CpuBench.geomean(List.of())).isNull();
  }

  private static PrintStream silent() {
    return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
  }
}
