package dev.kernelgen.te;

import java.util.List;
import java.util.Objects;

/**
 * A flat region of memory of one dtype. Kernel parameters carry the shape of the tensor they hold
 * (row-major); allocations inside a kernel carry none. Identity-based.
 */
public final class Buffer {
  private final String name;
  private final DType dtype;
  private final MemoryScope scope;
  private final List<Expr> shape;

  public Buffer(String name, DType dtype, MemoryScope scope, List<Expr> shape) {
    this.name = Objects.requireNonNull(name);
    this.dtype = Objects.requireNonNull(dtype);
    this.scope = Objects.requireNonNull(scope);
    this.shape = List.copyOf(shape);
  }

  public String name() {
    return name;
  }

  public DType dtype() {
    return dtype;
  }

  public MemoryScope scope() {
    return scope;
  }

  /** The tensor shape for parameters; empty for allocations. */
  public List<Expr> shape() {
    return shape;
  }

  @Override
  public String toString() {
    return name;
  }
}
