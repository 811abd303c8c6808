package dev.kernelgen.te;

import java.util.List;

/** An operation of the tensor-expression graph; each produces one tensor. */
public sealed interface Operation permits PlaceholderOp, ComputeOp {
  String name();

  Tensor output();

  List<Expr> shape();

  DType dtype();

  /** The tensors this operation reads, in first-read order, without duplicates. */
  List<Tensor> inputs();
}
