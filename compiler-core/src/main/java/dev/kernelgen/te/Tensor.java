package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;
import java.util.ArrayList;
import java.util.List;

/** The output of an {@link Operation}: a named, typed, shaped tensor. Identity-based. */
public final class Tensor {
  private final Operation op;

  Tensor(Operation op) {
    this.op = op;
  }

  public Operation op() {
    return op;
  }

  public String name() {
    return op.name();
  }

  public List<Expr> shape() {
    return op.shape();
  }

  public int ndim() {
    return op.shape().size();
  }

  public DType dtype() {
    return op.dtype();
  }

  /**
   * A read of one element; indices are {@link Expr}s or Java integers.
   *
   * @throws UserError if the number of indices is not the tensor's rank
   */
  public TensorRead at(Object... indices) {
    List<Expr> idx = new ArrayList<>(indices.length);
    for (Object o : indices) {
      idx.add(TE.expr(o));
    }
    return TensorRead.of(this, idx);
  }

  /** A read with a list of indices. */
  public TensorRead at(List<? extends Expr> indices) {
    return TensorRead.of(this, List.copyOf(indices));
  }

  @Override
  public String toString() {
    return op.name();
  }
}
