package it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class GpuKernelsTest {
  @Test
  void oneFatbinIsEmbedded() throws Exception {
    ClassLoader cl = GpuKernels.class.getClassLoader();
    try (InputStream in = cl.getResourceAsStream("META-INF/kernels/GpuKernels/cuda/GpuKernels.fatbin")) {
      assertNotNull(in, "fatbin resource");
      assertTrue(in.readAllBytes().length > 0);
    }
    try (InputStream in = cl.getResourceAsStream("META-INF/kernels/GpuKernels/manifest.json")) {
      String manifest = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(manifest.contains("\"compute_90\""), manifest);
    }
  }

  @Test
  void runsOnOpenCl() {
    Assumptions.assumeTrue(Devices.openCl().isPresent(), Devices.describe());
    try (GpuKernels k = GpuKernels.load(Devices.openCl().get());
        HostTensor x = HostTensor.of(new float[] {1, 2, 3, 4, 5});
        HostTensor y = HostTensor.of(new float[] {1, 1, 1, 1, 1});
        HostTensor z = k.allocateScaleAddOutput(x, y)) {
      k.scaleAdd(x, y, z);
      assertArrayEquals(new float[] {3, 5, 7, 9, 11}, z.toFloatArray());
    }
  }
}
