package dev.kernelgen.measure;

import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.PlaceholderOp;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.Reducer;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * An operator's graph with every float32 sum accumulated in float64 and rounded to float32 once:
 * the naive loop nest that stands in for the oracle on large tasks computes the sums' values, as
 * the interpreter does, rather than one summation order's rounding errors (a float32 sum of the 16M
 * squares of a [4096, 4096] tensor, one term after another, came out 2% low). The kernel's
 * parameters are unchanged: the inputs, then the outputs, in float32.
 */
final class WideSums {
  private WideSums() {}

  /** {@code op} itself where it has no float32 sum, else its rebuilt graph. */
  static OperatorDef of(OperatorDef op) {
    if (op.graph().stream().noneMatch(WideSums::isFloatSum)) {
      return op;
    }
    Map<Tensor, Tensor> tensors = new IdentityHashMap<>();
    for (Tensor t : op.graph()) {
      if (t.op() instanceof PlaceholderOp) {
        tensors.put(t, t);
      } else if (t.op() instanceof ComputeOp c) {
        Expr body = redirect(c.body(), tensors);
        if (isFloatSum(t)) {
          Reduce r = (Reduce) body;
          Reduce wide =
              new Reduce(
                  Reducer.sum(DType.FLOAT64),
                  TE.cast(DType.FLOAT64, r.source()),
                  r.axes(),
                  r.condition());
          Tensor acc = new ComputeOp(c.name() + "_f64", c.axis(), wide, c.tag()).output();
          List<IterVar> axis = new ArrayList<>();
          for (IterVar iv : c.axis()) {
            axis.add(new IterVar(new Var(iv.var().name(), iv.var().dtype()), iv.dom(), iv.kind()));
          }
          Expr read = acc.at(axis.stream().map(IterVar::var).toList());
          tensors.put(
              t, new ComputeOp(c.name(), axis, TE.cast(DType.FLOAT32, read), c.tag()).output());
        } else {
          tensors.put(t, new ComputeOp(c.name(), c.axis(), body, c.tag()).output());
        }
      }
    }
    return OperatorDef.of(op.inputs(), op.outputs().stream().map(tensors::get).toList());
  }

  private static boolean isFloatSum(Tensor t) {
    return t.op() instanceof ComputeOp c
        && c.body() instanceof Reduce r
        && r.dtype() == DType.FLOAT32
        && r.combiner().name().equals("sum");
  }

  /** {@code e} reading the rebuilt tensors. */
  private static Expr redirect(Expr e, Map<Tensor, Tensor> tensors) {
    return new ExprMutator() {
      @Override
      public Expr mutate(Expr x) {
        if (x instanceof TensorRead r) {
          return TensorRead.of(tensors.get(r.tensor()), mutateAll(r.indices()));
        }
        return mutateChildren(x);
      }
    }.mutate(e);
  }
}
