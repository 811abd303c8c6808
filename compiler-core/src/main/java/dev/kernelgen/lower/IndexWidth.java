package dev.kernelgen.lower;

/**
 * The width of the index arithmetic a function is lowered for: loop variables and flattened
 * addresses. Constant extents decide for themselves (32-bit when they fit, else 64-bit); this says
 * what symbolic ones get.
 */
public enum IndexWidth {
  /**
   * 64-bit wherever an extent is symbolic: correct for every size the runtime can allocate. The
   * default, and what the launcher runs when a tensor's element count passes {@link
   * #NARROW_ELEMENTS}.
   */
  WIDE,
  /**
   * 32-bit for symbolic extents as well: the launcher runs these kernels only when every tensor of
   * the launch (arguments and temporaries) holds at most {@link #NARROW_ELEMENTS} elements.
   */
  NARROW;

  /**
   * The most elements a tensor of a {@link #NARROW} launch may hold: 2^30, half of what 32 bits
   * index, so that split loops rounded up to their factor and padded regions around a tensor stay
   * below 2^31 as well.
   */
  public static final long NARROW_ELEMENTS = 1L << 30;
}
