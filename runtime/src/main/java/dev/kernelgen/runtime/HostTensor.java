package dev.kernelgen.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A tensor in host memory: a dtype, a shape and the elements in row-major order in a native {@link
 * MemorySegment}, so that C kernels read it without a copy and GPU copies start from it directly.
 *
 * <p>A tensor made by a factory owns its memory (a shared arena, usable from any thread) and frees
 * it on {@link #close()}; a {@link #wrap wrapped} segment stays owned by the caller.
 */
public final class HostTensor implements AutoCloseable {
  /** Alignment of owned memory: a cache line, enough for any vector load a C kernel makes. */
  private static final long ALIGNMENT = 64;

  private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
  private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;
  private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;

  /** Owned tensors made and not yet closed, in this process. */
  private static final AtomicLong OPEN = new AtomicLong();

  private final DataType dtype;
  private final long[] shape;
  private final long elementCount;
  private final MemorySegment segment;
  private final Arena arena; // null when the memory is the caller's
  private final AtomicBoolean closed = new AtomicBoolean();

  private HostTensor(DataType dtype, long[] shape, MemorySegment segment, Arena arena) {
    this.dtype = dtype;
    this.shape = shape;
    this.elementCount = elementCount(shape);
    this.segment = segment;
    this.arena = arena;
  }

  /** A new tensor of zeros. */
  public static HostTensor zeros(DataType dtype, long... shape) {
    long[] s = checkShape(shape);
    long bytes = Math.multiplyExact(elementCount(s), (long) dtype.byteSize());
    Arena arena = Arena.ofShared();
    // Arena.allocate zero-fills.
    MemorySegment segment = arena.allocate(Math.max(bytes, 1), ALIGNMENT).asSlice(0, bytes);
    OPEN.incrementAndGet();
    return new HostTensor(dtype, s, segment, arena);
  }

  /**
   * A new FLOAT32 tensor holding a copy of {@code data}; the shape's product must be its length.
   */
  public static HostTensor of(float[] data, long... shape) {
    HostTensor t = zeros(DataType.FLOAT32, checkLength(data.length, shape));
    MemorySegment.copy(data, 0, t.segment, F32, 0, data.length);
    return t;
  }

  /** A new FLOAT64 tensor holding a copy of {@code data}. */
  public static HostTensor of(double[] data, long... shape) {
    HostTensor t = zeros(DataType.FLOAT64, checkLength(data.length, shape));
    MemorySegment.copy(data, 0, t.segment, F64, 0, data.length);
    return t;
  }

  /** A new INT32 tensor holding a copy of {@code data}. */
  public static HostTensor of(int[] data, long... shape) {
    HostTensor t = zeros(DataType.INT32, checkLength(data.length, shape));
    MemorySegment.copy(data, 0, t.segment, I32, 0, data.length);
    return t;
  }

  /** A new INT64 tensor holding a copy of {@code data}. */
  public static HostTensor of(long[] data, long... shape) {
    HostTensor t = zeros(DataType.INT64, checkLength(data.length, shape));
    MemorySegment.copy(data, 0, t.segment, I64, 0, data.length);
    return t;
  }

  /** A new BOOL tensor holding a copy of {@code data}, one byte (0 or 1) per element. */
  public static HostTensor of(boolean[] data, long... shape) {
    HostTensor t = zeros(DataType.BOOL, checkLength(data.length, shape));
    for (int i = 0; i < data.length; i++) {
      t.segment.set(ValueLayout.JAVA_BYTE, i, (byte) (data[i] ? 1 : 0));
    }
    return t;
  }

  /**
   * A tensor over memory the caller owns and keeps alive; {@link #close()} leaves it alone. The
   * segment must hold exactly the shape's elements.
   */
  public static HostTensor wrap(DataType dtype, MemorySegment segment, long... shape) {
    long[] s = checkShape(shape);
    long bytes = Math.multiplyExact(elementCount(s), (long) dtype.byteSize());
    if (segment.byteSize() != bytes) {
      throw new IllegalArgumentException(
          "segment of "
              + segment.byteSize()
              + " bytes does not hold a "
              + dtype
              + " tensor of shape "
              + Arrays.toString(s)
              + " ("
              + bytes
              + " bytes)");
    }
    return new HostTensor(dtype, s, segment, null);
  }

  public DataType dtype() {
    return dtype;
  }

  /** The shape, a copy. */
  public long[] shape() {
    return shape.clone();
  }

  public int rank() {
    return shape.length;
  }

  /** Extent of dimension {@code axis}. */
  public long dim(int axis) {
    return shape[axis];
  }

  public long elementCount() {
    return elementCount;
  }

  public long byteSize() {
    return segment.byteSize();
  }

  /**
   * The elements, row-major; what a C kernel receives as its pointer.
   *
   * @throws IllegalStateException when the tensor was closed
   */
  public MemorySegment segment() {
    if (closed.get()) {
      throw new IllegalStateException(this + " was closed");
    }
    return segment;
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return closed.get();
  }

  /** Row-major flat index of a multi-dimensional index, checked against the shape. */
  public long flatIndex(long... index) {
    if (index.length != shape.length) {
      throw new IllegalArgumentException(
          "index of rank " + index.length + " for a tensor of rank " + shape.length);
    }
    long flat = 0;
    for (int i = 0; i < shape.length; i++) {
      if (index[i] < 0 || index[i] >= shape[i]) {
        throw new IndexOutOfBoundsException(
            "index " + Arrays.toString(index) + " out of shape " + Arrays.toString(shape));
      }
      flat = flat * shape[i] + index[i];
    }
    return flat;
  }

  public float getFloat(long flat) {
    return segment().getAtIndex(F32, check(DataType.FLOAT32, flat));
  }

  public void setFloat(long flat, float value) {
    segment().setAtIndex(F32, check(DataType.FLOAT32, flat), value);
  }

  public double getDouble(long flat) {
    return segment().getAtIndex(F64, check(DataType.FLOAT64, flat));
  }

  public void setDouble(long flat, double value) {
    segment().setAtIndex(F64, check(DataType.FLOAT64, flat), value);
  }

  public int getInt(long flat) {
    return segment().getAtIndex(I32, check(DataType.INT32, flat));
  }

  public void setInt(long flat, int value) {
    segment().setAtIndex(I32, check(DataType.INT32, flat), value);
  }

  public long getLong(long flat) {
    return segment().getAtIndex(I64, check(DataType.INT64, flat));
  }

  public void setLong(long flat, long value) {
    segment().setAtIndex(I64, check(DataType.INT64, flat), value);
  }

  public boolean getBoolean(long flat) {
    return segment().get(ValueLayout.JAVA_BYTE, check(DataType.BOOL, flat)) != 0;
  }

  public void setBoolean(long flat, boolean value) {
    segment().set(ValueLayout.JAVA_BYTE, check(DataType.BOOL, flat), (byte) (value ? 1 : 0));
  }

  /** Element {@code flat} converted to double, whatever the dtype; for comparisons in tests. */
  public double getAsDouble(long flat) {
    return switch (dtype) {
      case FLOAT32 -> getFloat(flat);
      case FLOAT64 -> getDouble(flat);
      case INT32 -> getInt(flat);
      case INT64 -> getLong(flat);
      case BOOL -> getBoolean(flat) ? 1 : 0;
    };
  }

  /** Stores {@code value} converted to the dtype (truncating toward zero for integers). */
  public void setFromDouble(long flat, double value) {
    switch (dtype) {
      case FLOAT32 -> setFloat(flat, (float) value);
      case FLOAT64 -> setDouble(flat, value);
      case INT32 -> setInt(flat, (int) value);
      case INT64 -> setLong(flat, (long) value);
      case BOOL -> setBoolean(flat, value != 0);
    }
  }

  /** A copy of the elements of a FLOAT32 tensor. */
  public float[] toFloatArray() {
    requireDtype(DataType.FLOAT32);
    return segment().toArray(F32);
  }

  /** A copy of the elements of a FLOAT64 tensor. */
  public double[] toDoubleArray() {
    requireDtype(DataType.FLOAT64);
    return segment().toArray(F64);
  }

  /** A copy of the elements of an INT32 tensor. */
  public int[] toIntArray() {
    requireDtype(DataType.INT32);
    return segment().toArray(I32);
  }

  /** A copy of the elements of an INT64 tensor. */
  public long[] toLongArray() {
    requireDtype(DataType.INT64);
    return segment().toArray(I64);
  }

  /** A copy of the elements of a BOOL tensor (any byte other than 0 is true). */
  public boolean[] toBooleanArray() {
    requireDtype(DataType.BOOL);
    byte[] bytes = segment().toArray(ValueLayout.JAVA_BYTE);
    boolean[] out = new boolean[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      out[i] = bytes[i] != 0;
    }
    return out;
  }

  /** Frees owned memory (once; later calls do nothing). Wrapped memory is left to its owner. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true) && arena != null) {
      arena.close();
      OPEN.decrementAndGet();
    }
  }

  /**
   * How many tensors that own their memory were made and not closed in this process: their memory
   * is native and is not freed by the garbage collector. A hook for leak tests.
   */
  public static long openOwnedTensors() {
    return OPEN.get();
  }

  @Override
  public String toString() {
    return "HostTensor[" + dtype + " " + Arrays.toString(shape) + "]";
  }

  private long check(DataType expected, long flat) {
    requireDtype(expected);
    if (flat < 0 || flat >= elementCount) {
      throw new IndexOutOfBoundsException(
          "flat index " + flat + " out of " + elementCount + " elements");
    }
    return flat;
  }

  private void requireDtype(DataType expected) {
    if (dtype != expected) {
      throw new IllegalArgumentException(
          "tensor is " + dtype + ", not " + expected + " (shape " + Arrays.toString(shape) + ")");
    }
  }

  private static long[] checkShape(long[] shape) {
    for (long d : shape) {
      if (d < 0) {
        throw new IllegalArgumentException("negative extent in shape " + Arrays.toString(shape));
      }
    }
    return shape.clone();
  }

  private static long[] checkLength(int length, long[] shape) {
    // No shape given: a vector of the data's length.
    long[] s = shape.length == 0 ? new long[] {length} : checkShape(shape);
    if (elementCount(s) != length) {
      throw new IllegalArgumentException(
          length + " elements do not fill shape " + Arrays.toString(s));
    }
    return s;
  }

  private static long elementCount(long[] shape) {
    long n = 1;
    for (long d : shape) {
      n = Math.multiplyExact(n, d);
    }
    return n;
  }
}
