package dev.kernelgen.topi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.codegen.OpenClCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Every library operator with its fused GPU schedule and the tuned-free default schedules of {@link
 * OpSchedules}, printed as CUDA C and compiled by nvcc (skipped where there is no nvcc); OpenCL C
 * is printed for all of them (run on PoCL in samples/gpu-bench).
 */
class OpsCudaCompileTest {
  static List<PrimFunc> kernels(Target t) {
    List<PrimFunc> all = new ArrayList<>();
    for (Ops op : Ops.all()) {
      Schedule s = Fusion.schedule(t, op.outputs());
      all.addAll(lower(s, "op_" + op.name(), t));
    }
    for (var e : OpSchedules.gpuSamples().entrySet()) {
      all.addAll(lower(e.getValue(), e.getKey(), t));
    }
    return all;
  }

  static List<PrimFunc> lower(Schedule s, String name, Target t) {
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    return SplitHostDevice.split(Lower.lower(s, name, args, t, null)).kernels();
  }

  @Test
  void nvccCompilesEveryOperator() {
    List<PrimFunc> ks = kernels(Target.CUDA);
    String src = CudaCodegen.generate(ks, "ops");
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(
        tc.findNvcc().isPresent(), "nvcc not found on PATH or in /usr/local/cuda/bin: skipped");
    String ptx = tc.compilePtx(src, "compute_90");
    for (PrimFunc k : ks) {
      assertThat(ptx).contains(".entry " + k.name());
    }
  }

  @Test
  void openClPrintsEveryOperator() {
    List<PrimFunc> ks = kernels(Target.OPENCL);
    String src = OpenClCodegen.generate(ks, "ops");
    for (PrimFunc k : ks) {
      assertThat(src).contains("__kernel void " + k.name());
    }
  }
}
