package dev.kernelgen.eval;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.TensorRead;
import java.util.Arrays;

/** A tensor read's offset computation: proven in bounds, or with a check per index. */
final class TensorReadOffset {
  final LinearIndex flat;
  private final LinearIndex[] indices;
  private final long[] shape;
  private final long[] strides;
  private final TensorRead expr;
  private final String reader;

  TensorReadOffset(
      LinearIndex flat,
      LinearIndex[] indices,
      long[] shape,
      long[] strides,
      TensorRead expr,
      String reader) {
    this.flat = flat;
    this.indices = indices;
    this.shape = shape;
    this.strides = strides;
    this.expr = expr;
    this.reader = reader;
  }

  int eval(Frame f) {
    if (flat != null) {
      return (int) flat.eval(f);
    }
    long off = 0;
    for (int d = 0; d < indices.length; d++) {
      long i = indices[d].eval(f);
      if (i < 0 || i >= shape[d]) {
        throw outOfBounds(f);
      }
      off += i * strides[d];
    }
    return (int) off;
  }

  private UserError outOfBounds(Frame f) {
    long[] at = new long[indices.length];
    for (int d = 0; d < at.length; d++) {
      at[d] = indices[d].eval(f);
    }
    return new UserError(
        "'"
            + reader
            + "' reads tensor '"
            + expr.tensor().name()
            + "' out of bounds at "
            + Arrays.toString(at)
            + " (shape "
            + Arrays.toString(shape)
            + "): "
            + expr.show());
  }
}
