package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.computeN;
import static dev.kernelgen.te.TE.reduceAxis;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Reducer;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * Reductions over axes (sum, max, min, mean) and softmax / log-softmax along an axis.
 *
 * <p>Softmax is three stages as TVM writes it: the row maximum, the sum of {@code exp(x - max)},
 * and the elementwise output; the two reductions are what the fusion rules cannot remove, so on a
 * GPU they become the output kernel's local (per-thread) or shared (per-block) stages.
 */
public final class Reduction {
  private Reduction() {}

  public static Tensor sum(Tensor x, boolean keepDims, int... axes) {
    return reduce("Sum", Reducer.sum(x.dtype()), x, keepDims, axes);
  }

  public static Tensor max(Tensor x, boolean keepDims, int... axes) {
    return reduce("Max", Reducer.max(x.dtype()), x, keepDims, axes);
  }

  public static Tensor min(Tensor x, boolean keepDims, int... axes) {
    return reduce("Min", Reducer.min(x.dtype()), x, keepDims, axes);
  }

  /** The mean over {@code axes}: a sum, then an elementwise division by the count. */
  public static Tensor mean(Tensor x, boolean keepDims, int... axes) {
    Elementwise.requireFloat("mean", x);
    Tensor s = sum(x, keepDims, axes);
    Expr count = IntImm.of(1);
    for (int a : normalize(x, axes)) {
      count = count.mul(x.shape().get(a));
    }
    Expr n = TE.cast(x.dtype(), dev.kernelgen.arith.Simplifier.simplify(count));
    return computeN("Mean", s.shape(), i -> s.at(i).div(n));
  }

  /**
   * {@code combiner} over {@code axes} of {@code x} (all axes when none are given); with {@code
   * keepDims} the reduced axes stay as dims of extent 1.
   */
  public static Tensor reduce(
      String name, Reducer combiner, Tensor x, boolean keepDims, int... axes) {
    TreeSet<Integer> red = normalize(x, axes);
    List<Expr> shape = new ArrayList<>();
    List<Integer> outOfIn = new ArrayList<>();
    for (int d = 0; d < x.ndim(); d++) {
      if (!red.contains(d)) {
        outOfIn.add(shape.size());
        shape.add(x.shape().get(d));
      } else if (keepDims) {
        outOfIn.add(-1);
        shape.add(IntImm.of(1));
      } else {
        outOfIn.add(-1);
      }
    }
    List<IterVar> rv = new ArrayList<>();
    for (int d : red) {
      rv.add(reduceAxis(x.shape().get(d), "r" + d));
    }
    if (shape.isEmpty()) {
      shape.add(IntImm.of(1));
    }
    boolean scalar = red.size() == x.ndim() && !keepDims;
    return computeN(
        name,
        shape,
        i -> {
          List<Expr> at = new ArrayList<>();
          int r = 0;
          int kept = 0;
          for (int d = 0; d < x.ndim(); d++) {
            if (red.contains(d)) {
              at.add(rv.get(r++).var());
              if (keepDims) {
                kept++;
              }
            } else {
              at.add(i.get(scalar ? 0 : kept++));
            }
          }
          return TE.reduce(combiner, x.at(at), rv.toArray(IterVar[]::new));
        });
  }

  private static TreeSet<Integer> normalize(Tensor x, int... axes) {
    TreeSet<Integer> out = new TreeSet<>();
    if (axes.length == 0) {
      for (int d = 0; d < x.ndim(); d++) {
        out.add(d);
      }
      return out;
    }
    for (int a : axes) {
      int d = a < 0 ? a + x.ndim() : a;
      UserError.check(
          d >= 0 && d < x.ndim(), "axis %d is not a dim of '%s' %s", a, x.name(), x.shape());
      UserError.check(out.add(d), "axis %d is listed twice in %s", a, Arrays.toString(axes));
    }
    return out;
  }

  /** {@code exp(x - max) * (1 / sum(exp(x - max)))} along {@code axis}. */
  public static Tensor softmax(Tensor x, int axis) {
    return softmaxLike(x, axis, false);
  }

  /** {@code x - max - log(sum(exp(x - max)))} along {@code axis}. */
  public static Tensor logSoftmax(Tensor x, int axis) {
    return softmaxLike(x, axis, true);
  }

