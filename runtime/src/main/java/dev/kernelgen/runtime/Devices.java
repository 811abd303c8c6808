package dev.kernelgen.runtime;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.java.JavaDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.util.List;
import java.util.Optional;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Finds the devices of this machine. Each backend is probed once, lazily and on its own (a holder
 * class per backend): asking for C or Java never loads JCuda or JOCL, so an application that runs C
 * kernels never loads the GPU driver and its signal handlers. A failed probe keeps its reason (no
 * {@code libcuda}, no OpenCL ICD, no devices) for {@link #describe()} and for test skip messages.
 * The devices handed out live as long as the JVM.
 *
 * <p>{@code KERNELGEN_CUDA_DEVICE} picks the CUDA GPU by ordinal; {@code KERNELGEN_OPENCL_DEVICE}
 * the OpenCL device by a substring of its name.
 */
public final class Devices {
  /** Environment variable with the ordinal of the CUDA GPU to use (default 0). */
  public static final String CUDA_DEVICE_ENV = "KERNELGEN_CUDA_DEVICE";

  private Devices() {}

  /** The outcome of probing one backend: the device, or why there is none. */
  public record Probe(Target target, Optional<Device> device, String detail) {
    public boolean available() {
      return device.isPresent();
    }

    @Override
    public String toString() {
      return target
          + ": "
          + device.map(d -> "available, " + d.name()).orElse("unavailable, " + detail);
    }
  }

  private static final class CudaProbe {
    static final Probe PROBE = probeCuda();
  }

  private static final class OpenClProbe {
    static final Probe PROBE = probeOpenCl();
  }

  private static final class CProbe {
    static final Probe PROBE = probeC();
  }

  private static final class JavaProbe {
    static final Probe PROBE = new Probe(Target.JAVA, Optional.of(JavaDevice.instance()), "");
  }

  /**
   * The fastest device available: CUDA, then an OpenCL GPU, then C on the CPU, then Java. An OpenCL
   * device that is itself the CPU (PoCL, say) comes after C: the generated C runs the same
   * processor without a driver in between, and faster (about 3x on the seed here).
   */
  public static Device best() {
    return ranked().getFirst();
  }

  /** The devices available, fastest first (see {@link #best}); Java is always there. */
  public static List<Device> ranked() {
    return ranked(List.of(Target.values()));
  }

  /**
   * The devices of {@code targets} that are available, fastest first (see {@link #best}); probes
   * only these targets.
   */
  public static List<Device> ranked(java.util.Collection<Target> targets) {
    List<Device> first = new java.util.ArrayList<>();
    List<Device> last = new java.util.ArrayList<>();
    for (Target t : List.of(Target.CUDA, Target.OPENCL, Target.C, Target.JAVA)) {
      if (targets.contains(t)) {
        // The cast only where the target is OpenCL: C and Java never load JOCL's classes.
        probe(t)
            .device()
            .ifPresent(
                d -> (t == Target.OPENCL && !((OpenClDevice) d).isGpu() ? last : first).add(d));
      }
    }
    // The CPU's OpenCL device goes just before Java (after C).
    boolean java = !first.isEmpty() && first.getLast().target() == Target.JAVA;
    first.addAll(java ? first.size() - 1 : first.size(), last);
    return first;
  }

  /** All probes in order of preference. */
  public static List<Probe> probes() {
    return List.of(CudaProbe.PROBE, OpenClProbe.PROBE, CProbe.PROBE, JavaProbe.PROBE);
  }

  /** The probe of one target. */
  public static Probe probe(Target target) {
    return switch (target) {
      case CUDA -> CudaProbe.PROBE;
      case OPENCL -> OpenClProbe.PROBE;
      case C -> CProbe.PROBE;
      case JAVA -> JavaProbe.PROBE;
    };
  }

  /** The device of a target, if its probe found one. */
  public static Optional<Device> forTarget(Target target) {
    return probe(target).device();
  }

  public static Optional<CudaDevice> cuda() {
    return CudaProbe.PROBE.device().map(CudaDevice.class::cast);
  }

  public static Optional<OpenClDevice> openCl() {
    return OpenClProbe.PROBE.device().map(OpenClDevice.class::cast);
  }

  public static Optional<CpuDevice> cpu() {
    return CProbe.PROBE.device().map(CpuDevice.class::cast);
  }

  public static JavaDevice java() {
    return JavaDevice.instance();
  }

  /** One line per probe: what was found, or why not. */
  public static String describe() {
    StringBuilder sb = new StringBuilder();
    for (Probe p : probes()) {
      sb.append(p).append('\n');
    }
    return sb.toString();
  }

  private static Probe probeCuda() {
    // Look for the driver library first: JCuda's own failure is a page of nested stack traces.
    String library = System.mapLibraryName("cuda") + (isLinux() ? ".1" : "");
    try (Arena arena = Arena.ofConfined()) {
      SymbolLookup.libraryLookup(library, arena);
    } catch (IllegalArgumentException e) {
      return unavailable(Target.CUDA, library + " not found (no NVIDIA driver on this machine)");
    } catch (Throwable t) {
      return unavailable(Target.CUDA, "cannot look for " + library + ": " + Checks.firstLine(t));
    }
    try {
      int r = JCudaDriver.cuInit(0);
      if (r != CUresult.CUDA_SUCCESS) {
        return unavailable(Target.CUDA, "cuInit failed: " + CUresult.stringFor(r));
      }
      int[] count = new int[1];
      r = JCudaDriver.cuDeviceGetCount(count);
      if (r != CUresult.CUDA_SUCCESS) {
        return unavailable(Target.CUDA, "cuDeviceGetCount failed: " + CUresult.stringFor(r));
      }
      if (count[0] == 0) {
        return unavailable(Target.CUDA, "the CUDA driver sees no devices");
      }
      int ordinal = 0;
      String env = System.getenv(CUDA_DEVICE_ENV);
      if (env != null && !env.isBlank()) {
        try {
          ordinal = Integer.parseInt(env.strip());
        } catch (NumberFormatException e) {
          return unavailable(Target.CUDA, CUDA_DEVICE_ENV + "=" + env + " is not an ordinal");
        }
        if (ordinal < 0 || ordinal >= count[0]) {
          return unavailable(
              Target.CUDA,
              CUDA_DEVICE_ENV + "=" + ordinal + " but there are " + count[0] + " GPU(s)");
        }
      }
      CudaDevice device = CudaDevice.open(ordinal);
      device.markShared();
      return new Probe(Target.CUDA, Optional.of(device), "");
    } catch (Throwable t) {
      // UnsatisfiedLinkError from JCuda's natives, NoClassDefFoundError after it, DeviceException.
      return unavailable(Target.CUDA, "JCuda: " + jcudaReason(t));
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

  private static Probe probeOpenCl() {
    try {
      OpenClDevice.Result<OpenClDevice> r =
          OpenClDevice.choose(System.getenv(OpenClDevice.DEVICE_ENV));
      r.value().ifPresent(OpenClDevice::markShared);
      return r.value().isPresent()
          ? new Probe(Target.OPENCL, Optional.of(r.value().get()), "")
          : unavailable(Target.OPENCL, r.reason());
    } catch (Throwable t) {
      return unavailable(
          Target.OPENCL, "JOCL: " + t.getClass().getSimpleName() + ": " + Checks.firstLine(t));
    }
  }

  private static Probe probeC() {
    try {
      CpuDevice cpu = CpuDevice.create();
      // Native access must be allowed; a call into libc tells.
      java.lang.foreign.Linker.nativeLinker().defaultLookup().find("strlen").orElseThrow();
      cpu.markShared();
      return new Probe(Target.C, Optional.of(cpu), "");
    } catch (Throwable t) {
      return unavailable(
          Target.C, "FFM: " + t.getClass().getSimpleName() + ": " + Checks.firstLine(t));
    }
  }

  private static Probe unavailable(Target target, String reason) {
    return new Probe(target, Optional.empty(), reason);
  }

  private static boolean isLinux() {
    return System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux");
  }
}
