package dev.kernelgen.runtime.cpu;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.backend.HostDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;

/**
 * This machine's CPU running C kernels: shared libraries extracted to a {@link NativeLibraryCache}
 * and called through the JDK's FFM API. Buffers are host memory that kernels read in place; a
 * kernel is one call (the generated C loops over the whole domain, in parallel where scheduled so)
 * and the launch geometry is ignored.
 */
public final class CpuDevice extends HostDevice {
  private final NativeLibraryCache cache;
  private final Linker linker = Linker.nativeLinker();

  /**
   * @param shared whether this is the process-wide device of {@link Devices}, which closing leaves
   *     open
   */
  CpuDevice(NativeLibraryCache cache, boolean shared) {
    super(shared);
    this.cache = cache;
  }

  /** A CPU device extracting libraries to {@link NativeLibraryCache#standard()}. */
  public static CpuDevice create() {
    return new CpuDevice(NativeLibraryCache.standard(), false);
  }

  /** A CPU device extracting libraries to the given cache. */
  public static CpuDevice create(NativeLibraryCache cache) {
    return new CpuDevice(cache, false);
  }

  @Override
  public Target target() {
    return Target.C;
  }

  @Override
  public String name() {
    return "CPU (C, "
        + System.getProperty("os.arch")
        + ", "
        + Runtime.getRuntime().availableProcessors()
        + " threads)";
  }

  @Override
  public KernelModule loadModule(KernelBinary binary) {
    if (!(binary instanceof KernelBinary.C c)) {
      throw new DeviceException(name() + " runs C kernels, not " + binary.describe());
    }
    lifecycle().checkOpen();
    KernelBinary.C.Library chosen = CpuIsa.select(c);
    byte[] lib = chosen.bytes();
    if (isLinux()
        && !(lib.length > 4 && lib[0] == 0x7f && lib[1] == 'E' && lib[2] == 'L' && lib[3] == 'F')) {
      // Caught before dlopen, which would fail less clearly (and make the JVM warn about stacks).
      throw new DeviceException(
          name() + ": cannot load C kernel library " + c.name() + ": not an ELF shared library");
    }
    Path file = cache.extract(lib, chosen.sha256());
    // Loaded for the life of the process, never unloaded: kernels built with OpenMP pull in
    // libgomp, whose idle worker threads crash if the library is unmapped (dlclose) under them.
    Arena arena = Arena.global();
    try {
      SymbolLookup lookup = SymbolLookup.libraryLookup(file, arena);
      return new CModule(this, lifecycle(), c.name(), file, arena, lookup);
    } catch (IllegalArgumentException e) {
      throw new DeviceException(
          name()
              + ": cannot load C kernel library "
              + c.name()
              + " ("
              + chosen.isaLevel()
              + ") from "
              + file
              + ": "
              + e.getMessage()
              + ElfNeeded.missingDependencies(lib),
          e);
    }
  }

  Linker linker() {
    return linker;
  }

  private static boolean isLinux() {
    return System.getProperty("os.name", "").startsWith("Linux");
  }

  /**
   * Exported by a C module whose kernels return a status: 0, the bytes of a temporary they could
   * not allocate, -1 for an integer division by zero, or -2 for an index read from a tensor that
   * leaves the tensor it indexes (kernelgen's generated C).
   */
  static final String STATUS_ABI_SYMBOL = "kernelgen_status_abi";
}
