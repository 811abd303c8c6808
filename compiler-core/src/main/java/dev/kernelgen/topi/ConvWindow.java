package dev.kernelgen.topi;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How a convolution's window moves along its input's rows, read from its compute: the step of the
 * input column per output column. The CPU schedules choose by it how a row is summed ({@link
 * DepthwiseSchedules#tapRowsOutside} for a step of 1) and how its padded copy is stored ({@link
 * DepthwiseSchedules#deinterleaveColumns} for a larger one).
 */
public final class ConvWindow {
  private ConvWindow() {}

  /**
   * Whether the convolution's window slides by one element along the row: the coefficient of the
   * output's column in the column index of its input read is 1 (stride 1 in the last dimension).
   */
  public static boolean unitColumnStride(Tensor conv) {
    return columnStride(conv) == 1;
  }

  /**
   * The step of the convolution's input column per output column (its stride in the last
   * dimension), or 0 where the input's column index is not of that form.
   */
  public static long columnStride(Tensor conv) {
    ComputeOp op = (ComputeOp) conv.op();
    Var col = op.axis().get(op.axis().size() - 1).var();
    Tensor src = op.inputs().get(0);
    List<Expr> columns = new ArrayList<>();
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        if (e instanceof TensorRead r && r.tensor() == src) {
          columns.add(r.indices().get(r.indices().size() - 1));
        }
        super.visit(e);
      }
    }.visit(op.body());
    if (columns.isEmpty()) {
      return 0;
    }
    Map<Var, Expr> zero = new HashMap<>();
    for (Var v : FreeVars.of(columns.get(0))) {
      zero.put(v, IntImm.of(v.dtype(), 0));
    }
    Map<Var, Expr> one = new HashMap<>(zero);
    one.put(col, IntImm.of(col.dtype(), 1));
    Expr step =
        Simplifier.simplify(
            Substitute.apply(columns.get(0), one).sub(Substitute.apply(columns.get(0), zero)));
    return step instanceof IntImm c ? c.value() : 0;
  }
}
