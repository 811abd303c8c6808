package dev.kernelgen.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.te.DType;
import org.junit.jupiter.api.Test;

class NDArrayTest {
  @Test
  void zerosHasShapeSizeAndZeroElements() {
    NDArray a = NDArray.zeros(DType.FLOAT32, 2, 3, 4);
    assertThat(a.dtype()).isEqualTo(DType.FLOAT32);
    assertThat(a.shape()).containsExactly(2, 3, 4);
    assertThat(a.size()).isEqualTo(24);
    assertThat(a.segment().byteSize()).isGreaterThanOrEqualTo(24 * 4);
    for (long k = 0; k < a.size(); k++) {
      assertThat(a.getDouble(k)).isZero();
    }
  }

  @Test
  void elementsRoundTripInEveryDtype() {
    NDArray f = NDArray.zeros(DType.FLOAT32, 3);
    f.setDouble(1, 0.1);
    assertThat(f.getDouble(1)).isEqualTo((double) 0.1f);
    NDArray d = NDArray.zeros(DType.FLOAT64, 3);
    d.setDouble(2, 0.1);
    assertThat(d.getDouble(2)).isEqualTo(0.1);
    NDArray i = NDArray.zeros(DType.INT32, 3);
    i.setLong(0, (1L << 32) + 5); // wraps like a Java int cast
    assertThat(i.getLong(0)).isEqualTo(5);
    i.setDouble(1, -2.7);
    assertThat(i.getLong(1)).isEqualTo(-2);
    NDArray l = NDArray.zeros(DType.INT64, 1);
    l.setLong(0, Long.MIN_VALUE);
    assertThat(l.getLong(0)).isEqualTo(Long.MIN_VALUE);
    NDArray b = NDArray.zeros(DType.BOOL, 2);
    b.setLong(0, 7);
    assertThat(b.getLong(0)).isEqualTo(1);
    assertThat(b.getLong(1)).isZero();
    assertThat(b.segment().byteSize()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void randomIsDeterministicAndInRange() {
    NDArray a = NDArray.random(DType.FLOAT32, 42, 100);
    NDArray b = NDArray.random(DType.FLOAT32, 42, 100);
    NDArray c = NDArray.random(DType.FLOAT32, 43, 100);
    assertThat(NDArray.compare(a, b, 0, 0)).isNull();
    assertThat(NDArray.compare(a, c, 0, 0)).isNotNull();
    boolean negative = false;
    for (long k = 0; k < a.size(); k++) {
      assertThat(a.getDouble(k)).isBetween(-1.0, 1.0);
      negative |= a.getDouble(k) < 0;
    }
    assertThat(negative).isTrue();
    NDArray ints = NDArray.random(DType.INT32, 1, 50);
    for (long k = 0; k < ints.size(); k++) {
      assertThat(ints.getLong(k)).isBetween(-8L, 8L);
    }
  }

  @Test
  void copyIsIndependent() {
    NDArray a = NDArray.of(DType.FLOAT64, new long[] {2}, 1, 2);
    NDArray b = a.copy();
    b.setDouble(0, 5);
    assertThat(a.getDouble(0)).isEqualTo(1);
    assertThat(b.getDouble(1)).isEqualTo(2);
    assertThat(b.shape()).containsExactly(2);
  }

  @Test
  void unravelGivesRowMajorIndex() {
    NDArray a = NDArray.zeros(DType.INT32, 2, 3, 4);
    assertThat(a.unravel(0)).containsExactly(0, 0, 0);
    assertThat(a.unravel(23)).containsExactly(1, 2, 3);
    assertThat(a.unravel(13)).containsExactly(1, 0, 1);
  }

  @Test
  void compareAcceptsCloseValuesAndNaNs() {
    NDArray e = NDArray.of(DType.FLOAT32, new long[] {4}, 1, Double.NaN, 100, -0.0);
    NDArray a = NDArray.of(DType.FLOAT32, new long[] {4}, 1.0000001, Double.NaN, 100.001, 1e-9);
    assertThat(NDArray.compare(e, a, 1e-5, 1e-6)).isNull();
    NDArray.assertClose(e, a, 1e-5, 1e-6);
  }

  @Test
  void compareReportsCountAndFirstMismatches() {
    NDArray e = NDArray.zeros(DType.FLOAT32, 2, 3);
    NDArray a = e.copy();
    a.setDouble(4, 0.5); // index [1, 1]
    a.setDouble(5, Double.NaN); // index [1, 2]
    String msg = NDArray.compare(e, a, 1e-3, 1e-3);
    assertThat(msg)
        .contains("2 of 6 elements differ")
        .contains("at [1, 1]: expected 0.0, actual 0.5")
        .contains("at [1, 2]: expected 0.0, actual NaN");
    assertThatThrownBy(() -> NDArray.assertClose(e, a, 1e-3, 1e-3))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("2 of 6 elements differ");
  }

  @Test
  void compareReportsShapeMismatch() {
    assertThat(
            NDArray.compare(
                NDArray.zeros(DType.FLOAT32, 2, 3), NDArray.zeros(DType.FLOAT32, 3, 2), 0, 0))
        .contains("shape mismatch")
        .contains("[2, 3]")
        .contains("[3, 2]");
  }

  @Test
  void compareUsesRelativeTolerance() {
    NDArray e = NDArray.of(DType.FLOAT64, new long[] {1}, 1000);
    NDArray a = NDArray.of(DType.FLOAT64, new long[] {1}, 1000.5);
    assertThat(NDArray.compare(e, a, 1e-3, 0)).isNull();
    assertThat(NDArray.compare(e, a, 1e-4, 0)).contains("1 of 1 elements differ");
  }
}
