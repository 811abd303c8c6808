package dev.kernelgen.bench.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.bench.Padding;
import dev.kernelgen.bench.Workload;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.topi.DepthwiseSchedules.GpuConfig;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuningTask;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The GPU bench's tuning task and measurer, run on an OpenCL device (PoCL in CI). */
class GpuTuningOpenClTest {
  private static OpenClDevice device;

  @BeforeAll
  static void open() {
    device = OpenClTests.deviceOrSkip();
  }

  @AfterAll
  static void close() {
    if (device != null) {
      device.close();
    }
  }

  @Test
  void wideBlocksAreCorrectAndBadOnesAreRejectedBeforeCompiling() {
    // Ragged against every block size: 70 rows, 150 columns.
    Workload w = Workload.of(1, 2, 70, 150, 1, 3, 1, Padding.SAME);
    for (boolean fused : new boolean[] {false, true}) {
      TuningTask t = GpuTuning.task(device, w, fused);
      assertThat(t.space().size()).isEqualTo(4 * 4 * 6 * 5 * 3 * 4);
      List<Configuration> batch = new ArrayList<>();
      for (GpuConfig c : GpuTuning.bandwidthCandidates()) {
        batch.add(GpuTuning.configuration(c));
      }
      batch.add(GpuTuning.configuration(GpuConfig.seed()));
      // Threads that do not divide the block, and too many threads per block.
      batch.add(GpuTuning.configuration(new GpuConfig(8, 16, 32, 4, 1, 1)));
      batch.add(GpuTuning.configuration(new GpuConfig(64, 128, 32, 64, 2, 2)));
      List<Measurement> ms = new GpuTuning.DeviceMeasurer(device, w, fused).measure(t, batch);
      for (int i = 0; i < batch.size() - 2; i++) {
        assertThat(ms.get(i).status()).as("%s", ms.get(i)).isEqualTo(Measurement.Status.OK);
      }
      assertThat(ms.get(batch.size() - 2).status()).isEqualTo(Measurement.Status.INVALID);
      assertThat(ms.get(batch.size() - 2).detail()).contains("do not divide the block");
      // 2048 threads: over the limit of most devices (PoCL allows 4096).
      Measurement big = ms.get(batch.size() - 1);
      if (device.maxWorkGroupSize() < 2048) {
        assertThat(big.status()).isEqualTo(Measurement.Status.INVALID);
        assertThat(big.detail()).contains("threads per block");
      } else {
        assertThat(big.status()).isEqualTo(Measurement.Status.OK);
      }
    }
  }
}
