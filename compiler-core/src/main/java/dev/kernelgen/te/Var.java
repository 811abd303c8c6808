package dev.kernelgen.te;

import java.util.Objects;

/**
 * A scalar variable: a loop index, a symbolic dim, a let-bound value. Variables have identity: two
 * variables with the same name are different variables (code generators rename where needed).
 */
public final class Var implements Expr {
  private final String name;
  private final DType dtype;

  public Var(String name, DType dtype) {
    this.name = Objects.requireNonNull(name);
    this.dtype = Objects.requireNonNull(dtype);
  }

  /** An int32 index variable. */
  public Var(String name) {
    this(name, DType.INT32);
  }

  public String name() {
    return name;
  }

  @Override
  public DType dtype() {
    return dtype;
  }

  /** A fresh variable with the same dtype and a derived name. */
  public Var copyWithSuffix(String suffix) {
    return new Var(name + suffix, dtype);
  }

  @Override
  public String toString() {
    return name;
  }
}
