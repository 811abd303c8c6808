package dev.kernelgen.measure;

import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.backend.Sha256;
import dev.kernelgen.runtime.cpu.CpuIsa;
import dev.kernelgen.tir.PrimFunc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Loadable modules compiled from source for a benchmark that loads, checks and times them itself
 * (against its peers, under its own loop): the one place outside the tuner's {@link Builder} where
 * the benchmarks compile kernels. The shipped libraries are the driver's ({@code ModuleEmitter}).
 */
public final class Modules {
  private Modules() {}

  /**
   * A C module of {@code funcs} for this machine's CPU: {@code cc} with the toolchain's flags, a
   * shared library the runtime's CPU device loads.
   */
  public static KernelBinary.C cLibrary(NativeToolchain tc, List<PrimFunc> funcs, String module) {
    return cLibrary(tc, CCodegen.generate(funcs, module), funcs.get(0).name());
  }

  /**
   * As above, of C {@code source} already printed; {@code name} names the module. Under {@code
   * -Dkernelgen.cpu.maxIsa} below this CPU's level, compiled for the capped level instead of {@code
   * -march=native}, so that a capped run measures that level's code.
   */
  public static KernelBinary.C cLibrary(NativeToolchain tc, String source, String name) {
    try {
      Path lib = Files.createTempFile("kernelgen-bench", ".so");
      try {
        Optional<String> capped = CpuIsa.cappedLevel();
        if (capped.isPresent()) {
          tc.compileSharedLibrary(source, lib, capped.get());
          byte[] bytes = Files.readAllBytes(lib);
          return new KernelBinary.C(
              name, List.of(new KernelBinary.C.Library(capped.get(), bytes, Sha256.of(bytes))));
        }
        tc.compileSharedLibrary(source, lib);
        return new KernelBinary.C(name, Files.readAllBytes(lib));
      } finally {
        Files.deleteIfExists(lib);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A CUDA module of {@code source}: PTX for {@code compute_<sm>} (which the driver compiles for a
   * newer GPU) and a cubin for {@code sm_<sm>}.
   */
  public static KernelBinary.Cuda cuda(NativeToolchain tc, String name, String source, int sm) {
    String ptx = tc.compilePtx(source, "compute_" + sm);
    byte[] cubin = tc.compileCubin(source, "sm_" + sm);
    return new KernelBinary.Cuda(name, Map.of(sm, cubin), ptx);
  }
}
