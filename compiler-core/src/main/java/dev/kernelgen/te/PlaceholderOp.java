package dev.kernelgen.te;

import java.util.List;

/** An input tensor: a buffer the caller passes in. */
public final class PlaceholderOp implements Operation {
  private final String name;
  private final List<Expr> shape;
  private final DType dtype;
  private final Tensor output;

  PlaceholderOp(String name, List<Expr> shape, DType dtype) {
    this.name = name;
    this.shape = List.copyOf(shape);
    this.dtype = dtype;
    this.output = new Tensor(this);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Tensor output() {
    return output;
  }

  @Override
  public List<Expr> shape() {
    return shape;
  }

  @Override
  public DType dtype() {
    return dtype;
  }

  @Override
  public List<Tensor> inputs() {
    return List.of();
  }

  @Override
  public String toString() {
    return name;
  }
}
