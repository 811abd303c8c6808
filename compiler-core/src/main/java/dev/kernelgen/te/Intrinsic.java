package dev.kernelgen.te;

/** Math functions on floating-point values. */
public enum Intrinsic {
  EXP("exp", 1),
  LOG("log", 1),
  SQRT("sqrt", 1),
  TANH("tanh", 1),
  POW("pow", 2),
  ABS("fabs", 1),
  FLOOR("floor", 1),
  CEIL("ceil", 1);

  private final String cName;
  private final int arity;

  Intrinsic(String cName, int arity) {
    this.cName = cName;
    this.arity = arity;
  }

  /** The C math library's name for the double version. */
  public String cName() {
    return cName;
  }

  public int arity() {
    return arity;
  }
}
