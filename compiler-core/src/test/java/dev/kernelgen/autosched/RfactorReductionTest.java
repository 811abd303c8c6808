package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.OpSchedules;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The rfactor rule: a long reduction into a small output is factored into partial results that run
 * in parallel and in vector lanes on CPUs; elsewhere the rule stays out.
 */
class RfactorReductionTest {
  /** The sum of squares of each of {@code rows} rows (a vector's squared norm for one row). */
  private static Tensor sumOfSquares(Object rows, Object cols) {
    Tensor x = placeholder("X", FLOAT32, rows, cols);
    IterVar k = reduceAxis(cols, "k");
    return compute("SumSq", shape(rows), i -> TE.sum(x.at(i, k.var()).mul(x.at(i, k.var())), k));
  }

  private static boolean factored(Schedule s) {
    return s.trace().toString().contains(".rfactor_parts(");
  }

  @Test
  void aLongSumIntoAFewOutputsIsFactoredInParallelAndInLanes() {
    Schedule s = AutoScheduler.untuned(Target.C, List.of(sumOfSquares(2, 100_003)));
    assertThat(factored(s)).isTrue();
    String c =
        CCodegen.generate(List.of(Lower.lower(s, "ss", OpSchedules.args(s), Target.C, null)), "m");
    assertThat(c).contains("#pragma omp parallel for");
  }

  @Test
  void manyOutputsOrShortReductionsOrGpusAreLeftToTheOtherRules() {
    assertThat(factored(AutoScheduler.untuned(Target.C, List.of(sumOfSquares(8, 100_000)))))
        .isFalse();
    assertThat(factored(AutoScheduler.untuned(Target.C, List.of(sumOfSquares(2, 1000))))).isFalse();
    assertThat(factored(AutoScheduler.untuned(Target.CUDA, List.of(sumOfSquares(256, 100_000)))))
        .isFalse();
  }

  @Test
  void onGpusThePartialResultsSpreadOverBlocksAndABlockPerOutputCombinesThem() {
    Var n = new Var("n");
    for (Object cols : new Object[] {5003, n}) {
      Tensor out = sumOfSquares(3, cols);
      for (int blocks : new int[] {16, 64}) {
        Schedule s =
            AutoScheduler.generate(
                Target.CUDA, List.of(out), Knobs.configured(Map.of("SumSq.blocks", blocks)));
        assertThat(s.trace().toString()).contains(".rfactor(k, " + blocks * 256 + ")");
        dev.kernelgen.topi.GpuCheck.check(s, cols == n ? Map.of(n, 4099L) : Map.of());
      }
    }
  }

  /**
   * Few outputs of long reductions on GPUs: a block per output holds the partial results of the
   * innermost reduce axis, and a thread per output (the consumer's, where one divides) adds them
   * up.
   */
  @Test
  void onGpusFewOutputsOfLongReductionsGetABlockEach() {
    // Global average pooling: 6 outputs of 23x37 (37 partial results each), the mean's division
    // fused into the second kernel.
    Tensor img = placeholder("Img", FLOAT32, 2, 3, 23, 37);
    Schedule pool =
        AutoScheduler.untuned(Target.CUDA, List.of(dev.kernelgen.topi.Pooling.globalAvgPool(img)));
    assertThat(pool.trace().toString()).contains(".rfactor(").contains(", 37)");
    var kernels =
        dev.kernelgen.lower.SplitHostDevice.split(
                Lower.lower(pool, "gap", OpSchedules.args(pool), Target.CUDA, null))
            .kernels();
    assertThat(kernels).hasSize(2);
    dev.kernelgen.topi.GpuCheck.check(pool, Map.of());
    // 20 rows of 600 (256 partial results, the last of them short) and 256 rows of 100000.
    for (Tensor out : List.of(sumOfSquares(20, 600), sumOfSquares(256, 100_000))) {
      Schedule s = AutoScheduler.untuned(Target.CUDA, List.of(out));
      assertThat(s.trace().toString()).contains(".rfactor(k, 256)");
      if (out.shape().get(0) instanceof dev.kernelgen.te.IntImm r && r.value() == 20) {
        dev.kernelgen.topi.GpuCheck.check(s, Map.of());
      }
    }
    // A short reduction into many outputs stays with the tiling rules.
    assertThat(
            AutoScheduler.untuned(Target.CUDA, List.of(sumOfSquares(4096, 300))).trace().toString())
        .doesNotContain("rfactor");
  }

  /** {@code relu(sum_k x[k] * a[k, j] + bias[j])}: a reduction down the columns of A. */
  private static Tensor vecmat(int rows, int cols, boolean epilogue) {
    Tensor a = placeholder("A", FLOAT32, rows, cols);
    Tensor x = placeholder("X", FLOAT32, rows);
    IterVar k = reduceAxis(rows, "k");
    Tensor y = compute("Vecmat", shape(cols), j -> TE.sum(x.at(k.var()).mul(a.at(k.var(), j)), k));
    if (!epilogue) {
      return y;
    }
    Tensor bias = placeholder("Bias", FLOAT32, cols);
    return compute("Relu", shape(cols), j -> TE.maximum(y.at(j).add(bias.at(j)), 0.0));
  }

