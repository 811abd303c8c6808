package dev.kernelgen.runtime.opencl;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.Checks;
import dev.kernelgen.runtime.Devices;

/**
 * Looks for the process-wide OpenCL device, once, when {@link Devices} first asks, honoring {@value
 * OpenClDevice#DEVICE_ENV} (see {@link OpenClChoice}).
 */
public final class OpenClProbe {
  private static final Devices.Probe PROBE = run();

  private OpenClProbe() {}

  /** The device, shared by the process, or why there is none. */
  public static Devices.Probe probe() {
    return PROBE;
  }

  private static Devices.Probe run() {
    try {
      OpenClChoice.Result<OpenClDevice> r =
          OpenClChoice.choose(System.getenv(OpenClDevice.DEVICE_ENV));
      r.value().ifPresent(OpenClDevice::markShared);
      return r.value().isPresent()
          ? Devices.Probe.found(Target.OPENCL, r.value().get())
          : Devices.Probe.missing(Target.OPENCL, r.reason());
    } catch (Throwable t) {
      return Devices.Probe.missing(
          Target.OPENCL, "JOCL: " + t.getClass().getSimpleName() + ": " + Checks.firstLine(t));
    }
  }
}
