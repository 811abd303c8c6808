package dev.kernelgen.runtime.cuda;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.Checks;
import dev.kernelgen.runtime.Devices;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.util.Locale;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Looks for the process-wide CUDA GPU, once, when {@link Devices} first asks: the driver library,
 * {@code cuInit}, the device count and {@value Devices#CUDA_DEVICE_ENV}.
 */
public final class CudaProbe {
  private static final Devices.Probe PROBE = run();

  private CudaProbe() {}

  /** The GPU, shared by the process, or why there is none. */
  public static Devices.Probe probe() {
    return PROBE;
  }

  private static Devices.Probe run() {
    // Look for the driver library first: JCuda's own failure is a page of nested stack traces.
    String library = System.mapLibraryName("cuda") + (isLinux() ? ".1" : "");
    try (Arena arena = Arena.ofConfined()) {
      SymbolLookup.libraryLookup(library, arena);
    } catch (IllegalArgumentException e) {
      return unavailable(library + " not found (no NVIDIA driver on this machine)");
    } catch (Throwable t) {
      return unavailable("cannot look for " + library + ": " + Checks.firstLine(t));
    }
    try {
      int r = JCudaDriver.cuInit(0);
      if (r != CUresult.CUDA_SUCCESS) {
        return unavailable("cuInit failed: " + CUresult.stringFor(r));
      }
      int[] count = new int[1];
      r = JCudaDriver.cuDeviceGetCount(count);
      if (r != CUresult.CUDA_SUCCESS) {
        return unavailable("cuDeviceGetCount failed: " + CUresult.stringFor(r));
      }
      if (count[0] == 0) {
        return unavailable("the CUDA driver sees no devices");
      }
      int ordinal = 0;
      String env = System.getenv(Devices.CUDA_DEVICE_ENV);
      if (env != null && !env.isBlank()) {
        try {
          ordinal = Integer.parseInt(env.strip());
        } catch (NumberFormatException e) {
          return unavailable(Devices.CUDA_DEVICE_ENV + "=" + env + " is not an ordinal");
        }
        if (ordinal < 0 || ordinal >= count[0]) {
          return unavailable(
              Devices.CUDA_DEVICE_ENV + "=" + ordinal + " but there are " + count[0] + " GPU(s)");
        }
      }
      CudaDevice device = CudaDevice.open(ordinal);
      device.markShared();
      return Devices.Probe.found(Target.CUDA, device);
    } catch (Throwable t) {
      // UnsatisfiedLinkError from JCuda's natives, NoClassDefFoundError after it, DeviceException.
      return unavailable("JCuda: " + jcudaReason(t));
    }
  }

  private static String jcudaReason(Throwable t) {
    String m = String.valueOf(t.getMessage());
    for (String line : m.split("\n")) {
      if (line.contains("cannot open shared object file")) {
        return Checks.firstLine(t) + ": " + line.substring(line.indexOf(':') + 1).strip();
      }
    }
    return t.getClass().getSimpleName() + ": " + Checks.firstLine(t);
  }

  private static Devices.Probe unavailable(String reason) {
    return Devices.Probe.missing(Target.CUDA, reason);
  }

  private static boolean isLinux() {
    return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
  }
}
