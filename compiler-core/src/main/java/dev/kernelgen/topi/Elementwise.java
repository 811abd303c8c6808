package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.computeN;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;

/**
 * Elementwise operators, binary ones with numpy broadcasting: the shapes are aligned at their last
 * dims; a dim of constant extent 1 (or a missing leading dim) repeats along the other operand's
 * dim; otherwise the two dims must be the same expression.
 *
 * <p>Every operator here is injective, so the fusion rules ({@link Fusion}) inline it into its
 * consumer: a chain of them becomes one loop nest.
 */
public final class Elementwise {
  private Elementwise() {}

  /** The broadcast shape of {@code a} and {@code b}. */
  public static List<Expr> broadcastShape(Tensor a, Tensor b) {
    int n = Math.max(a.ndim(), b.ndim());
    List<Expr> out = new ArrayList<>();
    for (int d = 0; d < n; d++) {
      Expr x = dimFromRight(a, n - 1 - d);
      Expr y = dimFromRight(b, n - 1 - d);
      if (x == null || isOne(x)) {
        out.add(y == null ? x : y);
      } else if (y == null || isOne(y)) {
        out.add(x);
      } else {
        UserError.check(
            Simplifier.simplify(x.sub(y)) instanceof IntImm z && z.value() == 0,
            "cannot broadcast '%s' %s with '%s' %s: dim %d is %s against %s",
            a.name(),
            a.shape(),
            b.name(),
            b.shape(),
            d,
            x.show(),
            y.show());
        out.add(x);
      }
    }
    return out;
  }

  private static Expr dimFromRight(Tensor t, int fromRight) {
    int d = t.ndim() - 1 - fromRight;
    return d < 0 ? null : t.shape().get(d);
  }

  private static boolean isOne(Expr e) {
    return e instanceof IntImm i && i.value() == 1;
  }

  /** Reads {@code t} at the output index {@code idx} of a broadcast of rank {@code idx.size()}. */
  public static Expr broadcastRead(Tensor t, List<? extends Expr> idx) {
    int off = idx.size() - t.ndim();
    List<Expr> at = new ArrayList<>();
    for (int d = 0; d < t.ndim(); d++) {
      at.add(isOne(t.shape().get(d)) ? IntImm.like(idx.get(off + d), 0) : idx.get(off + d));
    }
    return t.at(at);
  }

  /** {@code f(a, b)} with broadcasting. */
  public static Tensor binary(String name, Tensor a, Tensor b, BinaryOperator<Expr> f) {
    UserError.check(
        a.dtype() == b.dtype(),
        "%s: '%s' is %s but '%s' is %s",
        name,
        a.name(),
        a.dtype(),
        b.name(),
        b.dtype());
    return computeN(
        name, broadcastShape(a, b), i -> f.apply(broadcastRead(a, i), broadcastRead(b, i)));
  }

  /** {@code f(x)} elementwise. */
  public static Tensor unary(String name, Tensor x, UnaryOperator<Expr> f) {
    return computeN(name, x.shape(), i -> f.apply(x.at(i)));
  }

  public static Tensor add(Tensor a, Tensor b) {
    return binary("Add", a, b, Expr::add);
  }

  public static Tensor sub(Tensor a, Tensor b) {
    return binary("Sub", a, b, Expr::sub);
  }

  public static Tensor mul(Tensor a, Tensor b) {
    return binary("Mul", a, b, Expr::mul);
  }

  /** Float division (integer tensors: floor division). */
  public static Tensor div(Tensor a, Tensor b) {
    return binary("Div", a, b, (x, y) -> a.dtype().isFloat() ? x.div(y) : x.floordiv(y));
  }

  public static Tensor maximum(Tensor a, Tensor b) {
    return binary("Maximum", a, b, Expr::max);
  }

  public static Tensor minimum(Tensor a, Tensor b) {
    return binary("Minimum", a, b, Expr::min);
  }

