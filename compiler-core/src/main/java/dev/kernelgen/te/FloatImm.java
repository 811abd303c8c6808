package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;

/** A floating-point immediate. */
public record FloatImm(DType dtype, double value) implements Expr {
  public FloatImm {
    UserError.check(dtype.isFloat(), "float immediate %s cannot have dtype %s", value, dtype);
  }

  public static FloatImm f32(double value) {
    return new FloatImm(DType.FLOAT32, value);
  }

  public static FloatImm f64(double value) {
    return new FloatImm(DType.FLOAT64, value);
  }
}
