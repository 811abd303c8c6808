package dev.kernelgen.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.runtime.DataType;
import org.junit.jupiter.api.Test;

/** How launchers choose 32-bit or 64-bit index kernels by element count (issue 12). */
class ElementCountsTest {
  @Test
  void the64BitKernelsRunAbove2e30ElementsAndThe32BitOnesBelow() {
    long small = ElementCounts.of("op", "x", DataType.FLOAT32, 1, 256, 96, 96);
    assertThat(small).isEqualTo(256L * 96 * 96);
    assertThat(ElementCounts.wide(small, 4)).isFalse();
    assertThat(ElementCounts.wide(1L << 30)).isFalse();
    assertThat(ElementCounts.wide(4, (1L << 30) + 1)).isTrue();
    // Past 2^31 (a [3, 2^30] tensor): 64-bit, whichever tensor it is.
    long big = ElementCounts.of("op", "x", DataType.FLOAT32, 3, 1L << 30);
    assertThat(ElementCounts.wide(4, big)).isTrue();
  }

  @Test
  void aTensorPastWhatABufferAddressesIsRejectedByName() {
    long d = Integer.MAX_VALUE;
    assertThatThrownBy(() -> ElementCounts.of("scale", "input", DataType.FLOAT32, d, d, d))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "scale: input of shape [2147483647, 2147483647, 2147483647] (FLOAT32) holds more bytes"
                + " than a buffer can address (2^63 - 1)");
    // 2^61 elements fit a long, but not as 8-byte elements.
    assertThatThrownBy(() -> ElementCounts.of("op", "y", DataType.FLOAT64, 1L << 31, 1L << 30))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("op: y of shape [2147483648, 1073741824] (FLOAT64)");
  }
}
