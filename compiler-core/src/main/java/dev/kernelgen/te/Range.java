package dev.kernelgen.te;

/** The half-open interval {@code [min, min + extent)} of an iteration variable or a region. */
public record Range(Expr min, Expr extent) {
  public static Range of(long min, long extent) {
    return new Range(IntImm.of(min), IntImm.of(extent));
  }

  /** {@code [0, extent)}. */
  public static Range fromExtent(Expr extent) {
    return new Range(IntImm.like(extent, 0), extent);
  }

  @Override
  public String toString() {
    return "[" + min.show() + ", " + min.show() + " + " + extent.show() + ")";
  }
}
