package dev.kernelgen.measure;

import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.tir.PrimFunc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

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

  /** As above, of C {@code source} already printed; {@code name} names the module. */
  public static KernelBinary.C cLibrary(NativeToolchain tc, String source, String name) {
    try {
      Path lib = Files.createTempFile("kernelgen-bench", ".so");
      try {
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
