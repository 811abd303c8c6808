package dev.kernelgen.runtime.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.backend.Sha256;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Which GPUs a fatbin runs on, and the error where it runs on none. */
class CudaFatbinTest {
  static KernelBinary.Cuda.Fatbin fatbin(String... archs) {
    byte[] bytes = {1, 2, 3};
    return new KernelBinary.Cuda.Fatbin(bytes, Sha256.of(bytes), List.of(archs));
  }

  @Test
  void sassRunsOnItsMajorVersionAndPtxOnEveryNewerGpu() {
    KernelBinary.Cuda.Fatbin f = fatbin("sm_80", "sm_90", "compute_90");
    assertThat(f.runsOn(80)).isTrue();
    assertThat(f.runsOn(86)).as("sm_80 SASS on an 8.6 GPU").isTrue();
    assertThat(f.runsOn(90)).isTrue();
    assertThat(f.runsOn(100)).as("compute_90 PTX, compiled by the driver").isTrue();
    assertThat(f.runsOn(75)).isFalse();
    KernelBinary.Cuda.Fatbin sassOnly = fatbin("sm_90");
    assertThat(sassOnly.runsOn(100)).isFalse();
    assertThat(sassOnly.runsOn(89)).isFalse();
  }

  @Test
  void aFatbinWithoutCodeForTheGpuNamesItsComputeCapabilityAndWhatItHolds() {
    Optional<CudaDevice> gpu = Devices.cuda();
    Assumptions.assumeTrue(gpu.isPresent(), "no CUDA device: " + Devices.describe());
    int sm = gpu.get().smVersion();
    var binary = KernelBinary.Cuda.fatbin("old", fatbin("sm_10"));
    assertThatThrownBy(() -> gpu.get().loadModule(binary))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("compute capability " + sm / 10 + "." + sm % 10)
        .hasMessageContaining("[sm_10]");
    byte[] bytes = {1};
    var damaged =
        KernelBinary.Cuda.fatbin(
            "damaged",
            new KernelBinary.Cuda.Fatbin(bytes, Sha256.of(new byte[] {2}), List.of("sm_" + sm)));
    assertThatThrownBy(() -> gpu.get().loadModule(damaged))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("is damaged");
  }
}
