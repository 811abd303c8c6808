package dev.kernelgen.arith;

/** Inclusive constant bounds {@code [min, max]} of an integer expression. */
public record ConstIntBound(long min, long max) {
  public static final long NEG_INF = Long.MIN_VALUE;
  public static final long POS_INF = Long.MAX_VALUE;
  public static final ConstIntBound EVERYTHING = new ConstIntBound(NEG_INF, POS_INF);

  public static ConstIntBound point(long v) {
    return new ConstIntBound(v, v);
  }

  /** The bound of a loop variable over {@code [min, min + extent)}. */
  public static ConstIntBound range(long min, long extent) {
    return new ConstIntBound(min, min + extent - 1);
  }

  public boolean isPoint() {
    return min == max;
  }
}
