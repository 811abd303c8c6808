package dev.kernelgen.te;

import java.util.Objects;

/**
 * An iteration variable of a compute operation: a data-parallel axis of its output or a reduce
 * axis. Schedules derive more (split, fused) iteration variables from these. Identity-based.
 */
public final class IterVar {
  /** What an iteration variable iterates over. */
  public enum Kind {
    /** An axis of the output: iterations are independent. */
    DATA_PAR,
    /** An axis that a reduction combines over. */
    REDUCE
  }

  private final Var var;
  private final Range dom;
  private final Kind kind;

  public IterVar(Var var, Range dom, Kind kind) {
    this.var = Objects.requireNonNull(var);
    this.dom = dom;
    this.kind = Objects.requireNonNull(kind);
  }

  public Var var() {
    return var;
  }

  /** The domain: known for the axes of an operation, null for axes a schedule derived. */
  public Range dom() {
    return dom;
  }

  public Kind kind() {
    return kind;
  }

  public String name() {
    return var.name();
  }

  public boolean isReduce() {
    return kind == Kind.REDUCE;
  }

  @Override
  public String toString() {
    return var.name();
  }
}
