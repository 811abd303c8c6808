package dev.kernelgen.eval;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.DType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A host tensor: a dtype, a shape and its elements in row-major order in native memory (so that C
 * kernels can read it without copies). Booleans take one byte. The memory belongs to an automatic
 * arena and is freed when the array becomes unreachable.
 */
public final class NDArray {
  private final DType dtype;
  private final long[] shape;
  private final long size;
  private final MemorySegment segment;

  private NDArray(DType dtype, long[] shape, MemorySegment segment) {
    this.dtype = dtype;
    this.shape = shape;
    this.size = sizeOf(shape);
    this.segment = segment;
  }

  /** A zero-filled array. */
  public static NDArray zeros(DType dtype, long... shape) {
    long[] s = checkShape(shape);
    long bytes = Math.max(1, sizeOf(s) * dtype.bytes());
    return new NDArray(dtype, s, Arena.ofAuto().allocate(bytes, 8));
  }

  /**
   * Random elements from {@code seed}: floats uniform in [-1, 1], integers in [-8, 8], booleans
   * either way. The same seed gives the same array.
   */
  public static NDArray random(DType dtype, long seed, long... shape) {
    NDArray a = zeros(dtype, shape);
    SplittableRandom rnd = new SplittableRandom(seed);
    for (long k = 0; k < a.size; k++) {
      switch (dtype) {
        case FLOAT32, FLOAT64 -> a.setDouble(k, rnd.nextDouble(-1.0, 1.0));
        case INT32, INT64 -> a.setLong(k, rnd.nextInt(-8, 9));
        case BOOL -> a.setLong(k, rnd.nextBoolean() ? 1 : 0);
      }
    }
    return a;
  }

  /** An array with the given elements in row-major order (converted to {@code dtype}). */
  public static NDArray of(DType dtype, long[] shape, double... values) {
    NDArray a = zeros(dtype, shape);
    UserError.check(
        values.length == a.size,
        "%d values for an array of shape %s (%d elements)",
        values.length,
        Arrays.toString(shape),
        a.size);
    for (int k = 0; k < values.length; k++) {
      a.setDouble(k, values[k]);
    }
    return a;
  }

  /**
   * An array over existing memory (not copied): {@code segment} must hold the elements in row-major
   * order and be aligned to the element size.
   */
  public static NDArray wrap(DType dtype, MemorySegment segment, long... shape) {
    long[] s = checkShape(shape);
    UserError.check(
        segment.byteSize() >= sizeOf(s) * dtype.bytes(),
        "a segment of %d bytes cannot hold a %s tensor of shape %s",
        segment.byteSize(),
        dtype,
        Arrays.toString(s));
    return new NDArray(dtype, s, segment);
  }

  private static long[] checkShape(long[] shape) {
    for (long d : shape) {
      UserError.check(d >= 0, "negative dim in shape %s", Arrays.toString(shape));
    }
    return shape.clone();
  }

  private static long sizeOf(long[] shape) {
    long n = 1;
    for (long d : shape) {
      n = Math.multiplyExact(n, d);
    }
    return n;
  }

  public DType dtype() {
    return dtype;
  }

  /** The shape (a copy). */
  public long[] shape() {
    return shape.clone();
  }

  public int ndim() {
    return shape.length;
  }

  /** The number of elements. */
  public long size() {
    return size;
  }

  /** The native memory holding the elements. */
  public MemorySegment segment() {
    return segment;
  }

  /** Element {@code flat} (row-major position) as a double, whatever the dtype. */
  public double getDouble(long flat) {
    return switch (dtype) {
      case FLOAT32 -> segment.getAtIndex(ValueLayout.JAVA_FLOAT, flat);
      case FLOAT64 -> segment.getAtIndex(ValueLayout.JAVA_DOUBLE, flat);
      case INT32 -> segment.getAtIndex(ValueLayout.JAVA_INT, flat);
      case INT64 -> segment.getAtIndex(ValueLayout.JAVA_LONG, flat);
      case BOOL -> segment.get(ValueLayout.JAVA_BYTE, flat);
    };
  }

  /** Sets element {@code flat}; integer dtypes truncate toward zero, bool stores {@code v != 0}. */
  public void setDouble(long flat, double v) {
    switch (dtype) {
      case FLOAT32 -> segment.setAtIndex(ValueLayout.JAVA_FLOAT, flat, (float) v);
      case FLOAT64 -> segment.setAtIndex(ValueLayout.JAVA_DOUBLE, flat, v);
      case INT32 -> segment.setAtIndex(ValueLayout.JAVA_INT, flat, (int) (long) v);
      case INT64 -> segment.setAtIndex(ValueLayout.JAVA_LONG, flat, (long) v);
      case BOOL -> segment.set(ValueLayout.JAVA_BYTE, flat, (byte) (v != 0 ? 1 : 0));
    }
  }

