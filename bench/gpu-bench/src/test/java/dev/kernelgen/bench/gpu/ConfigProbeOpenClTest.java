package dev.kernelgen.bench.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.tune.Measurement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link ConfigProbe} on an OpenCL device (PoCL in CI), at the small fused depthwise. */
class ConfigProbeOpenClTest {
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
  void measuresTheUntunedPickAndGivenSettingsAgainstTheOracle() {
    String window =
        "sketch=0,reg0=1,reg1=1,reg2=4,reg3=1,shared=0,threads0=1,threads1=1,threads2=2,"
            + "threads3=24,tile_k=3,window=";
    List<Measurement> ms =
        ConfigProbe.probe(
            device,
            "depthwise_fused_1x16x24x24",
            List.of("untuned", window + "1", window + "0"),
            s -> assertThat(s).contains("DepthwiseConv2d.window=[1, 0]"));
    assertThat(ms).hasSize(3);
    for (Measurement m : ms) {
      assertThat(m.status()).as("%s", m).isEqualTo(Measurement.Status.OK);
    }
    assertThat(ms.get(1).config().values()).containsEntry("DepthwiseConv2d.window", 1);
    assertThat(ms.get(1).trace()).anyMatch(line -> line.contains("cache_read(local"));
    assertThat(ms.get(2).trace()).noneMatch(line -> line.contains("cache_read(local"));
  }

  @Test
  void namesTheKnownOperatorsAndBadSettings() {
    assertThatThrownBy(() -> ConfigProbe.probe(device, "nope", List.of("untuned"), s -> {}))
        .hasMessageContaining("no operator 'nope'")
        .hasMessageContaining("depthwise_fused_1x16x24x24");
    assertThatThrownBy(
            () -> ConfigProbe.probe(device, "depthwise_fused_1x16x24x24", List.of("reg2"), s -> {}))
        .hasMessageContaining("'reg2' is not knob=value");
  }
}
