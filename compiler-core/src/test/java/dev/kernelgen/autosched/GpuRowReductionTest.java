package dev.kernelgen.autosched;

import static dev.kernelgen.te.DType.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Reduction;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The GPU variants of the row-reduction rule: a block per row with cross-thread reductions for long
 * rows, a thread per row for short ones, picked by knob {@code threads_per_row}; every variant
 * equal to the oracle on ragged shapes (row lengths that the thread count does not divide).
 */
class GpuRowReductionTest {
  static Tensor softmax(long rows, long cols) {
    return Reduction.softmax(placeholder("X", FLOAT32, rows, cols), 1);
  }

  static Tensor layerNorm(long rows, long cols) {
    Tensor x = placeholder("X", FLOAT32, rows, cols);
    return Nn.layerNorm(
        x, placeholder("G", FLOAT32, cols), placeholder("B", FLOAT32, cols), 1, 1e-5);
  }

  /** A normalisation as a user writes it: each row divided by its L2 norm. */
  static Tensor l2Normalize(long rows, long cols) {
    Tensor x = placeholder("X", FLOAT32, rows, cols);
    IterVar k = TE.reduceAxis(cols, "k");
    Tensor ss =
        TE.compute(
            "SumSquares", TE.shape(rows), i -> TE.sum(x.at(i, k.var()).mul(x.at(i, k.var())), k));
    return TE.compute(
        "L2Normalize",
        TE.shape(rows, cols),
        (i, j) -> x.at(i, j).div(TE.sqrt(ss.at(i).add(TE.f32(1e-6)))));
  }

  static Tensor of(String op, long rows, long cols) {
    return switch (op) {
      case "softmax" -> softmax(rows, cols);
      case "layer_norm" -> layerNorm(rows, cols);
      default -> l2Normalize(rows, cols);
    };
  }

  private static int pickedThreads(Tensor out) {
    var pick =
        AutoScheduler.untunedConfig(
            Target.CUDA, List.of(out), SketchRules.defaults(), new AnalyticPredictor());
    return pick.values().entrySet().stream()
        .filter(e -> e.getKey().endsWith("." + GpuRowReduction.THREADS))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no threads_per_row knob in " + pick))
        .getValue();
  }

  @Test
  void theUntunedPickIsABlockPerRowForLongRowsAndAThreadPerRowForShortOnes() {
    for (String op : List.of("softmax", "layer_norm", "l2")) {
      assertThat(pickedThreads(of(op, 4096, 4096))).as(op).isGreaterThanOrEqualTo(64);
      assertThat(pickedThreads(of(op, 16384, 1024))).as(op).isGreaterThanOrEqualTo(32);
      assertThat(pickedThreads(of(op, 1 << 20, 4))).as(op).isEqualTo(1);
    }
    for (Tensor out : List.of(softmax(4096, 4096), layerNorm(16384, 1024))) {
      String trace = AutoScheduler.untuned(Target.CUDA, List.of(out)).trace().toString();
      assertThat(trace).contains("bind(r1.inner, threadIdx.x)").contains("cache_read(shared");
    }
  }

  @ParameterizedTest
  @CsvSource({
    "softmax, 37, 1000, 32, 0",
    "softmax, 37, 1000, 32, 1",
    "softmax, 3, 5, 64, 1",
    "softmax, 1, 4097, 256, 0",
    "softmax, 1, 4097, 256, 1",
    "layer_norm, 37, 1000, 128, 1",
    "layer_norm, 37, 1000, 128, 0",
    "layer_norm, 3, 5, 32, 0",
    "layer_norm, 1, 4097, 1024, 1",
    "l2, 37, 1000, 64, 1",
    "l2, 3, 5, 1, 1",
    "softmax, 37, 1000, 1, 0",
    "softmax, 37, 1000, 16, 0",
    "softmax, 96, 19, 4, 0",
    "layer_norm, 48, 70, 8, 1",
    "l2, 40, 33, 2, 0",
  })
  void everyVariantEqualsTheOracleOnRaggedRows(
      String op, long rows, long cols, int threads, int stage) {
    Tensor out = of(op, rows, cols);
    ConfigSpaceHolder h = new ConfigSpaceHolder(out);
    Map<String, Integer> v = new TreeMap<>(h.defaults);
    v.put(h.threadsKnob, threads);
    v.put(h.threadsKnob.replace(GpuRowReduction.THREADS, GpuRowReduction.STAGE), stage);
    Schedule s = AutoScheduler.generate(Target.CUDA, List.of(out), Knobs.configured(v));
    assertThat(s.trace().toString().contains("cache_read(shared"))
        .as(s.trace().toString())
        .isEqualTo(stage == 1 && threads >= dev.kernelgen.schedule.ThreadTag.WARP);
    GpuCheck.check(s, Map.of());
  }

