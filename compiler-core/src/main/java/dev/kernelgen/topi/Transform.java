package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.all;
import static dev.kernelgen.te.TE.computeN;
import static dev.kernelgen.te.TE.select;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Injective data movement: reshape, transpose, pad, and layout changes between NCHW and NHWC. */
public final class Transform {
  private Transform() {}

  /**
   * The elements of {@code x} in row-major order, viewed with {@code shape}; the element counts
   * must agree (checked when both are constant).
   */
  public static Tensor reshape(Tensor x, List<Expr> shape) {
    Expr before = count(x.shape());
    Expr after = count(shape);
    Expr diff = Simplifier.simplify(before.sub(after));
    UserError.check(
        !(diff instanceof IntImm z) || z.value() == 0,
        "reshape of '%s' %s to %s changes the element count",
        x.name(),
        x.shape(),
        shape);
    return computeN(
        "Reshape",
        TE.shape(shape.toArray()),
        i -> {
          Expr flat = IntImm.like(i.get(0), 0);
          for (int d = 0; d < shape.size(); d++) {
            flat = flat.mul(shape.get(d)).add(i.get(d));
          }
          List<Expr> at = new ArrayList<>();
          for (int d = x.ndim() - 1; d >= 0; d--) {
            Expr ext = x.shape().get(d);
            at.add(0, d == 0 ? flat : flat.floormod(ext));
            flat = flat.floordiv(ext);
          }
          return x.at(at);
        });
  }

  private static Expr count(List<Expr> shape) {
    Expr n = IntImm.of(1);
    for (Expr d : shape) {
      n = n.mul(d);
    }
    return Simplifier.simplify(n);
  }

  /** Output dim {@code d} is input dim {@code perm[d]}. */
  public static Tensor transpose(Tensor x, int... perm) {
    UserError.check(
        perm.length == x.ndim(),
        "transpose of '%s' (%d dims) by %s",
        x.name(),
        x.ndim(),
        Arrays.toString(perm));
    boolean[] seen = new boolean[perm.length];
    for (int p : perm) {
      UserError.check(
          p >= 0 && p < perm.length && !seen[p],
          "transpose of '%s': %s is not a permutation",
          x.name(),
          Arrays.toString(perm));
      seen[p] = true;
    }
    List<Expr> shape = new ArrayList<>();
    for (int p : perm) {
      shape.add(x.shape().get(p));
    }
    return computeN(
        "Transpose",
        shape,
        i -> {
          Expr[] at = new Expr[perm.length];
          for (int d = 0; d < perm.length; d++) {
            at[perm[d]] = i.get(d);
          }
          return x.at((Object[]) at);
        });
  }

  public static Tensor nchwToNhwc(Tensor x) {
    checkRank4(x);
    return rename(transpose(x, 0, 2, 3, 1), "ToNhwc");
  }

  public static Tensor nhwcToNchw(Tensor x) {
    checkRank4(x);
    return rename(transpose(x, 0, 3, 1, 2), "ToNchw");
  }

  private static void checkRank4(Tensor x) {
    UserError.check(
        x.ndim() == 4, "layout change of '%s' needs 4 dims, has %d", x.name(), x.ndim());
  }

  /**
   * {@code x} with {@code before[d]} and {@code after[d]} elements of {@code value} around dim d.
   */
  public static Tensor pad(Tensor x, int[] before, int[] after, double value) {
    UserError.check(
        before.length == x.ndim() && after.length == x.ndim(),
        "pad of '%s' needs %d amounts before and after",
        x.name(),
        x.ndim());
    List<Expr> amounts = new ArrayList<>();
    for (int a : after) {
      amounts.add(IntImm.of(a));
    }
    return pad(x, before, amounts, value);
  }

  /**
   * As above, the amounts after each dim expressions (symbolic where a padded extent is counted
   * from symbolic dims, as a tile grid's); a symbolic amount is trusted to be non-negative.
   */
  static Tensor pad(Tensor x, int[] before, List<Expr> after, double value) {
    UserError.check(
        before.length == x.ndim() && after.size() == x.ndim(),
        "pad of '%s' needs %d amounts before and after",
        x.name(),
        x.ndim());
    List<Expr> shape = new ArrayList<>();
    for (int d = 0; d < x.ndim(); d++) {
      Expr a = after.get(d);
      UserError.check(
          before[d] >= 0 && !(a instanceof IntImm k && k.value() < 0),
          "pad of '%s': negative amount",
          x.name());
      shape.add(
          Simplifier.simplify(
              a instanceof IntImm k
                  ? x.shape().get(d).add(before[d] + k.value())
                  : x.shape().get(d).add(before[d]).add(a)));
    }
    Expr fill = Elementwise.constant(x.dtype(), value);
    return computeN(
        "Pad",
        shape,
        i -> {
          List<Expr> conds = new ArrayList<>();
          List<Expr> at = new ArrayList<>();
          for (int d = 0; d < x.ndim(); d++) {
            Expr src = i.get(d).sub(before[d]);
            at.add(src);
            if (before[d] > 0) {
              conds.add(i.get(d).ge(before[d]));
            }
            if (!(after.get(d) instanceof IntImm k && k.value() == 0)) {
              conds.add(src.lt(x.shape().get(d)));
            }
          }
          if (conds.isEmpty()) {
            return x.at(at);
          }
          return select(all(conds.toArray(Expr[]::new)), x.at(at), fill);
        });
  }

  static Tensor rename(Tensor t, String name) {
    dev.kernelgen.te.ComputeOp op = (dev.kernelgen.te.ComputeOp) t.op();
    return new dev.kernelgen.te.ComputeOp(name, op.axis(), op.body(), op.tag()).output();
  }

  /**
   * {@code t}'s computation with {@code tag}: what default schedules recognize an operator by
   * ({@link OpSchedules#MATMUL}, {@link OpSchedules#CONV2D_NCHW}), as TVM's topi tags do.
   */
  static Tensor tagged(Tensor t, String tag) {
    dev.kernelgen.te.ComputeOp op = (dev.kernelgen.te.ComputeOp) t.op();
    return new dev.kernelgen.te.ComputeOp(op.name(), op.axis(), op.body(), tag).output();
  }
}
