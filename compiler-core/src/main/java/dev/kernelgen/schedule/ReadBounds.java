package dev.kernelgen.schedule;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * A compute's reads that leave their tensor for certain: an index that is a sum of loop variables
 * times constants (each variable once, over constant ranges), outside every select, whose range
 * passes the tensor's constant dim, as in {@code x.at(i, j + 10)} over a dim of 4. The kernels
 * would read memory outside the buffer (on C, a crash of the JVM or wrong values); padding is
 * written with a select that tests the bounds (or {@code topi}'s pad). Other indices (divisions,
 * clamps, values read from tensors) are not judged here.
 */
final class ReadBounds {
  private ReadBounds() {}

  /** Computes already checked: a schedule is created many times over one operator. */
  private static final Map<ComputeOp, Boolean> CHECKED =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** Throws a {@link UserError} naming the read, the index and the dim where one leaves. */
  static void check(ComputeOp op) {
    if (CHECKED.containsKey(op)) {
      return;
    }
    Map<Var, long[]> ranges = new HashMap<>();
    List<IterVar> axes = new ArrayList<>(op.axis());
    axes.addAll(op.reduceAxis());
    for (IterVar iv : axes) {
      if (iv.dom().min() instanceof IntImm lo && iv.dom().extent() instanceof IntImm n) {
        ranges.put(iv.var(), new long[] {lo.value(), lo.value() + n.value() - 1});
      }
    }
    Expr body = op.body();
    if (body instanceof Reduce r && !(r.condition() instanceof IntImm)) {
      body = null; // the reduction's condition may guard its reads (padding as a condition)
    }
    if (body != null) {
      new ExprVisitor() {
        @Override
        public void visit(Expr e) {
          if (e instanceof Select) {
            return; // a select may test the read's bounds
          }
          if (e instanceof TensorRead r) {
            checkRead(op, r, ranges);
          }
          super.visit(e);
        }
      }.visit(body);
    }
    CHECKED.put(op, Boolean.TRUE);
  }

  private static void checkRead(ComputeOp op, TensorRead r, Map<Var, long[]> ranges) {
    for (int d = 0; d < r.indices().size(); d++) {
      if (!(r.tensor().shape().get(d) instanceof IntImm dim)) {
        continue;
      }
      long[] range = range(r.indices().get(d), ranges, new ArrayList<>());
      if (range != null && (range[0] < 0 || range[1] >= dim.value())) {
        throw new UserError(
            String.format(
                "compute '%s' reads %s outside '%s': its index %d takes %d..%d, but dim %d of"
                    + " '%s' has %d elements; a read that may leave its tensor goes inside a"
                    + " select that tests its bounds (or read a padded tensor, topi's pad)",
                op.name(),
                r.show(),
                r.tensor().name(),
                d,
                range[0],
                range[1],
                d,
                r.tensor().name(),
                dim.value()));
      }
    }
  }

  /**
   * The exact range of an affine index whose variables each appear once and range over constants;
   * null for any other index.
   */
  private static long[] range(Expr e, Map<Var, long[]> ranges, List<Var> seen) {
    if (e instanceof IntImm c) {
      return new long[] {c.value(), c.value()};
    }
    if (e instanceof Var v) {
      if (!ranges.containsKey(v) || seen.contains(v)) {
        return null;
      }
      seen.add(v);
      return ranges.get(v).clone();
    }
    if (e instanceof Cast c && c.dtype().isInt()) {
      return range(c.value(), ranges, seen);
    }
    if (!(e instanceof Binary b)) {
      return null;
    }
    switch (b.op()) {
      case ADD, SUB -> {
        long[] x = range(b.a(), ranges, seen);
        long[] y = x == null ? null : range(b.b(), ranges, seen);
        if (y == null) {
          return null;
        }
        return b.op() == dev.kernelgen.te.BinOp.ADD
            ? new long[] {x[0] + y[0], x[1] + y[1]}
            : new long[] {x[0] - y[1], x[1] - y[0]};
      }
      case MUL -> {
        Expr scaled = b.b() instanceof IntImm ? b.a() : b.a() instanceof IntImm ? b.b() : null;
        if (scaled == null) {
          return null;
        }
        long k = ((IntImm) (scaled == b.a() ? b.b() : b.a())).value();
        long[] x = range(scaled, ranges, seen);
        if (x == null) {
          return null;
        }
        return new long[] {Math.min(x[0] * k, x[1] * k), Math.max(x[0] * k, x[1] * k)};
      }
      default -> {
        return null;
      }
    }
  }
}
