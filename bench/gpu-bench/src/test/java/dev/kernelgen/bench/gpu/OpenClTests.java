package dev.kernelgen.bench.gpu;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import java.util.Optional;

/** The OpenCL device the OpenCL tests run on, or the test skipped saying why there is none. */
final class OpenClTests {
  private OpenClTests() {}

  /**
   * The process-wide OpenCL device ({@link Devices#openCl}); where there is none, aborts the test
   * with the probe's reason and what to install.
   */
  static OpenClDevice deviceOrSkip() {
    Optional<OpenClDevice> d = Devices.openCl();
    assumeTrue(
        d.isPresent(),
        "no OpenCL device found ("
            + Devices.probe(Target.OPENCL).detail()
            + "); install pocl-opencl-icd and ocl-icd-opencl-dev");
    return d.get();
  }
}
