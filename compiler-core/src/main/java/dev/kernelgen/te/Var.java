package dev.kernelgen.te;

import java.util.Objects;

/**
 * A scalar variable: a loop index, a symbolic dim, a let-bound value. Variables have identity: two
 * variables with the same name are different variables (code generators rename where needed).
 */
public final class Var implements Expr {
  private final String name;
  private final DType dtype;

  /**
   * Made by {@link TE#reduceAxis}: only a reduction over it may read it (see {@link ComputeOp}).
   */
  private final boolean reduceAxis;

  public Var(String name, DType dtype) {
    this(name, dtype, false);
  }

  private Var(String name, DType dtype, boolean reduceAxis) {
    this.name = Objects.requireNonNull(name);
    this.dtype = Objects.requireNonNull(dtype);
    this.reduceAxis = reduceAxis;
  }

  /** The variable of a reduce axis that the DSL made. */
  static Var reduceAxis(String name, DType dtype) {
    return new Var(name, dtype, true);
  }

  /** Whether the DSL made this variable for a reduce axis. */
  boolean isReduceAxis() {
    return reduceAxis;
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
