package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;
import java.util.function.BinaryOperator;

/**
 * A commutative, associative combiner with its identity: {@code combine} is an expression of {@code
 * x} (the accumulator) and {@code y} (the new value).
 */
public record Reducer(String name, Var x, Var y, Expr combine, Expr identity) {
  public Reducer {
    UserError.check(
        combine.dtype() == x.dtype() && identity.dtype() == x.dtype(),
        "reducer '%s': combiner (%s) and identity (%s) must have the accumulator's dtype %s",
        name,
        combine.dtype(),
        identity.dtype(),
        x.dtype());
  }

  /** A general commutative reducer: {@code combine} applied to the accumulator and a value. */
  public static Reducer of(String name, DType dtype, BinaryOperator<Expr> combine, Expr identity) {
    Var x = new Var("x", dtype);
    Var y = new Var("y", dtype);
    return new Reducer(name, x, y, combine.apply(x, y), identity);
  }

  public static Reducer sum(DType dtype) {
    return of("sum", dtype, Expr::add, zero(dtype));
  }

  public static Reducer max(DType dtype) {
    return of("max", dtype, Expr::max, lowest(dtype));
  }

  public static Reducer min(DType dtype) {
    return of("min", dtype, Expr::min, highest(dtype));
  }

  public static Reducer prod(DType dtype) {
    return of("prod", dtype, Expr::mul, one(dtype));
  }

  private static Expr zero(DType t) {
    return t.isFloat() ? new FloatImm(t, 0) : new IntImm(t, 0);
  }

  private static Expr one(DType t) {
    return t.isFloat() ? new FloatImm(t, 1) : new IntImm(t, 1);
  }

  private static Expr lowest(DType t) {
    return switch (t) {
      case FLOAT32, FLOAT64 -> new FloatImm(t, Double.NEGATIVE_INFINITY);
      case INT32 -> new IntImm(t, Integer.MIN_VALUE);
      case INT64 -> new IntImm(t, Long.MIN_VALUE);
      case BOOL -> new IntImm(t, 0);
    };
  }

  private static Expr highest(DType t) {
    return switch (t) {
      case FLOAT32, FLOAT64 -> new FloatImm(t, Double.POSITIVE_INFINITY);
      case INT32 -> new IntImm(t, Integer.MAX_VALUE);
      case INT64 -> new IntImm(t, Long.MAX_VALUE);
      case BOOL -> new IntImm(t, 1);
    };
  }

  /** {@code combine} with {@code x := acc, y := value}. */
  public Expr apply(Expr acc, Expr value) {
    return Substitute.apply(combine, java.util.Map.of(x, acc, y, value));
  }
}