  /** Element {@code flat} as a long; floats truncate toward zero. */
  public long getLong(long flat) {
    return switch (dtype) {
      case FLOAT32 -> (long) segment.getAtIndex(ValueLayout.JAVA_FLOAT, flat);
      case FLOAT64 -> (long) segment.getAtIndex(ValueLayout.JAVA_DOUBLE, flat);
      case INT32 -> segment.getAtIndex(ValueLayout.JAVA_INT, flat);
      case INT64 -> segment.getAtIndex(ValueLayout.JAVA_LONG, flat);
      case BOOL -> segment.get(ValueLayout.JAVA_BYTE, flat);
    };
  }

  /** Sets element {@code flat}; int32 wraps as a Java int cast does, bool stores {@code v != 0}. */
  public void setLong(long flat, long v) {
    switch (dtype) {
      case FLOAT32 -> segment.setAtIndex(ValueLayout.JAVA_FLOAT, flat, (float) v);
      case FLOAT64 -> segment.setAtIndex(ValueLayout.JAVA_DOUBLE, flat, (double) v);
      case INT32 -> segment.setAtIndex(ValueLayout.JAVA_INT, flat, (int) v);
      case INT64 -> segment.setAtIndex(ValueLayout.JAVA_LONG, flat, v);
      case BOOL -> segment.set(ValueLayout.JAVA_BYTE, flat, (byte) (v != 0 ? 1 : 0));
    }
  }

  /** A deep copy in fresh memory. */
  public NDArray copy() {
    NDArray c = zeros(dtype, shape);
    MemorySegment.copy(segment, 0, c.segment, 0, size * dtype.bytes());
    return c;
  }

  /** The multi-dimensional index of row-major position {@code flat}. */
  public long[] unravel(long flat) {
    long[] idx = new long[shape.length];
    for (int d = shape.length - 1; d >= 0; d--) {
      if (shape[d] > 0) {
        idx[d] = flat % shape[d];
        flat /= shape[d];
      }
    }
    return idx;
  }

  /**
   * Null when {@code actual} has the shape of {@code expected} and every element is close: {@code
   * |a - e| <= atol + rtol * |e|}, equal infinities, or both NaN. Otherwise a message with the
   * number of mismatches and the first few (index, expected, actual).
   */
  public static String compare(NDArray expected, NDArray actual, double rtol, double atol) {
    if (!Arrays.equals(expected.shape, actual.shape)) {
      return "shape mismatch: expected "
          + Arrays.toString(expected.shape)
          + ", actual "
          + Arrays.toString(actual.shape);
    }
    final int shown = 10;
    long mismatches = 0;
    double worst = 0;
    List<String> first = new ArrayList<>();
    for (long k = 0; k < expected.size; k++) {
      double e = expected.getDouble(k);
      double a = actual.getDouble(k);
      if (close(e, a, rtol, atol)) {
        continue;
      }
      mismatches++;
      double diff = Math.abs(a - e);
      worst = Double.isNaN(diff) || diff > worst ? diff : worst;
      if (first.size() < shown) {
        first.add(
            "  at "
                + Arrays.toString(expected.unravel(k))
                + ": expected "
                + e
                + ", actual "
                + a
                + " (diff "
                + diff
                + ")");
      }
    }
    if (mismatches == 0) {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    sb.append(mismatches)
        .append(" of ")
        .append(expected.size)
        .append(" elements differ (rtol=")
        .append(rtol)
        .append(", atol=")
        .append(atol)
        .append(", largest diff ")
        .append(worst)
        .append("); shape ")
        .append(Arrays.toString(expected.shape))
        .append(", first mismatches:\n");
    sb.append(String.join("\n", first));
    if (mismatches > shown) {
      sb.append("\n  ...");
    }
    return sb.toString();
  }

  private static boolean close(double e, double a, double rtol, double atol) {
    if (e == a) {
      return true; // also equal infinities
    }
    if (Double.isNaN(e) || Double.isNaN(a)) {
      return Double.isNaN(e) && Double.isNaN(a);
    }
    return Math.abs(a - e) <= atol + rtol * Math.abs(e);
  }

  /** Throws an {@link AssertionError} with {@link #compare}'s message unless all are close. */
  public static void assertClose(NDArray expected, NDArray actual, double rtol, double atol) {
    String msg = compare(expected, actual, rtol, atol);
    if (msg != null) {
      throw new AssertionError(msg);
    }
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("NDArray(").append(dtype).append(Arrays.toString(shape));
    long n = Math.min(size, 8);
    sb.append(" [");
    for (long k = 0; k < n; k++) {
      sb.append(k == 0 ? "" : ", ")
          .append(dtype.isFloat() ? String.valueOf(getDouble(k)) : String.valueOf(getLong(k)));
    }
    return sb.append(size > n ? ", ...])" : "])").toString();
  }
}
