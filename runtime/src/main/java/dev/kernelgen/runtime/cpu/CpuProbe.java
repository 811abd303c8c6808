package dev.kernelgen.runtime.cpu;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.Checks;
import dev.kernelgen.runtime.Devices;
import java.lang.foreign.Linker;

/**
 * Looks for C on this machine's CPU, once, when {@link Devices} first asks: FFM must be allowed.
 */
public final class CpuProbe {
  private static final Devices.Probe PROBE = run();

  private CpuProbe() {}

  /** The CPU device, shared by the process, or why C kernels cannot run. */
  public static Devices.Probe probe() {
    return PROBE;
  }

  private static Devices.Probe run() {
    try {
      CpuDevice cpu = new CpuDevice(NativeLibraryCache.standard(), true);
      // Native access must be allowed; a call into libc tells.
      Linker.nativeLinker().defaultLookup().find("strlen").orElseThrow();
      return Devices.Probe.found(Target.C, cpu);
    } catch (Throwable t) {
      return Devices.Probe.missing(
          Target.C, "FFM: " + t.getClass().getSimpleName() + ": " + Checks.firstLine(t));
    }
  }
}