  @Test
  void rowsShorterThanAWarpShareABlockWithThreadsPerRowBelowAWarp() {
    // A block of 32 threads per row of 16 (half of them idle, ten barrier steps per row): 40.8 us
    // on an H100 for softmax over [65536, 16], against 8.7 us for the naive kernels; 8 threads a
    // row, 32 rows a block: 4.1 us. Layer norm over [65536, 64]: 41.1 -> 11.9 us (16 threads).
    for (Tensor out : List.of(softmax(65536, 16), layerNorm(65536, 64))) {
      int threads = pickedThreads(out);
      assertThat(threads).as(out.name()).isBetween(2, 16);
      String trace = AutoScheduler.untuned(Target.CUDA, List.of(out)).trace().toString();
      assertThat(trace).contains("threadIdx.y").doesNotContain("cache_read");
    }
    // Rows a warp's threads would read a row apart (NCHW's channels): never below a warp.
    Tensor channels = Reduction.softmax(placeholder("X", FLOAT32, 8, 64, 56, 56), 1);
    var space = AutoScheduler.space(Target.CUDA, List.of(channels)).toString();
    assertThat(space).contains("threads_per_row=[1, 32");
    // The rows of a block divide the row count (a ragged block would leave rows of threads out of
    // the all-reduce's barriers), down to one row for a prime count.
    assertThat(GpuRowReduction.rowsPerBlock(65536, 4)).isEqualTo(64);
    assertThat(GpuRowReduction.rowsPerBlock(96, 4)).isEqualTo(32);
    assertThat(GpuRowReduction.rowsPerBlock(37, 4)).isEqualTo(1);
    assertThat(GpuRowReduction.rowsPerBlock(-1, 4)).isEqualTo(1);
    assertThat(GpuRowReduction.rowsPerBlock(65536, 64)).isEqualTo(1);
  }

  /** One head of attention as a user writes it with topi: softmax(q k^T / 8) v over [seq, d]. */
  static Tensor attention(long seq, long d) {
    Tensor q = placeholder("q", FLOAT32, seq, d);
    Tensor k = placeholder("k", FLOAT32, seq, d);
    Tensor v = placeholder("v", FLOAT32, seq, d);
    Tensor w = Reduction.softmax(Elementwise.scale(Linalg.dense(q, k), 0.125), 1);
    return Linalg.matmul(w, v);
  }

  @Test
  void aSoftmaxBetweenTwoProductsIsOneKernelOfABlockPerRow() {
    // The softmax was inlined into the second product and its reductions left to rfactor: seven
    // kernels, the combining ones a thread per row reading 256 partial results one by one, and the
    // product a tile of 2 x 512 over 64 columns (1 thread in 8 busy): 390 us on an H100 at
    // [1024, 64], PyTorch 25 us. Now: the product q k^T, the softmax (a block per row, its maximum
    // and sum cross-thread), the product with v staging the softmax's tile in shared memory.
    Schedule s = AutoScheduler.untuned(Target.CUDA, List.of(attention(1024, 64)));
    String trace = s.trace().toString();
    assertThat(trace).doesNotContain("rfactor").contains("s[Softmax].bind(i, blockIdx.x)");
    assertThat(trace).contains("s[Softmax].cache_read(shared, MatMul.local)");
    var kernels =
        dev.kernelgen.lower.SplitHostDevice.split(
                dev.kernelgen.lower.Lower.lower(
                    s, "k", dev.kernelgen.topi.OpSchedules.args(s), Target.CUDA, null))
            .kernels();
    assertThat(kernels).hasSize(3);
    var tc = dev.kernelgen.codegen.NativeToolchain.fromEnvironment();
    if (tc.findNvcc().isPresent()) {
      String ptx =
          tc.compilePtx(dev.kernelgen.codegen.CudaCodegen.generate(kernels, "m"), "compute_90");
      kernels.forEach(k -> assertThat(ptx).contains(".entry " + k.name()));
    }
    // Ragged: rows and the head's width that no tile divides.
    GpuCheck.check(AutoScheduler.untuned(Target.CUDA, List.of(attention(37, 9))), Map.of());
    GpuCheck.check(AutoScheduler.untuned(Target.OPENCL, List.of(attention(70, 20))), Map.of());
  }

  @Test
  void rowsLongerThanTheSharedBudgetAreNotStaged() {
    Tensor out = softmax(4, 1 << 14);
    Schedule s = AutoScheduler.untuned(Target.CUDA, List.of(out));
    assertThat(s.trace().toString()).doesNotContain("cache_read");
    var space = AutoScheduler.space(Target.CUDA, List.of(out));
    assertThat(space.toString()).contains("stage_rows");
  }

