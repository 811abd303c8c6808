package dev.kernelgen.autosched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.codegen.OpenClCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Reduction;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Chains of reductions that the auto-scheduler puts in kernels of their own: each result between
 * two kernels is a temporary the host allocates, however deep the chain (the third kernel's
 * temporary used to be left inside the second kernel, which the printers refused as "allocated in
 * global memory outside of the thread loops").
 */
class ReductionChainGpuTest {
  /** {@code y = sum_k x[i, k]; z = max_i y[i]; w = sum z}: three reductions, three kernels. */
  static Tensor chainOfThree() {
    Tensor x = TE.placeholder("X", DType.FLOAT32, 37, 100);
    IterVar k = TE.reduceAxis(100, "k");
    Tensor y = TE.compute("Y", TE.shape(37), i -> TE.sum(x.at(i, k.var()), k));
    IterVar r = TE.reduceAxis(37, "r");
    Tensor z = TE.compute("Z", TE.shape(1), i -> TE.max(y.at(r.var()), r));
    IterVar r2 = TE.reduceAxis(1, "r2");
    return TE.compute("W", TE.shape(1), i -> TE.sum(z.at(r2.var()), r2));
  }

  /** The total of each row's variance, the variance computed from the row's mean. */
  static Tensor totalVariance() {
    Tensor x = TE.placeholder("X", DType.FLOAT32, 37, 100);
    Tensor mean = Reduction.mean(x, false, 1);
    IterVar k = TE.reduceAxis(100, "k");
    Tensor var =
        TE.compute(
            "Var",
            TE.shape(37),
            i -> {
              var d = x.at(i, k.var()).sub(mean.at(i));
              return TE.sum(d.mul(d), k);
            });
    IterVar r = TE.reduceAxis(37, "r");
    return TE.compute("Total", TE.shape(1), i -> TE.sum(var.at(r.var()), r));
  }

  @Test
  void everyTemporaryOfAChainIsHoistedAndTheKernelsPrint() {
    for (Tensor out : List.of(chainOfThree(), totalVariance())) {
      for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
        Schedule s = AutoScheduler.untuned(t, List.of(out));
        var dm = SplitHostDevice.split(Lower.lower(s, "chain", OpSchedules.args(s), t, null));
        // The variance's mean is computed in the variance's kernel (see below): two kernels.
        int kernels = out.name().equals("Total") ? 2 : 3;
        assertThat(dm.kernels()).as(out.name() + " " + t).hasSize(kernels);
        assertThat(dm.temporaries()).as(out.name()).hasSize(dm.kernels().size() - 1);
        String src =
            t == Target.CUDA
                ? CudaCodegen.generate(dm.kernels(), "m")
                : OpenClCodegen.generate(dm.kernels(), "m");
        assertThat(src).contains("chain_k" + (kernels - 1));
      }
    }
  }

  @Test
  void chainsEqualTheOracle() {
    GpuCheck.check(AutoScheduler.untuned(Target.CUDA, List.of(chainOfThree())), Map.of());
    GpuCheck.check(AutoScheduler.untuned(Target.CUDA, List.of(totalVariance())), Map.of());
  }

  @Test
  void nvccCompilesTheChains() {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(
        tc.findNvcc().isPresent(), "nvcc not found on PATH or in /usr/local/cuda/bin: skipped");
    for (Tensor out : List.of(chainOfThree(), totalVariance())) {
      Schedule s = AutoScheduler.untuned(Target.CUDA, List.of(out));
      var dm =
          SplitHostDevice.split(Lower.lower(s, "chain", OpSchedules.args(s), Target.CUDA, null));
      String ptx = tc.compilePtx(CudaCodegen.generate(dm.kernels(), "m"), "compute_90");
      assertThat(ptx).contains(".entry " + dm.kernels().getLast().name());
    }
  }

  /** A two-pass variance over the batch, as a user writes it: the mean, then the squares. */
  static Tensor varianceOverBatch(long batch, long n) {
    Tensor x = TE.placeholder("X", DType.FLOAT32, batch, n);
    IterVar b = TE.reduceAxis(batch, "b");
    Tensor mean =
        TE.compute("Mean", TE.shape(n), j -> TE.sum(x.at(b.var(), j), b).div((double) batch));
    IterVar b2 = TE.reduceAxis(batch, "b2");
    return TE.compute(
        "Variance",
        TE.shape(n),
        j -> {
          var d = x.at(b2.var(), j).sub(mean.at(j));
          return TE.sum(d.mul(d), b2).div((double) batch);
        });
  }

  @Test
  void aReductionReadAtItsReadersOwnIndexIsComputedInTheReadersThread() {
    // It had a kernel of its own whose result the next kernel read back: 3.2 us against the naive
    // kernel's 2.6 us at [64, 4096] on an H100.
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      for (long[] shape : new long[][] {{64, 4096}, {37, 1000}, {5, 3}}) {
        Schedule s = AutoScheduler.untuned(t, List.of(varianceOverBatch(shape[0], shape[1])));
        assertThat(s.trace().toString())
            .contains("s[Mean_sum].set_scope(local)")
            .contains("s[Mean_sum].compute_at(Variance,");
        var dm = SplitHostDevice.split(Lower.lower(s, "var", OpSchedules.args(s), t, null));
        assertThat(dm.kernels()).hasSize(1);
        GpuCheck.check(s, Map.of());
      }
    }
    // Read at another index (each output reads its neighbour's sum), the rules' sketch keeps it a
    // kernel of its own. (The untuned pick of so small an operator is the naive kernel, which
    // computes every producer in the thread that reads it, as the loop nest does.)
    Tensor x = TE.placeholder("X", DType.FLOAT32, 16, 100);
    IterVar b = TE.reduceAxis(16, "b");
    Tensor sums = TE.compute("Sums", TE.shape(100), j -> TE.sum(x.at(b.var(), j), b));
    IterVar b2 = TE.reduceAxis(16, "b2");
    Tensor shifted =
        TE.compute(
            "Shifted", TE.shape(99), j -> TE.sum(x.at(b2.var(), j).mul(sums.at(j.add(1))), b2));
    Schedule s =
        AutoScheduler.generate(
            Target.CUDA,
            List.of(shifted),
            dev.kernelgen.spec.Knobs.configured(Map.of(AutoScheduler.SKETCH, AutoScheduler.RULES)));
    assertThat(s.trace().toString()).doesNotContain("s[Sums].compute_at");
    GpuCheck.check(s, Map.of());
    GpuCheck.check(AutoScheduler.untuned(Target.CUDA, List.of(shifted)), Map.of());
  }
}
