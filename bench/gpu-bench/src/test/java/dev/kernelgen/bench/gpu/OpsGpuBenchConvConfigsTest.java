package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Padding;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code OpsGpuBench}'s checks of the default schedules, and {@code --conv-configs}: parsing the
 * settings and timing them on a small conv2d.
 */
class OpsGpuBenchConvConfigsTest {
  @Test
  void parsesCandidatesAndExplicitSettings() {
    assertThat(OpsGpuBench.convConfigs(null)).isEmpty();
    assertThat(OpsGpuBench.convConfigs("candidates")).isEqualTo(OpSchedules.conv2dGpuCandidates());
    assertThat(OpsGpuBench.convConfigs("tile_f=4, threads_f=2;tile_c=1"))
        .containsExactly(Map.of("tile_f", 4, "threads_f", 2), Map.of("tile_c", 1));
  }

  @Test
  void checksOfTheDefaultSchedulesPass() {
    OpenClDevice d = OpenClTests.deviceOrSkip();
    // 11 library and generated checks, and the conv + batch norm + swish sample's two.
    assertThat(OpsGpuBench.checks(d)).hasSize(13);
  }

  @Test
  void timesEachSettingAndReportsTheOnesThatFail() {
    OpenClDevice d = OpenClTests.deviceOrSkip();
    Tensor in = placeholder("Input", FLOAT32, 1, 3, 6, 5);
    Tensor f = placeholder("Filter", FLOAT32, 4, 3, 3, 3);
    Tensor conv = Conv.conv2dNchw(in, f, 1, 1, new Padding(1, 1, 1, 1), 1);
    OpsGpuBench.Case c =
        new OpsGpuBench.Case(
            "conv2d_small",
            OperatorDef.of(List.of(in, f), conv),
            2.0 * 4 * 6 * 5 * 3 * 9,
            (ins, flat) -> {
              int x = (int) (flat % 5);
              int y = (int) (flat / 5 % 6);
              int ff = (int) (flat / 30);
              double s = 0;
              for (int cc = 0; cc < 3; cc++) {
                for (int di = 0; di < 3; di++) {
                  for (int dj = 0; dj < 3; dj++) {
                    int iy = y + di - 1;
                    int ix = x + dj - 1;
                    if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) {
                      s +=
                          (double) ins.get(0)[(cc * 6 + iy) * 5 + ix]
                              * ins.get(1)[((ff * 3 + cc) * 3 + di) * 3 + dj];
                    }
                  }
                }
              }
              return s;
            });
    List<Object> timed = new ArrayList<>();
    String table =
        OpsGpuBench.timeConfigs(
            d, c, OpsGpuBench.convConfigs("tile_f=2,threads_f=2,threads_w=4;tile_f=3"), timed);
    assertThat(timed).hasSize(2);
    assertThat(table).contains("conv2d_small: default").contains("tile_f=2").contains("failed");
  }
}
