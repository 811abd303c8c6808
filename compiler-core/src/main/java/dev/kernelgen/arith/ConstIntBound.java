package dev.kernelgen.arith;

/**
 * Inclusive constant bounds {@code [min, max]} of an integer expression. {@link #NEG_INF} and
 * {@link #POS_INF} stand for "unbounded"; the arithmetic here saturates to them instead of
 * overflowing, so a bound is always sound (possibly loose).
 */
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

  public boolean isEverything() {
    return min == NEG_INF && max == POS_INF;
  }

  public boolean contains(long v) {
    return min <= v && v <= max;
  }

  /** The smallest bound holding both. */
  public ConstIntBound union(ConstIntBound o) {
    return new ConstIntBound(Math.min(min, o.min), Math.max(max, o.max));
  }

  /** What both bounds allow (both must hold of the same value). */
  public ConstIntBound intersect(ConstIntBound o) {
    return new ConstIntBound(Math.max(min, o.min), Math.min(max, o.max));
  }

  public ConstIntBound add(ConstIntBound o) {
    return new ConstIntBound(addSat(min, o.min), addSat(max, o.max));
  }

  public ConstIntBound negate() {
    return new ConstIntBound(negSat(max), negSat(min));
  }

  public ConstIntBound sub(ConstIntBound o) {
    return add(o.negate());
  }

  public ConstIntBound mul(ConstIntBound o) {
    long a = mulSat(min, o.min);
    long b = mulSat(min, o.max);
    long c = mulSat(max, o.min);
    long d = mulSat(max, o.max);
    return new ConstIntBound(
        Math.min(Math.min(a, b), Math.min(c, d)), Math.max(Math.max(a, b), Math.max(c, d)));
  }

  public ConstIntBound mul(long c) {
    return mul(point(c));
  }

  static boolean isInf(long v) {
    return v == NEG_INF || v == POS_INF;
  }

  /** {@code a + b}, where infinities absorb finite values and overflow saturates. */
  static long addSat(long a, long b) {
    if (isInf(a)) {
      return a;
    }
    if (isInf(b)) {
      return b;
    }
    long r = a + b;
    // Overflow iff both operands have the sign opposite to the result.
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? NEG_INF : POS_INF;
    }
    return r;
  }

  static long negSat(long a) {
    if (a == NEG_INF) {
      return POS_INF;
    }
    if (a == POS_INF) {
      return NEG_INF;
    }
    return -a;
  }

  static long mulSat(long a, long b) {
    if (a == 0 || b == 0) {
      return 0;
    }
    boolean negative = (a < 0) != (b < 0);
    if (isInf(a) || isInf(b)) {
      return negative ? NEG_INF : POS_INF;
    }
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
      return isInf(lo) ? (negative ? NEG_INF : POS_INF) : lo;
    }
    return negative ? NEG_INF : POS_INF;
  }

  /** Floor division of a bound end by a positive constant; infinities stay infinite. */
  static long floorDivSat(long a, long c) {
    return isInf(a) ? a : Math.floorDiv(a, c);
  }
}
