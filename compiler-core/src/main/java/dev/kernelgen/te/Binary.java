package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;
import java.util.Objects;

/**
 * A binary operation. Operands have one dtype: {@link #of} widens int32 to int64 and converts
 * integer immediates next to a floating-point operand; any other mix is a user error.
 *
 * <p>A value class like the other nodes (records), written out to keep its hash code and dtype: a
 * record's are recomputed over the whole subtree at every call, and the simplifier's linear forms
 * hash their terms (whole index expressions) again at every copy, which cost 7% of the compiler's
 * time in the tests.
 */
public final class Binary implements Expr {
  private final BinOp op;
  private final Expr a;
  private final Expr b;
  private final DType dtype;
  private final int hash;

  public Binary(BinOp op, Expr a, Expr b) {
    // Checked without building messages first: this constructor is on every hot path.
    if (a.dtype() != b.dtype()) {
      Expr integer = a.dtype().isFloat() ? b : a;
      Expr real = a.dtype().isFloat() ? a : b;
      String hint =
          real.dtype().isFloat() && integer.dtype().isInt()
              ? String.format(
                  "; cast the integer side: cast(%s, %s)", real.dtype().name(), integer.show())
              : "";
      throw new UserError(
          String.format(
              "dtype mismatch: %s (%s) %s %s (%s)%s",
              a.show(), a.dtype(), op.symbol(), b.show(), b.dtype(), hint));
    }
    String problem = null;
    if (op.isLogical()) {
      if (!a.dtype().isBool()) {
        problem = op.symbol() + " needs bool operands, got " + a.dtype();
      }
    } else if (op == BinOp.DIV) {
      if (!a.dtype().isFloat()) {
        problem = "'/' on " + a.dtype() + " operands: use floordiv for integer division";
      }
    } else if (op == BinOp.FLOOR_DIV || op == BinOp.FLOOR_MOD) {
      if (!a.dtype().isInt()) {
        problem = op.symbol() + " needs integer operands, got " + a.dtype();
      }
    } else if ((op != BinOp.EQ && op != BinOp.NE) && a.dtype().isBool()) {
      problem = op.symbol() + " is not defined on bool operands";
    }
    if (problem != null) {
      throw new UserError(problem + ": " + a.show() + " " + op.symbol() + " " + b.show());
    }
    this.op = Objects.requireNonNull(op);
    this.a = a;
    this.b = b;
    this.dtype = op.isComparison() || op.isLogical() ? DType.BOOL : a.dtype();
    this.hash = (op.ordinal() * 31 + a.hashCode()) * 31 + b.hashCode();
  }

  public BinOp op() {
    return op;
  }

  public Expr a() {
    return a;
  }

  public Expr b() {
    return b;
  }

  @Override
  public boolean equals(Object o) {
    return this == o
        || o instanceof Binary x && hash == x.hash && op == x.op && a.equals(x.a) && b.equals(x.b);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  /** As a record prints itself. */
  @Override
  public String toString() {
    return "Binary[op=" + op + ", a=" + a + ", b=" + b + "]";
  }

  /** The operation, with immediates and int widths brought to a common dtype. */
  public static Expr of(BinOp op, Expr a, Expr b) {
    if (a.dtype() != b.dtype()) {
      if (a instanceof IntImm ia && !b.dtype().isBool()) {
        a = b.dtype().isFloat() ? new FloatImm(b.dtype(), ia.value()) : Cast.of(b.dtype(), ia);
      } else if (b instanceof IntImm ib && !a.dtype().isBool()) {
        b = a.dtype().isFloat() ? new FloatImm(a.dtype(), ib.value()) : Cast.of(a.dtype(), ib);
      } else if (a instanceof FloatImm fa && b.dtype().isFloat()) {
        a = new FloatImm(b.dtype(), fa.value());
      } else if (b instanceof FloatImm fb && a.dtype().isFloat()) {
        b = new FloatImm(a.dtype(), fb.value());
      } else if (a.dtype().isInt() && b.dtype().isInt()) {
        a = Cast.of(DType.INT64, a);
        b = Cast.of(DType.INT64, b);
      }
    }
    return new Binary(op, a, b);
  }

  @Override
  public DType dtype() {
    return dtype;
  }
}