  /** {@code max(x, 0)}. */
  public static Tensor relu(Tensor x) {
    return unary("Relu", x, v -> v.max(constant(x.dtype(), 0)));
  }

  /** {@code min(max(x, 0), 6)}. */
  public static Tensor relu6(Tensor x) {
    return unary("Relu6", x, v -> v.max(constant(x.dtype(), 0)).min(constant(x.dtype(), 6)));
  }

  /** {@code 1 / (1 + exp(-x))}. */
  public static Tensor sigmoid(Tensor x) {
    requireFloat("sigmoid", x);
    return unary(
        "Sigmoid",
        x,
        v ->
            constant(x.dtype(), 1)
                .div(constant(x.dtype(), 1).add(TE.exp(constant(x.dtype(), 0).sub(v)))));
  }

  public static Tensor tanh(Tensor x) {
    requireFloat("tanh", x);
    return unary("Tanh", x, TE::tanh);
  }

  public static Tensor exp(Tensor x) {
    requireFloat("exp", x);
    return unary("Exp", x, TE::exp);
  }

  /** {@code x * s} for a scalar constant {@code s}. */
  public static Tensor scale(Tensor x, double s) {
    return unary("Scale", x, v -> v.mul(constant(x.dtype(), s)));
  }

  /** {@code x + s} for a scalar constant {@code s}. */
  public static Tensor addScalar(Tensor x, double s) {
    return unary("AddScalar", x, v -> v.add(constant(x.dtype(), s)));
  }

  /**
   * Per-channel {@code x * scale[c] + shift[c]} along axis {@code axis} of {@code x} (1 for NCHW, 3
   * for NHWC).
   */
  public static Tensor scaleShift(Tensor x, Tensor scale, Tensor shift, int axis) {
    checkChannelVector("scale_shift", x, axis, scale);
    checkChannelVector("scale_shift", x, axis, shift);
    return computeN(
        "ScaleShift",
        x.shape(),
        i -> x.at(i).mul(scale.at(i.get(axis))).add(shift.at(i.get(axis))));
  }

  /**
   * Batch normalization in inference: {@code (x - mean[c]) / sqrt(var[c] + eps) * gamma[c] +
   * beta[c]} along channel axis {@code axis}.
   */
  public static Tensor batchNormInference(
      Tensor x, Tensor gamma, Tensor beta, Tensor mean, Tensor var, double eps, int axis) {
    requireFloat("batch_norm", x);
    for (Tensor t : new Tensor[] {gamma, beta, mean, var}) {
      checkChannelVector("batch_norm", x, axis, t);
    }
    return computeN(
        "BatchNorm",
        x.shape(),
        i -> {
          Expr c = i.get(axis);
          Expr inv = TE.sqrt(var.at(c).add(constant(x.dtype(), eps)));
          return x.at(i).sub(mean.at(c)).div(inv).mul(gamma.at(c)).add(beta.at(c));
        });
  }

  private static void checkChannelVector(String op, Tensor x, int axis, Tensor v) {
    UserError.check(
        axis >= 0 && axis < x.ndim(), "%s: axis %d is not a dim of '%s'", op, axis, x.name());
    UserError.check(
        v.ndim() == 1, "%s: '%s' must be a vector of the channels of '%s'", op, v.name(), x.name());
    UserError.check(
        v.dtype() == x.dtype(),
        "%s: '%s' is %s, '%s' is %s",
        op,
        v.name(),
        v.dtype(),
        x.name(),
        x.dtype());
  }

  static void requireFloat(String op, Tensor x) {
    UserError.check(
        x.dtype().isFloat(), "%s needs a float tensor, '%s' is %s", op, x.name(), x.dtype());
  }

  /** The constant {@code v} in {@code dtype}. */
  static Expr constant(DType dtype, double v) {
    return dtype.isFloat() ? new FloatImm(dtype, v) : IntImm.of(dtype, (long) v);
  }
}
