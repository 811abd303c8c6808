package dev.kernelgen.autosched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.OpSchedules;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The CUDA picks and floors of the generated schedules compile with nvcc (sm_90 PTX). */
class GeneratedCudaCompileTest {
  @Test
  void nvccCompilesEveryPickAndFloor() {
    List<PrimFunc> ks = new ArrayList<>();
    List<Workloads> ws = new ArrayList<>(Workloads.all());
    ws.add(Workloads.symbolicDense());
    ws.add(Workloads.symbolicBlock());
    for (Workloads w : ws) {
      Schedule pick = AutoScheduler.untuned(Target.CUDA, w.outputs());
      ks.addAll(lower(pick, "pick_" + w.name()));
      if (w.dims().isEmpty()) {
        Schedule floor =
            AutoScheduler.generate(
                Target.CUDA,
                w.outputs(),
                Knobs.configured(Map.of(AutoScheduler.SKETCH, AutoScheduler.NAIVE)),
                SketchRules.defaults(),
                Map.of());
        ks.addAll(lower(floor, "floor_" + w.name()));
      }
    }
    String src = CudaCodegen.generate(ks, "generated");
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(
        tc.findNvcc().isPresent(), "nvcc not found on PATH or in /usr/local/cuda/bin: skipped");
    String ptx = tc.compilePtx(src, "compute_90");
    for (PrimFunc k : ks) {
      assertThat(ptx).contains(".entry " + k.name());
    }
  }

  private static List<PrimFunc> lower(Schedule s, String name) {
    return SplitHostDevice.split(Lower.lower(s, name, OpSchedules.args(s), Target.CUDA, null))
        .kernels();
  }
}