  @Test
  void onGpusFewOutputsDownTheColumnsGetContiguousChunksOfRowsAThread() {
    // [4096] x [4096, 4096]: 4096 threads, a column each, left the H200 idle (236 us; the naive
    // kernel 226 us). Now 64 chunks of 64 rows per column, a warp on 32 neighbouring columns:
    // 20.6 us.
    Schedule big = AutoScheduler.untuned(Target.CUDA, List.of(vecmat(4096, 4096, false)));
    assertThat(big.trace().toString()).contains(".rfactor_parts(k, 64)");
    var kernels =
        dev.kernelgen.lower.SplitHostDevice.split(
                Lower.lower(big, "vm", OpSchedules.args(big), Target.CUDA, null))
            .kernels();
    assertThat(kernels).hasSize(2);
    String src = dev.kernelgen.codegen.CudaCodegen.generate(kernels, "m");
    // Partial results in registers, stored chunk-major: both kernels' accesses coalesced.
    assertThat(src).contains("float Vecmat_rf_local[1];").contains("float Vecmat_local[1];");
    assertThat(src).contains("+ (k_rf * 4096)]");
    // Ragged chunks and columns, with and without an epilogue, and the other parts settings.
    for (boolean epilogue : new boolean[] {false, true}) {
      Tensor out = vecmat(1000, 77, epilogue);
      Schedule s = AutoScheduler.untuned(Target.CUDA, List.of(out));
      assertThat(s.trace().toString()).as("epilogue " + epilogue).contains(".rfactor_parts(k, ");
      dev.kernelgen.topi.GpuCheck.check(s, Map.of());
      String name = epilogue ? "Vecmat" : out.name();
      for (int parts : new int[] {16, 64}) {
        dev.kernelgen.topi.GpuCheck.check(
            AutoScheduler.generate(
                Target.CUDA, List.of(out), Knobs.configured(Map.of(name + ".parts", parts))),
            Map.of());
      }
    }
    // Two reduce axes, the batch outside the rows: each chunk of rows sums over every batch.
    Tensor x3 = placeholder("X3", FLOAT32, 3, 700, 45);
    IterVar b = reduceAxis(3, "b");
    IterVar r = reduceAxis(700, "r");
    Tensor colSum = compute("ColSum", shape(45), j -> TE.sum(x3.at(b.var(), r.var(), j), b, r));
    Schedule two = AutoScheduler.untuned(Target.CUDA, List.of(colSum));
    assertThat(two.trace().toString()).contains(".rfactor_parts(r, ");
    dev.kernelgen.topi.GpuCheck.check(two, Map.of());
    // Enough columns to fill the machine, or rows too few to chunk, stay with the tiling rules.
    assertThat(
            AutoScheduler.untuned(Target.CUDA, List.of(vecmat(4096, 65536, false)))
                .trace()
                .toString())
        .doesNotContain("rfactor");
    assertThat(
            AutoScheduler.untuned(Target.CUDA, List.of(vecmat(24, 512, false))).trace().toString())
        .doesNotContain("rfactor");
  }

  @Test
  void everyPartsSettingMatchesTheOracleOnRaggedAndSymbolicExtents() {
    Var n = new Var("n");
    for (Object cols : new Object[] {4099, 8192, n}) {
      Tensor out = sumOfSquares(3, cols);
      for (int parts : new int[] {2, 8, 16}) {
        Schedule s =
            AutoScheduler.generate(
                Target.C, List.of(out), Knobs.configured(Map.of("SumSq.parts", parts)));
        assertThat(factored(s)).isTrue();
        Map<Var, Long> dims = cols == n ? Map.of(n, 5000L) : Map.of();
        Check.check(
            s,
            OpSchedules.args(s),
            dims,
            EnumSet.of(Check.Backend.IR, Check.Backend.C, Check.Backend.JAVA),
            1e-4,
            1e-3);
      }
    }
  }

  /** The sum of squares of a whole {@code rows x cols} tensor, to one value. */
  private static Tensor wholeSumOfSquares(int rows, int cols) {
    Tensor x = placeholder("X", FLOAT32, rows, cols);
    IterVar r = reduceAxis(rows, "r");
    IterVar k = reduceAxis(cols, "k");
    return compute(
        "Total", shape(1), i -> TE.sum(x.at(r.var(), k.var()).mul(x.at(r.var(), k.var())), r, k));
  }

  /**
   * A whole tensor's sum on CPUs: the rows are cut into the parts, each part one contiguous run of
   * memory (chunks of the columns read every row in pieces: [4096, 4096] 5.2 ms, 1.5-2.2 ms so),
   * and rows shorter than the rule's minimum count with the rows they continue.
   */
  @Test
  void aWholeTensorsSumIsCutIntoChunksOfRows() {
    for (int[] dims : new int[][] {{4096, 4096}, {65536, 64}, {37, 4099}}) {
      Schedule s = AutoScheduler.untuned(Target.C, List.of(wholeSumOfSquares(dims[0], dims[1])));
      assertThat(s.trace().toString())
          .as("%s", List.of(dims[0], dims[1]))
          .contains(".rfactor_parts(r, ");
    }
    for (int parts : new int[] {2, 8, 16}) {
      Schedule s =
          AutoScheduler.generate(
              Target.C,
              List.of(wholeSumOfSquares(37, 4099)),
              Knobs.configured(Map.of("Total.parts", parts)));
      Check.check(
          s,
          OpSchedules.args(s),
          Map.of(),
          EnumSet.of(Check.Backend.IR, Check.Backend.C, Check.Backend.JAVA),
          1e-4,
          1e-3);
    }
  }
}
