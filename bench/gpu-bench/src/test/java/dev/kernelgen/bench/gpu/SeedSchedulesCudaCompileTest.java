package dev.kernelgen.bench.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.bench.Padding;
import dev.kernelgen.bench.Workload;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.DepthwiseSchedules.DirectConfig;
import dev.kernelgen.topi.DepthwiseSchedules.GpuConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every seed kernel, generated as CUDA C, compiles with nvcc to PTX and an sm_90 cubin. */
class SeedSchedulesCudaCompileTest {
  @Test
  void seedKernelsCompileWithNvcc() throws Exception {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    assumeTrue(
        tc.findNvcc().isPresent(),
        "nvcc not found on the PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin");
    SeedSchedules s = SeedSchedules.of(Workload.of(1, 256, 96, 96, 1, 3, 1, Padding.SAME));
    Path dir = Path.of("target", "cuda");
    Files.createDirectories(dir);
    compile(tc, dir, "step1", s.step1(), s.plainArgs());
    compile(tc, dir, "plain", s.plain(GpuConfig.seed()), s.plainArgs());
    compile(tc, dir, "plain_vthread", s.plain(new GpuConfig(32, 32, 8, 8, 2, 2)), s.plainArgs());
    compile(tc, dir, "fused", s.fused(GpuConfig.seed()), s.fusedArgs());
    compile(tc, dir, "plain_direct", s.plainDirect(new DirectConfig(8, 4, 32)), s.plainArgs());
    compile(tc, dir, "fused_direct", s.fusedDirect(new DirectConfig(8, 4, 32)), s.fusedArgs());
  }

  private static void compile(
      NativeToolchain tc, Path dir, String name, Schedule s, List<Tensor> args) throws Exception {
    SplitHostDevice.DeviceModule m =
        SplitHostDevice.split(Lower.lower(s, name, args, Target.CUDA, null));
    assertThat(m.kernels()).hasSize(1);
    String src = CudaCodegen.generate(m.kernels(), name);
    Files.writeString(dir.resolve(name + ".cu"), src);
    String ptx = tc.compilePtx(src, "compute_90");
    assertThat(ptx).contains(".entry " + name);
    assertThat(tc.compileCubin(src, "sm_90")).isNotEmpty();
  }
}
