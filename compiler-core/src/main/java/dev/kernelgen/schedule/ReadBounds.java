package dev.kernelgen.schedule;

import dev.kernelgen.arith.ConstIntBound;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
    Map<Var, ConstIntBound> ranges = new HashMap<>();
    List<IterVar> axes = new ArrayList<>(op.axis());
    axes.addAll(op.reduceAxis());
    for (IterVar iv : axes) {
      if (iv.dom().min() instanceof IntImm lo && iv.dom().extent() instanceof IntImm n) {
        ranges.put(iv.var(), ConstIntBound.range(lo.value(), n.value()));
      }
    }
    for (TensorRead r : op.unguardedReads()) {
      checkRead(op, r, ranges);
    }
    CHECKED.put(op, Boolean.TRUE);
  }

  private static void checkRead(ComputeOp op, TensorRead r, Map<Var, ConstIntBound> ranges) {
    for (int d = 0; d < r.indices().size(); d++) {
      Expr index = r.indices().get(d);
      if (!(r.tensor().shape().get(d) instanceof IntImm dim)
          || !affine(index, ranges, new HashSet<>())) {
        continue;
      }
      // Exact here: interval arithmetic over a sum in which each variable stands once.
      ConstIntBound range = Simplifier.bound(index, ranges);
      if (range.min() < 0 || range.max() >= dim.value()) {
        throw new UserError(
            String.format(
                "compute '%s' reads %s outside '%s': its index %d takes %d..%d, but dim %d of"
                    + " '%s' has %d elements; a read that may leave its tensor goes inside a"
                    + " select that tests its bounds (or read a padded tensor, topi's pad)",
                op.name(),
                r.show(),
                r.tensor().name(),
                d,
                range.min(),
                range.max(),
                d,
                r.tensor().name(),
                dim.value()));
      }
    }
  }

  /**
   * Whether {@code e} is a sum of constants and of variables with a constant range, each times a
   * constant and each standing once (as {@code i * 2 + ky - 1}).
   */
  private static boolean affine(Expr e, Map<Var, ConstIntBound> ranges, Set<Var> seen) {
    return switch (e) {
      case IntImm c -> true;
      case Var v -> ranges.containsKey(v) && seen.add(v);
      case Cast c -> c.dtype().isInt() && affine(c.value(), ranges, seen);
      case Binary b when b.op() == BinOp.ADD || b.op() == BinOp.SUB ->
          affine(b.a(), ranges, seen) && affine(b.b(), ranges, seen);
      case Binary b when b.op() == BinOp.MUL ->
          b.b() instanceof IntImm
              ? affine(b.a(), ranges, seen)
              : b.a() instanceof IntImm && affine(b.b(), ranges, seen);
      default -> false;
    };
  }
}
