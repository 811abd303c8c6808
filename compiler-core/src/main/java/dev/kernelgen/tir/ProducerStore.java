package dev.kernelgen.tir;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Tensor;
import java.util.List;

/** Writes one element of a tensor at multi-dimensional indices; before storage flattening. */
public record ProducerStore(Tensor tensor, List<Expr> indices, Expr value) implements Stmt {
  public ProducerStore {
    indices = List.copyOf(indices);
  }
}