  @Test
  void symbolicRowsAndColumnsGetABlockPerRowWithoutStaging() {
    dev.kernelgen.te.Var m = TE.var("m");
    dev.kernelgen.te.Var n = TE.var("n");
    Tensor x = TE.placeholder("X", FLOAT32, TE.shape(m, n));
    for (Tensor out :
        List.of(
            Reduction.softmax(x, 1),
            Nn.layerNorm(
                x,
                placeholder("G", FLOAT32, TE.shape(n)),
                placeholder("B", FLOAT32, TE.shape(n)),
                1,
                1e-5))) {
      Schedule s = AutoScheduler.untuned(Target.CUDA, List.of(out));
      assertThat(s.trace().toString()).contains("threadIdx.x").doesNotContain("cache_read");
      GpuCheck.check(s, Map.of(m, 5L, n, 300L));
      GpuCheck.check(s, Map.of(m, 2L, n, 7L));
      // Below a warp per row, a symbolic row count gets one row per block.
      Schedule few = withThreads(out, 8);
      assertThat(few.trace().toString()).contains("threadIdx.y");
      GpuCheck.check(few, Map.of(m, 5L, n, 300L));
      GpuCheck.check(few, Map.of(m, 3L, n, 7L));
    }
  }

  @Test
  void otherLayoutsOfRowsEqualTheOracleWithABlockPerRow() {
    // Softmax down the columns (the rows are the second axis), and a layer norm over the last two
    // axes of a 3-D tensor (two reduce axes fused, then spread over the threads).
    Tensor a = placeholder("A", FLOAT32, 37, 19);
    Tensor x = placeholder("X", FLOAT32, 3, 5, 7);
    Tensor g = placeholder("G", FLOAT32, 5, 7);
    Tensor b = placeholder("B", FLOAT32, 5, 7);
    for (Tensor out : List.of(Reduction.softmax(a, 0), Nn.layerNorm(x, g, b, 2, 1e-5))) {
      for (int threads : new int[] {32, 64}) {
        Schedule s = withThreads(out, threads);
        // The output's loop over the row and both reductions bound to the row's threads.
        assertThat(s.trace().toString().split("threadIdx.x", -1).length - 1)
            .as(s.trace().toString())
            .isGreaterThanOrEqualTo(3);
        GpuCheck.check(s, Map.of());
      }
    }
    // Below a warp per row: two row axes fused (softmax over the last axis of [6, 8, 19]), and two
    // axes in a row (the layer norm over [5, 7], three rows: one a block).
    Tensor y = placeholder("Y", FLOAT32, 6, 8, 19);
    for (Tensor out : List.of(Reduction.softmax(y, 2), Nn.layerNorm(x, g, b, 2, 1e-5))) {
      for (int threads : new int[] {4, 16}) {
        Schedule s = withThreads(out, threads);
        assertThat(s.trace().toString()).contains("threadIdx.y");
        GpuCheck.check(s, Map.of());
      }
    }
  }

  @Test
  void nvccCompilesTheBenchmarksPicks() {
    var tc = dev.kernelgen.codegen.NativeToolchain.fromEnvironment();
    org.junit.jupiter.api.Assumptions.assumeTrue(
        tc.findNvcc().isPresent(), "nvcc not found on PATH or in /usr/local/cuda/bin: skipped");
    List<dev.kernelgen.tir.PrimFunc> all = new java.util.ArrayList<>();
    int k = 0;
    for (long[] shape : new long[][] {{4096, 4096}, {16384, 1024}, {65536, 16}, {65536, 64}}) {
      for (String op : List.of("softmax", "layer_norm")) {
        Schedule s = AutoScheduler.untuned(Target.CUDA, List.of(of(op, shape[0], shape[1])));
        all.addAll(
            dev.kernelgen.lower.SplitHostDevice.split(
                    dev.kernelgen.lower.Lower.lower(
                        s,
                        op + "_" + k++,
                        dev.kernelgen.topi.OpSchedules.args(s),
                        Target.CUDA,
                        null))
                .kernels());
      }
    }
    String ptx =
        tc.compilePtx(dev.kernelgen.codegen.CudaCodegen.generate(all, "bench"), "compute_90");
    for (var f : all) {
      assertThat(ptx).contains(".entry " + f.name());
    }
    assertThat(ptx).contains("bar.warp.sync").contains("bar.sync");
  }

  /** The default configuration of an operator's space and the name of its threads knob. */
  /** The generated CUDA schedule of {@code out} at its defaults but {@code threads} per row. */
  private static Schedule withThreads(Tensor out, int threads) {
    ConfigSpaceHolder h = new ConfigSpaceHolder(out);
    Map<String, Integer> v = new TreeMap<>(h.defaults);
    v.put(h.threadsKnob, threads);
    return AutoScheduler.generate(Target.CUDA, List.of(out), Knobs.configured(v));
  }

  private static final class ConfigSpaceHolder {
    final Map<String, Integer> defaults;
    final String threadsKnob;

    ConfigSpaceHolder(Tensor out) {
      defaults = new TreeMap<>(AutoScheduler.space(Target.CUDA, List.of(out)).defaults().values());
      defaults.put(AutoScheduler.SKETCH, AutoScheduler.RULES);
      threadsKnob =
          defaults.keySet().stream()
              .filter(k -> k.endsWith("." + GpuRowReduction.THREADS))
              .findFirst()
              .orElseThrow();
    }
  }
}
