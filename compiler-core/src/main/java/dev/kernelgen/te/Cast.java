package dev.kernelgen.te;

/** Conversion of a value to another dtype. */
public record Cast(DType dtype, Expr value) implements Expr {
  /** The cast, or {@code value} itself when it already has {@code dtype}. */
  public static Expr of(DType dtype, Expr value) {
    if (value.dtype() == dtype) {
      return value;
    }
    if (value instanceof IntImm imm && dtype.isInt()) {
      return new IntImm(dtype, imm.value());
    }
    if (value instanceof IntImm imm && dtype.isFloat()) {
      return new FloatImm(dtype, imm.value());
    }
    return new Cast(dtype, value);
  }
}
