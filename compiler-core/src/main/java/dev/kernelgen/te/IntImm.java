package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;

/** An integer or boolean immediate. */
public record IntImm(DType dtype, long value) implements Expr {
  public IntImm {
    UserError.check(
        dtype.isInt() || dtype.isBool(), "integer immediate %d cannot have dtype %s", value, dtype);
    if (dtype == DType.INT32) {
      UserError.check(value == (int) value, "immediate %d does not fit in %s", value, DType.INT32);
    }
  }

  public static IntImm of(long value) {
    return new IntImm(DType.INT32, value);
  }

  public static IntImm of(DType dtype, long value) {
    return new IntImm(dtype, value);
  }

  public static IntImm ofBool(boolean value) {
    return new IntImm(DType.BOOL, value ? 1 : 0);
  }

  /**
   * An immediate of {@code value} in the dtype of {@code other}: int for ints, float for floats.
   */
  public static Expr like(Expr other, long value) {
    if (other.dtype().isFloat()) {
      return new FloatImm(other.dtype(), value);
    }
    return new IntImm(other.dtype().isBool() ? DType.INT32 : other.dtype(), value);
  }
}
