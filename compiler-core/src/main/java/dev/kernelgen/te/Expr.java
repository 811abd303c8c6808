package dev.kernelgen.te;

/**
 * A scalar expression: the node list of tensor expressions and of the loop IR alike (as TVM's
 * PrimExpr). Nodes are records (and {@link Var}, which has identity); factories validate.
 *
 * <p>The default methods give a fluent arithmetic, since Java has no operator overloading: {@code
 * i.mul(stride).add(di)}.
 */
public sealed interface Expr
    permits IntImm, FloatImm, Var, Binary, Not, Select, Cast, Call, TensorRead, Reduce, Load {

  DType dtype();

  default Expr add(Expr o) {
    return Binary.of(BinOp.ADD, this, o);
  }

  default Expr add(long o) {
    return add(IntImm.like(this, o));
  }

  /** Adds a floating-point constant (of this expression's float dtype). */
  default Expr add(double o) {
    return add(new FloatImm(floatType(this), o));
  }

  default Expr sub(double o) {
    return sub(new FloatImm(floatType(this), o));
  }

  default Expr mul(double o) {
    return mul(new FloatImm(floatType(this), o));
  }

  default Expr div(double o) {
    return div(new FloatImm(floatType(this), o));
  }

  private static DType floatType(Expr e) {
    if (!e.dtype().isFloat()) {
      throw new dev.kernelgen.diag.UserError(
          String.format("a floating-point constant next to %s expression %s", e.dtype(), e.show()));
    }
    return e.dtype();
  }

  default Expr sub(Expr o) {
    return Binary.of(BinOp.SUB, this, o);
  }

  default Expr sub(long o) {
    return sub(IntImm.like(this, o));
  }

  default Expr mul(Expr o) {
    return Binary.of(BinOp.MUL, this, o);
  }

  default Expr mul(long o) {
    return mul(IntImm.like(this, o));
  }

  /** True division; for floating-point operands only (use {@link #floordiv} on integers). */
  default Expr div(Expr o) {
    return Binary.of(BinOp.DIV, this, o);
  }

  default Expr floordiv(Expr o) {
    return Binary.of(BinOp.FLOOR_DIV, this, o);
  }

  default Expr floordiv(long o) {
    return floordiv(IntImm.like(this, o));
  }

  default Expr floormod(Expr o) {
    return Binary.of(BinOp.FLOOR_MOD, this, o);
  }

  default Expr floormod(long o) {
    return floormod(IntImm.like(this, o));
  }

  default Expr min(Expr o) {
    return Binary.of(BinOp.MIN, this, o);
  }

  default Expr max(Expr o) {
    return Binary.of(BinOp.MAX, this, o);
  }

  default Expr min(long o) {
    return min(IntImm.like(this, o));
  }

  default Expr max(long o) {
    return max(IntImm.like(this, o));
  }

  /** The smaller of this and a floating-point constant (of this expression's float dtype). */
  default Expr min(double o) {
    return min(new FloatImm(floatType(this), o));
  }

  /** The larger of this and a floating-point constant: {@code x.max(0.0)} is a ReLU. */
  default Expr max(double o) {
    return max(new FloatImm(floatType(this), o));
  }

  default Expr eq(Expr o) {
    return Binary.of(BinOp.EQ, this, o);
  }

  default Expr eq(long o) {
    return eq(IntImm.like(this, o));
  }

  default Expr ne(Expr o) {
    return Binary.of(BinOp.NE, this, o);
  }

  default Expr ne(long o) {
    return ne(IntImm.like(this, o));
  }

  default Expr lt(Expr o) {
    return Binary.of(BinOp.LT, this, o);
  }

  default Expr lt(long o) {
    return lt(IntImm.like(this, o));
  }

  default Expr le(Expr o) {
    return Binary.of(BinOp.LE, this, o);
  }

  default Expr le(long o) {
    return le(IntImm.like(this, o));
  }

  default Expr gt(Expr o) {
    return Binary.of(BinOp.GT, this, o);
  }

  default Expr gt(long o) {
    return gt(IntImm.like(this, o));
  }

  default Expr ge(Expr o) {
    return Binary.of(BinOp.GE, this, o);
  }

  default Expr ge(long o) {
    return ge(IntImm.like(this, o));
  }

  // Comparisons with a floating-point constant (of this expression's float dtype): x.gt(0.5).

  default Expr eq(double o) {
    return eq(new FloatImm(floatType(this), o));
  }

  default Expr ne(double o) {
    return ne(new FloatImm(floatType(this), o));
  }

  default Expr lt(double o) {
    return lt(new FloatImm(floatType(this), o));
  }

  default Expr le(double o) {
    return le(new FloatImm(floatType(this), o));
  }

  default Expr gt(double o) {
    return gt(new FloatImm(floatType(this), o));
  }

  default Expr ge(double o) {
    return ge(new FloatImm(floatType(this), o));
  }

  default Expr and(Expr o) {
    return Binary.of(BinOp.AND, this, o);
  }

  default Expr or(Expr o) {
    return Binary.of(BinOp.OR, this, o);
  }

  default Expr not() {
    return Not.of(this);
  }

  /** The expression as text, in the printer's syntax. */
  default String show() {
    return ExprPrinter.print(this);
  }
}
