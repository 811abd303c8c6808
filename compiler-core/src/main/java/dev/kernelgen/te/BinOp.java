package dev.kernelgen.te;

/** Binary operators. Comparisons and logic yield bool; the rest keep the operands' dtype. */
public enum BinOp {
  ADD("+"),
  SUB("-"),
  MUL("*"),
  DIV("/"),
  FLOOR_DIV("floordiv"),
  FLOOR_MOD("floormod"),
  MIN("min"),
  MAX("max"),
  EQ("=="),
  NE("!="),
  LT("<"),
  LE("<="),
  GT(">"),
  GE(">="),
  AND("&&"),
  OR("||");

  private final String symbol;

  BinOp(String symbol) {
    this.symbol = symbol;
  }

  public String symbol() {
    return symbol;
  }

  /** This comparison with its operands swapped ({@code a < b} is {@code b > a}); others as is. */
  public BinOp swapped() {
    return switch (this) {
      case LT -> GT;
      case LE -> GE;
      case GT -> LT;
      case GE -> LE;
      default -> this;
    };
  }

  public boolean isComparison() {
    return this == EQ || this == NE || this == LT || this == LE || this == GT || this == GE;
  }

  public boolean isLogical() {
    return this == AND || this == OR;
  }

  /** Printed as a function call ({@code min(a, b)}) rather than infix. */
  public boolean isFunctionLike() {
    return this == FLOOR_DIV || this == FLOOR_MOD || this == MIN || this == MAX;
  }
}
