package dev.kernelgen.runtime;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.cpu.CpuDevice;
import dev.kernelgen.runtime.cpu.CpuProbe;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.runtime.cuda.CudaProbe;
import dev.kernelgen.runtime.java.JavaDevice;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.runtime.opencl.OpenClProbe;
import java.util.List;
import java.util.Optional;

/**
 * Finds the devices of this machine. Each backend is probed once, lazily and on its own (a probe
 * class per backend package): asking for C or Java never loads JCuda or JOCL, so an application
 * that runs C kernels never loads the GPU driver and its signal handlers. A failed probe keeps its
 * reason (no {@code libcuda}, no OpenCL ICD, no devices) for {@link #describe()} and for test skip
 * messages. The devices handed out live as long as the JVM.
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
    /** A backend's probe that found {@code device}. */
    public static Probe found(Target target, Device device) {
      return new Probe(target, Optional.of(device), "");
    }

    /** A backend's probe that found nothing, and why. */
    public static Probe missing(Target target, String reason) {
      return new Probe(target, Optional.empty(), reason);
    }

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

  private static final class JavaProbe {
    static final Probe PROBE = Probe.found(Target.JAVA, JavaDevice.instance());
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
    return List.of(probe(Target.CUDA), probe(Target.OPENCL), probe(Target.C), probe(Target.JAVA));
  }

  /** The probe of one target. */
  public static Probe probe(Target target) {
    return switch (target) {
      // Each backend's probe class runs its probe once, when first asked: C and Java never load
      // the CUDA and OpenCL packages, nor JCuda and JOCL.
      case CUDA -> CudaProbe.probe();
      case OPENCL -> OpenClProbe.probe();
      case C -> CpuProbe.probe();
      case JAVA -> JavaProbe.PROBE;
    };
  }

  /** The device of a target, if its probe found one. */
  public static Optional<Device> forTarget(Target target) {
    return probe(target).device();
  }

  public static Optional<CudaDevice> cuda() {
    return CudaProbe.probe().device().map(CudaDevice.class::cast);
  }

  public static Optional<OpenClDevice> openCl() {
    return OpenClProbe.probe().device().map(OpenClDevice.class::cast);
  }

  public static Optional<CpuDevice> cpu() {
    return CpuProbe.probe().device().map(CpuDevice.class::cast);
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
}
