package dev.kernelgen.runtime.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostCopyTest {
  /** The pieces cover the memory once, in order, the last one short; each sees its own bytes. */
  @Test
  void piecesCoverTheMemoryInOrder() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment host = arena.allocate(10);
      for (int i = 0; i < 10; i++) {
        host.set(ValueLayout.JAVA_BYTE, i, (byte) i);
      }
      List<String> pieces = new ArrayList<>();
      HostCopy.inPieces(
          host,
          4,
          (off, n, bytes) -> {
            assertThat(bytes.remaining()).isEqualTo(n);
            pieces.add(off + "+" + n + ":" + bytes.get(0));
          });
      assertThat(pieces).containsExactly("0+4:0", "4+4:4", "8+2:8");
    }
  }

  @Test
  void emptyMemoryCopiesNothing() {
    List<Long> offsets = new ArrayList<>();
    HostCopy.inPieces(MemorySegment.ofArray(new byte[0]), (off, n, bytes) -> offsets.add(off));
    assertThat(offsets).isEmpty();
  }

  /** A copy of exactly one piece is one call, not a second empty one. */
  @Test
  void exactMultipleHasNoEmptyPiece() {
    List<Long> sizes = new ArrayList<>();
    HostCopy.inPieces(MemorySegment.ofArray(new byte[8]), 4, (off, n, bytes) -> sizes.add(n));
    assertThat(sizes).containsExactly(4L, 4L);
  }
}
