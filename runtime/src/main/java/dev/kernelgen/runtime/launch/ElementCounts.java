package dev.kernelgen.runtime.launch;

import dev.kernelgen.runtime.DataType;
import java.util.Arrays;

/**
 * Element counts of the tensors of one launch, as generated launchers choose between the 32-bit and
 * the 64-bit index kernels of an operator with symbolic dims: the 32-bit ones while every tensor
 * holds at most {@link #NARROW_ELEMENTS} elements, else the 64-bit ones.
 */
public final class ElementCounts {
  /**
   * The most elements a tensor of a launch of 32-bit index kernels may hold: 2^30, half of what 32
   * bits index, so that split loops rounded up to their factor and padded regions stay below 2^31
   * (the compiler's {@code lower.IndexWidth.NARROW_ELEMENTS}).
   */
  public static final long NARROW_ELEMENTS = 1L << 30;

  private ElementCounts() {}

  /**
   * The element count of tensor {@code tensor} of these dims.
   *
   * @throws IllegalArgumentException when its size in bytes passes what a buffer can address (2^63
   *     - 1 bytes)
   */
  public static long of(String op, String tensor, DataType dtype, long... dims) {
    long n = 1;
    try {
      for (long d : dims) {
        n = Math.multiplyExact(n, d);
      }
      Math.multiplyExact(n, (long) dtype.byteSize());
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          op
              + ": "
              + tensor
              + " of shape "
              + Arrays.toString(dims)
              + " ("
              + dtype
              + ") holds more bytes than a buffer can address (2^63 - 1)");
    }
    return n;
  }

  /** Whether a launch with tensors of these element counts needs the 64-bit index kernels. */
  public static boolean wide(long... counts) {
    for (long n : counts) {
      if (n > NARROW_ELEMENTS) {
        return true;
      }
    }
    return false;
  }
}
