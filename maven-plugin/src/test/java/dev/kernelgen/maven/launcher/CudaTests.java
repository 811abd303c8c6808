package dev.kernelgen.maven.launcher;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.cuda.CudaDevice;
import java.util.Optional;

/** The CUDA device the launcher tests run on, or the test skipped saying why there is none. */
final class CudaTests {
  private CudaTests() {}

  /** The process-wide CUDA device; where there is none, aborts the test with the probe's reason. */
  static CudaDevice deviceOrSkip() {
    Optional<CudaDevice> d = Devices.cuda();
    assumeTrue(d.isPresent(), "no CUDA device, skipped: " + Devices.probe(Target.CUDA).detail());
    return d.get();
  }
}
