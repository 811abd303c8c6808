package dev.kernelgen.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class HostTensorTest {

  @Test
  void zerosHasShapeSizeAndZeroElements() {
    try (HostTensor t = HostTensor.zeros(DataType.FLOAT32, 2, 3, 4)) {
      assertThat(t.shape()).containsExactly(2, 3, 4);
      assertThat(t.rank()).isEqualTo(3);
      assertThat(t.elementCount()).isEqualTo(24);
      assertThat(t.byteSize()).isEqualTo(96);
      assertThat(t.toFloatArray()).containsOnly(0f);
      assertThat(t.segment().address() % 64).isZero();
    }
  }

  @Test
  void ofCopiesDataRowMajor() {
    float[] data = {1, 2, 3, 4, 5, 6};
    try (HostTensor t = HostTensor.of(data, 2, 3)) {
      data[0] = 99; // the tensor holds a copy
      assertThat(t.getFloat(t.flatIndex(0, 0))).isEqualTo(1f);
      assertThat(t.getFloat(t.flatIndex(1, 2))).isEqualTo(6f);
      assertThat(t.flatIndex(1, 0)).isEqualTo(3);
      t.setFloat(t.flatIndex(0, 1), -2f);
      assertThat(t.toFloatArray()).containsExactly(1, -2, 3, 4, 5, 6);
    }
  }

  @Test
  void otherDtypes() {
    try (HostTensor d = HostTensor.of(new double[] {1.5, 2.5});
        HostTensor i = HostTensor.of(new int[] {7, 8, 9}, 3, 1);
        HostTensor l = HostTensor.of(new long[] {1L << 40});
        HostTensor b = HostTensor.zeros(DataType.BOOL, 4)) {
      assertThat(d.toDoubleArray()).containsExactly(1.5, 2.5);
      assertThat(i.toIntArray()).containsExactly(7, 8, 9);
      assertThat(i.getAsDouble(2)).isEqualTo(9.0);
      assertThat(l.getLong(0)).isEqualTo(1L << 40);
      b.setBoolean(2, true);
      assertThat(b.getBoolean(2)).isTrue();
      assertThat(b.getBoolean(1)).isFalse();
      assertThat(b.byteSize()).isEqualTo(4);
      i.setFromDouble(0, 3.9);
      assertThat(i.getInt(0)).isEqualTo(3);
    }
  }

  @Test
  void boolTensorsCopyFromAndToBooleanArrays() {
    try (HostTensor b =
        HostTensor.of(new boolean[] {true, false, false, true, true, false}, 2, 3)) {
      assertThat(b.dtype()).isEqualTo(DataType.BOOL);
      assertThat(b.shape()).containsExactly(2, 3);
      assertThat(b.byteSize()).isEqualTo(6);
      assertThat(b.getBoolean(3)).isTrue();
      assertThat(b.toBooleanArray()).containsExactly(true, false, false, true, true, false);
      b.setBoolean(1, true);
      assertThat(b.toBooleanArray()[1]).isTrue();
      assertThatThrownBy(b::toIntArray).hasMessageContaining("BOOL");
    }
    try (HostTensor f = HostTensor.of(new float[] {1})) {
      assertThatThrownBy(f::toBooleanArray).hasMessageContaining("FLOAT32");
    }
    assertThatThrownBy(() -> HostTensor.of(new boolean[5], 2, 3))
        .hasMessageContaining("5 elements");
  }

  @Test
  void wrongDtypeIndexAndLengthAreRejected() {
    try (HostTensor t = HostTensor.zeros(DataType.INT32, 2, 2)) {
      assertThatThrownBy(() -> t.getFloat(0)).hasMessageContaining("INT32, not FLOAT32");
      assertThatThrownBy(() -> t.flatIndex(2, 0)).isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> t.flatIndex(0)).hasMessageContaining("rank 1");
      assertThatThrownBy(() -> t.getInt(4)).isInstanceOf(IndexOutOfBoundsException.class);
    }
    assertThatThrownBy(() -> HostTensor.of(new float[5], 2, 3)).hasMessageContaining("5 elements");
    assertThatThrownBy(() -> HostTensor.zeros(DataType.FLOAT32, 2, -1))
        .hasMessageContaining("negative");
  }

  @Test
  void wrapUsesCallersMemoryAndLeavesItOpen() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment seg = arena.allocate(ValueLayout.JAVA_FLOAT, 4);
      seg.setAtIndex(ValueLayout.JAVA_FLOAT, 3, 4f);
      HostTensor t = HostTensor.wrap(DataType.FLOAT32, seg, 2, 2);
      assertThat(t.getFloat(3)).isEqualTo(4f);
      t.close();
      assertThat(seg.getAtIndex(ValueLayout.JAVA_FLOAT, 3)).isEqualTo(4f); // still alive
      assertThatThrownBy(() -> HostTensor.wrap(DataType.FLOAT64, seg, 2, 2))
          .hasMessageContaining("16 bytes");
    }
  }

  @Test
  void closeFreesOwnedMemoryOnce() {
    HostTensor t = HostTensor.zeros(DataType.FLOAT32, 8);
    t.close();
    t.close();
    assertThatThrownBy(() -> t.getFloat(0)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void scalarAndEmptyTensors() {
    try (HostTensor s = HostTensor.zeros(DataType.FLOAT64);
        HostTensor e = HostTensor.zeros(DataType.FLOAT32, 0, 5)) {
      assertThat(s.elementCount()).isEqualTo(1);
      assertThat(s.rank()).isZero();
      assertThat(e.elementCount()).isZero();
      assertThat(e.toFloatArray()).isEmpty();
    }
  }
}
