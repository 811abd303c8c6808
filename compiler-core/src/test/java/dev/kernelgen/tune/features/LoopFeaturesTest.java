package dev.kernelgen.tune.features;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.TuneTasks;
import dev.kernelgen.tune.TuningTask;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

@Isolated("asserts the features' cost per candidate")
class LoopFeaturesTest {

  private static double f(double[] x, String name) {
    return x[LoopFeatures.NAMES.indexOf(name)];
  }

  private static double log2p1(double v) {
    return Math.log(1 + v) / Math.log(2);
  }

  @Test
  void namesAreDistinctAndSizeIsFixed() {
    assertThat(LoopFeatures.SIZE).isEqualTo(64);
    assertThat(new HashSet<>(LoopFeatures.NAMES)).hasSize(LoopFeatures.SIZE);
  }

  @Test
  void theNaiveMatmulCountsOneFmaPerStepAndItsMemory() {
    TuningTask t = TuneTasks.matmul(32, 16, 8, Target.C);
    Schedule naive = Schedule.create(t.def().outputs());
    double[] x = LoopFeatures.of(t.lower(naive));
    assertThat(x).hasSize(LoopFeatures.SIZE);
    // 32 * 8 outputs, 16 reduction steps each: one multiply-add per step.
    assertThat(f(x, "f_fma"))
        .isCloseTo(log2p1(32 * 8 * 16), org.assertj.core.data.Offset.offset(1e-9));
    assertThat(f(x, "f_mul")).isZero();
    assertThat(f(x, "flops"))
        .isCloseTo(log2p1(2.0 * 32 * 8 * 16), org.assertj.core.data.Offset.offset(1e-9));
    assertThat(f(x, "vector")).isZero();
    assertThat(f(x, "parallel")).isZero();
    assertThat(f(x, "kernels")).isEqualTo(1);
    assertThat(f(x, "store_global")).isEqualTo(1);
    // Footprints add up per access: A (32x16) and B (16x8) read, C (32x8) set to 0, then read and
    // written by the update; 4 bytes each.
    assertThat(f(x, "global_footprint"))
        .isCloseTo(
            log2p1(4.0 * (32 * 16 + 16 * 8 + 3 * 32 * 8)),
            org.assertj.core.data.Offset.offset(0.05));
    // The innermost loop (k) reads A contiguously and B with stride 8: not all contiguous.
    assertThat(f(x, "global_contiguous")).isStrictlyBetween(0.0, 1.0);
    assertThat(f(x, "max_depth")).isGreaterThanOrEqualTo(3);
  }

  @Test
  void theTemplatesKnobsShowInVectorUnrollParallelAndFootprints() {
    TuningTask t = TuneTasks.matmul(128, 128, 128, Target.C);
    ConfigSpace s = t.space();
    double[] a = LoopFeatures.of(t.lower(t.schedule(s.defaults())));
    Configuration narrow = Configuration.of(Map.of("tile_i", 2, "tile_j", 16, "tile_k", 4));
    double[] b = LoopFeatures.of(t.lower(t.schedule(narrow)));
    // Default tile_j = 64: the accumulator's columns are vectorized by 64; tile_j = 16 by 16.
    assertThat(f(a, "vector")).isEqualTo(6.0);
    assertThat(f(b, "vector")).isEqualTo(4.0);
    assertThat(f(a, "inner_vectorized")).isEqualTo(1);
    // Column panels of B run in parallel: 128 / 64 and 128 / 16 of them.
    assertThat(f(a, "parallel")).isEqualTo(1.0);
    assertThat(f(b, "parallel")).isEqualTo(3.0);
    // Unrolling: tile_i rows times tile_k steps.
    assertThat(f(a, "unroll")).isGreaterThan(f(b, "unroll") - 1e-9);
    assertThat(f(a, "local_alloc_bytes")).isGreaterThan(f(b, "local_alloc_bytes"));
    // Same operator: the same work.
    assertThat(f(a, "flops")).isCloseTo(f(b, "flops"), org.assertj.core.data.Offset.offset(0.01));
    // Every configuration of the space has its own vector.
    Set<String> distinct = new HashSet<>();
    for (long i = 0; i < s.size(); i++) {
      distinct.add(java.util.Arrays.toString(LoopFeatures.of(t.lower(t.schedule(s.get(i))))));
    }
    assertThat(distinct.size()).isGreaterThan((int) s.size() * 3 / 4);
  }

  @Test
  void gpuKernelsReportLaunchGeometryAndSharedMemory() {
    TuningTask t = TuneTasks.matmul(256, 256, 256, Target.CUDA);
    double[] x = LoopFeatures.of(t.lower(t.schedule(t.space().defaults())));
    assertThat(f(x, "kernels")).isEqualTo(1);
    assertThat(f(x, "blocks")).isGreaterThan(1);
    assertThat(f(x, "threads")).isGreaterThan(log2p1(31));
    assertThat(f(x, "shared_bytes")).isGreaterThan(log2p1(1023));
    assertThat(f(x, "block")).isGreaterThan(0);
    assertThat(f(x, "thread")).isGreaterThan(0);
    assertThat(f(x, "shared_accessed")).isGreaterThan(0);
  }

  @Test
  void eachGpuKernelCounts() {
    // The GPU matmul template makes the elementwise epilogue a second kernel.
    Tensor a = placeholder("A", FLOAT32, 128, 128);
    Tensor b = placeholder("B", FLOAT32, 128, 128);
    Tensor out = Nn.relu(Linalg.matmul(a, b));
    Schedule s = OpSchedules.defaultSchedule(Target.CUDA, out, Knobs.defaults());
    double[] x = LoopFeatures.of(Lower.lower(s, "mm_relu", List.of(a, b, out), Target.CUDA, null));
    assertThat(f(x, "kernels")).isEqualTo(2);
  }

  @Test
  void featuresTakeAFewMillisecondsPerCandidate() {
    TuningTask t = TuneTasks.matmul(1024, 1024, 1024, Target.C);
    ConfigSpace s = t.space();
    for (int i = 0; i < 8; i++) {
      LoopFeatures.of(t.lower(t.schedule(s.get(i)))); // warm up the JIT
    }
    long start = System.nanoTime();
    int n = 32;
    for (int i = 0; i < n; i++) {
      LoopFeatures.of(t.lower(t.schedule(s.get(i))));
    }
    double msEach = (System.nanoTime() - start) / 1e6 / n;
    var lowered = t.lower(t.schedule(s.defaults()));
    long walk = System.nanoTime();
    for (int i = 0; i < n; i++) {
      LoopFeatures.of(lowered);
    }
    double walkMs = (System.nanoTime() - walk) / 1e6 / n;
    System.out.printf(
        "1024^3 matmul candidate: lowering + features %.2f ms, the features alone %.3f ms%n",
        msEach, walkMs);
    assertThat(walkMs).isLessThan(msEach);
    // Generous for a loaded two-core machine; typically a few ms.
    assertThat(msEach).as("ms per candidate (lower + features)").isLessThan(50);
  }
}
