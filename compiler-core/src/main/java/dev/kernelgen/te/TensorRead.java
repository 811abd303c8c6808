package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;
import java.util.List;

/** A read of one element of a tensor, at one index expression per dimension. */
public record TensorRead(Tensor tensor, List<Expr> indices) implements Expr {
  public TensorRead {
    indices = List.copyOf(indices);
    if (indices.size() != tensor.ndim()) {
      throw new UserError(
          String.format(
              "tensor '%s' has %d dims, but is read with %d indices: %s%s",
              tensor.name(),
              tensor.ndim(),
              indices.size(),
              tensor.name(),
              indices.stream().map(Expr::show).toList()));
    }
    for (int d = 0; d < indices.size(); d++) {
      Expr i = indices.get(d);
      if (!i.dtype().isInt()) {
        throw new UserError(
            String.format(
                "tensor '%s' is read at dim %d with a %s index: %s",
                tensor.name(), d, i.dtype(), i.show()));
      }
    }
  }

  public static TensorRead of(Tensor tensor, List<Expr> indices) {
    return new TensorRead(tensor, indices);
  }

  @Override
  public DType dtype() {
    return tensor.dtype();
  }
}