  private static Tensor softmaxLike(Tensor x, int axis, boolean log) {
    Elementwise.requireFloat(log ? "log_softmax" : "softmax", x);
    int a = normalize(x, axis).first();
    Tensor mx = max(x, true, a);
    mx = rename(mx, "SoftmaxMax");
    Tensor finalMx = mx;
    // Softmax reads exp(x - max) twice, in the sum and in the quotient: a stage of its own, which
    // the CPU schedules compute once per row and GPU schedules inline (log softmax reads it once).
    // The quotient multiplies by the sum's reciprocal, once per row, as PyTorch's and ONNX
    // Runtime's kernels do: a vector division per element cost 7% of the row on an AVX-512 Xeon.
    Tensor ex =
        log
            ? null
            : computeN(
                "SoftmaxExp",
                x.shape(),
                i -> {
                  List<Expr> r = new ArrayList<>(i);
                  r.set(a, IntImm.like(i.get(a), 0));
                  return TE.exp(x.at(i).sub(finalMx.at(r)));
                });
    IterVar k = reduceAxis(x.shape().get(a), "k");
    Tensor es =
        computeN(
            "SoftmaxExpSum",
            mx.shape(),
            i -> {
              List<Expr> at = new ArrayList<>(i);
              at.set(a, k.var());
              return TE.sum(log ? TE.exp(x.at(at).sub(finalMx.at(i))) : ex.at(at), k);
            });
    return computeN(
        log ? "LogSoftmax" : "Softmax",
        x.shape(),
        i -> {
          List<Expr> r = new ArrayList<>(i);
          r.set(a, IntImm.like(i.get(a), 0));
          return log
              ? x.at(i).sub(finalMx.at(r)).sub(TE.log(es.at(r)))
              : ex.at(i).mul(new FloatImm(x.dtype(), 1.0).div(es.at(r)));
        });
  }

  /**
   * Softmax along the last axis of a matrix {@code [rows, cols]}, with each row's reductions split
   * into {@code lanes} partial reductions (lane {@code l} covers columns {@code l, l + lanes, ...})
   * and then combined: the formulation that GPU threads of a block (one per lane) compute together,
   * reading the row coalesced ({@link OpSchedules#softmaxLanesGpu}). The combined row maximum and
   * sum are replicated per lane ({@code [rows, lanes]}), so that every lane reads its own copy.
   * Equal to {@link #softmax} up to rounding.
   */
  public static Tensor softmaxLanes(Tensor x, int lanes) {
    Elementwise.requireFloat("softmax", x);
    UserError.check(
        x.ndim() == 2,
        "softmax_lanes needs a matrix [rows, cols], '%s' has %d dims",
        x.name(),
        x.ndim());
    UserError.check(lanes > 0, "softmax_lanes: lanes must be positive, got %d", lanes);
    Expr cols = x.shape().get(1);
    Expr steps = dev.kernelgen.arith.Simplifier.simplify(cols.add(lanes - 1).floordiv(lanes));
    List<Expr> partial = TE.shape(x.shape().get(0), lanes);
    IterVar k1 = reduceAxis(steps, "k");
    Tensor pmax =
        TE.compute(
            "SoftmaxPartMax",
            partial,
            (i, l) -> {
              Expr col = k1.var().mul(lanes).add(l);
              return TE.reduceWhere(Reducer.max(x.dtype()), x.at(i, col), col.lt(cols), k1);
            });
    IterVar l1 = reduceAxis(lanes, "l");
    Tensor mx = TE.compute("SoftmaxMax", partial, (i, t) -> TE.max(pmax.at(i, l1.var()), l1));
    IterVar k2 = reduceAxis(steps, "k");
    Tensor psum =
        TE.compute(
            "SoftmaxPartSum",
            partial,
            (i, l) -> {
              Expr col = k2.var().mul(lanes).add(l);
              return TE.reduceWhere(
                  Reducer.sum(x.dtype()), TE.exp(x.at(i, col).sub(mx.at(i, l))), col.lt(cols), k2);
            });
    IterVar l2 = reduceAxis(lanes, "l");
    Tensor sum = TE.compute("SoftmaxSum", partial, (i, t) -> TE.sum(psum.at(i, l2.var()), l2));
    return TE.compute(
        "Softmax",
        x.shape(),
        (i, j) -> {
          Expr lane = j.floormod(lanes);
          return TE.exp(x.at(i, j).sub(mx.at(i, lane))).div(sum.at(i, lane));
        });
  }

  private static Tensor rename(Tensor t, String name) {
    dev.kernelgen.te.ComputeOp op = (dev.kernelgen.te.ComputeOp) t.op();
    return new dev.kernelgen.te.ComputeOp(name, op.axis(), op.body(), op.tag()).output();
  }
}
