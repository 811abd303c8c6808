package dev.kernelgen.measure;

import dev.kernelgen.autosched.VectorUnit;
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
   * As above, of C {@code source} already printed; {@code name} names the module. Compiled for the
   * ISA level whose library the runtime would load here ({@code -Dkernelgen.cpu.maxIsa} capping
   * it), so that a benchmark measures the code that ships; {@code -march=native} only off the psABI
   * levels.
   */
  public static KernelBinary.C cLibrary(NativeToolchain tc, String source, String name) {
    try {
      Path lib = Files.createTempFile("kernelgen-bench", ".so");
      try {
        Optional<String> capped = libraryLevel();
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
   * The ISA level {@link #cLibrary(NativeToolchain, String, String)} compiles for: the cap of
   * {@code -Dkernelgen.cpu.maxIsa} where it is below this CPU's level, else the psABI level whose
   * library the runtime loads on this CPU (x86-64-v2 to v4); empty off x86-64 or below v2, where
   * {@code -march=native} is used. Not native elsewhere: its tuning can differ from the level's (on
   * a Rocket Lake-tuned Xeon gcc's native code prefers 256-bit vectors, the v4 library 512-bit
   * ones).
   */
  public static Optional<String> libraryLevel() {
    return CpuIsa.cappedLevel()
        .or(
            () ->
                CpuIsa.machineLevel() >= 2
                    ? Optional.of(CpuIsa.machineLevelName())
                    : Optional.empty());
  }

  /**
   * The vector unit of {@link #libraryLevel()}: what an untuned C pick measured here is sized for,
   * as {@code generate} sizes that level's library ({@link VectorUnit#ofIsaLevel}).
   */
  public static VectorUnit vectorUnit() {
    return VectorUnit.ofIsaLevel(libraryLevel().orElse("native"));
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
