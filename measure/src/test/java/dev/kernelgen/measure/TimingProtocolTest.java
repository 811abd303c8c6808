package dev.kernelgen.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.json.Json;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The timing protocol travels as JSON (to a remote runner) and reads back equal. */
class TimingProtocolTest {
  @Test
  void roundTripsThroughJson() {
    TimingProtocol p = new TimingProtocol(3, 10, "clock_gettime(CLOCK_MONOTONIC)", false);
    Object back = Json.parse(Json.line(p.toJson()));
    assertThat(TimingProtocol.fromJson((Map<?, ?>) back)).isEqualTo(p);
    assertThat(p.describe())
        .isEqualTo("warmup 3, median of 10, clock_gettime(CLOCK_MONOTONIC), no cache flush");
  }

  @Test
  void rejectsAProtocolWithoutSamples() {
    assertThatThrownBy(() -> new TimingProtocol(0, 0, "clock", false))
        .hasMessageContaining("repeats 0");
  }
}
