package dev.kernelgen.codegen;

import dev.kernelgen.diag.UserError;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The CUDA target's binaries, compiled by nvcc: PTX for a virtual architecture, a cubin for a real
 * one, and the fatbin that holds SASS for several architectures plus the newest one's PTX.
 */
final class CudaBuild {
  private CudaBuild() {}

  /** See {@link NativeToolchain#compileFatbin(String, List)}. */
  static NativeToolchain.Fatbin fatbin(NativeToolchain tc, String cudaSource, List<String> sms) {
    UserError.check(!sms.isEmpty(), "no CUDA architecture to build for (for example sm_90)");
    List<Integer> numbers = new ArrayList<>();
    for (String a : sms) {
      UserError.check(
          a.matches("(sm|compute)_[0-9]+"), "CUDA architecture '%s' is not of the form sm_90", a);
      int n = Integer.parseInt(a.substring(a.indexOf('_') + 1));
      if (!numbers.contains(n)) {
        numbers.add(n);
      }
    }
    numbers.sort(null);
    Path tool = tc.nvcc();
    Path dir = CompilerProcess.tempDir("kernelgen-nvcc");
    Path src = dir.resolve("kernels.cu");
    Path out = dir.resolve("kernels.fatbin");
    CompilerProcess.write(src, cudaSource);
    List<String> cmd = new ArrayList<>(List.of(tool.toString(), "-fatbin"));
    List<String> holds = new ArrayList<>();
    for (int n : numbers) {
      cmd.add("-gencode=arch=compute_" + n + ",code=sm_" + n);
      holds.add("sm_" + n);
    }
    int newest = numbers.getLast();
    cmd.add("-gencode=arch=compute_" + newest + ",code=compute_" + newest);
    holds.add("compute_" + newest);
    cmd.addAll(List.of(src.toString(), "-o", out.toString()));
    CompilerProcess.run(cmd, src, tc.timeoutSeconds());
    return new NativeToolchain.Fatbin(CompilerProcess.readAndDelete(out, dir), holds);
  }

  /**
   * One nvcc run for one architecture: {@code mode} {@code -ptx} (arch {@code compute_90}) or
   * {@code -cubin} (arch {@code sm_90}).
   */
  static byte[] single(
      NativeToolchain tc, String source, String mode, String arch, String outName) {
    UserError.check(
        arch.matches("(compute|sm)_[0-9]+[a-z]?"),
        "CUDA architecture '%s' is not of the form compute_90 or sm_90",
        arch);
    Path tool = tc.nvcc();
    Path dir = CompilerProcess.tempDir("kernelgen-nvcc");
    Path src = dir.resolve("kernels.cu");
    Path out = dir.resolve(outName);
    CompilerProcess.write(src, source);
    CompilerProcess.run(
        List.of(tool.toString(), mode, "-arch=" + arch, src.toString(), "-o", out.toString()),
        src,
        tc.timeoutSeconds());
    return CompilerProcess.readAndDelete(out, dir);
  }
}
