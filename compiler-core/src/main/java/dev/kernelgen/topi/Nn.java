package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.all;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;

/** Neural-network operators, written as the seed article writes them. */
public final class Nn {
  private Nn() {}

  /** Zero padding of the two last dims of an NCHW tensor: the article's {@code PaddedInput}. */
  public static Tensor pad2d(Tensor input, Padding p, String name) {
    UserError.check(
        input.ndim() == 4,
        "pad2d needs an NCHW tensor, '%s' has %d dims",
        input.name(),
        input.ndim());
    if (p.equals(Padding.valid())) {
      return input;
    }
    Expr inH = input.shape().get(2);
    Expr inW = input.shape().get(3);
    Expr zero = input.dtype().isFloat() ? new FloatImm(input.dtype(), 0) : IntImm.of(0);
    return compute(
        name,
        shape(
            input.shape().get(0),
            input.shape().get(1),
            inH.add(p.top() + p.bottom()),
            inW.add(p.left() + p.right())),
        (b, c, i, j) ->
            select(
                all(i.ge(p.top()), i.sub(p.top()).lt(inH), j.ge(p.left()), j.sub(p.left()).lt(inW)),
                input.at(b, c, i.sub(p.top()), j.sub(p.left())),
                zero));
  }

  /**
   * Depthwise 2-d convolution, NCHW: {@code Output[b, c, i, j] = sum over di, dj of Padded[b, c /
   * multiplier, i * stride_h + di * dilation, j * stride_w + dj * dilation] * Filter[c /
   * multiplier, c % multiplier, di, dj]}, with filter {@code [C, multiplier, KH, KW]}.
   */
  public static Tensor depthwiseConv2dNchw(
      Tensor input, Tensor filter, int strideH, int strideW, Padding padding, int dilation) {
    UserError.check(
        input.ndim() == 4,
        "depthwise_conv2d: input '%s' must be NCHW (4 dims), has %d",
        input.name(),
        input.ndim());
    UserError.check(
        filter.ndim() == 4,
        "depthwise_conv2d: filter '%s' must be [C, multiplier, KH, KW], has %d dims",
        filter.name(),
        filter.ndim());
    UserError.check(
        strideH > 0 && strideW > 0 && dilation > 0,
        "depthwise_conv2d: strides and dilation must be positive");
    long mult =
        constant(filter.shape().get(1), "channel multiplier of filter '" + filter.name() + "'");
    long kh = constant(filter.shape().get(2), "kernel height");
    long kw = constant(filter.shape().get(3), "kernel width");
    Tensor padded = pad2d(input, padding, "PaddedInput");
    Expr outH = padded.shape().get(2).sub((kh - 1) * dilation + 1).floordiv(strideH).add(1);
    Expr outW = padded.shape().get(3).sub((kw - 1) * dilation + 1).floordiv(strideW).add(1);
    outH = dev.kernelgen.arith.Simplifier.simplify(outH);
    outW = dev.kernelgen.arith.Simplifier.simplify(outW);
    IterVar di = reduceAxis((int) kh, "di");
    IterVar dj = reduceAxis((int) kw, "dj");
    Expr channels = input.shape().get(1).mul(mult);
    return compute(
        "DepthwiseConv2d",
        shape(input.shape().get(0), dev.kernelgen.arith.Simplifier.simplify(channels), outH, outW),
        (b, c, i, j) ->
            sum(
                padded
                    .at(
                        b,
                        c.floordiv(mult),
                        i.mul(strideH).add(di.var().mul(dilation)),
                        j.mul(strideW).add(dj.var().mul(dilation)))
                    .mul(filter.at(c.floordiv(mult), c.floormod(mult), di.var(), dj.var())),
                di,
                dj));
  }

  /** Per-channel {@code y = x * scale[c] + shift[c]} on an NCHW tensor. */
  public static Tensor scaleShift(Tensor x, Tensor scale, Tensor shift) {
    UserError.check(
        x.ndim() == 4, "scale_shift needs an NCHW tensor, '%s' has %d dims", x.name(), x.ndim());
    UserError.check(
        scale.ndim() == 1 && shift.ndim() == 1,
        "scale_shift: scale and shift must be vectors of length C");
    return compute(
        "ScaleShift",
        x.shape(),
        (b, c, i, j) -> x.at(b, c, i, j).mul(scale.at(c)).add(shift.at(c)));
  }

  /** {@code max(x, 0)}, elementwise. */
  public static Tensor relu(Tensor x) {
    Expr zero = x.dtype().isFloat() ? new FloatImm(x.dtype(), 0) : IntImm.like(x.shape().get(0), 0);
    return dev.kernelgen.te.TE.computeN("Relu", x.shape(), i -> x.at(i).max(zero));
  }

  /**
   * Layer normalisation over the last {@code dims} axes of {@code x}: {@code (x - mean) / sqrt(var
   * + eps) * gamma + beta}, the mean and the (biased) variance taken over those axes, {@code gamma}
   * and {@code beta} of the shape of those axes. Two row reductions (the sum, then the sum of
   * squared deviations from the mean) and an elementwise output.
   */
  public static Tensor layerNorm(Tensor x, Tensor gamma, Tensor beta, int dims, double eps) {
    Elementwise.requireFloat("layer_norm", x);
    UserError.check(
        dims >= 1 && dims <= x.ndim(),
        "layer_norm: cannot normalise over the last %d axes of '%s' %s",
        dims,
        x.name(),
        x.shape());
    int lead = x.ndim() - dims;
    for (Tensor p : new Tensor[] {gamma, beta}) {
      UserError.check(
          p.ndim() == dims,
          "layer_norm: '%s' must have the shape of the last %d axes of '%s' %s, has %s",
          p.name(),
          dims,
          x.name(),
          x.shape().subList(lead, x.ndim()),
          p.shape());
    }
    int[] axes = new int[dims];
    Expr count = IntImm.of(1);
    for (int d = 0; d < dims; d++) {
      axes[d] = lead + d;
      count = count.mul(x.shape().get(lead + d));
    }
    Expr n = dev.kernelgen.te.TE.cast(x.dtype(), dev.kernelgen.arith.Simplifier.simplify(count));
    Tensor sum =
        Reduction.reduce("LayerNormSum", dev.kernelgen.te.Reducer.sum(x.dtype()), x, false, axes);
    java.util.List<IterVar> rv = new java.util.ArrayList<>();
    for (int d = 0; d < dims; d++) {
      rv.add(reduceAxis(x.shape().get(lead + d), "k" + d));
    }
    Tensor sq =
        dev.kernelgen.te.TE.computeN(
            "LayerNormSqDev",
            sum.shape(),
            i -> {
              java.util.List<Expr> at = new java.util.ArrayList<>(i.subList(0, lead));
              rv.forEach(r -> at.add(r.var()));
              Expr dev = x.at(at).sub(sum.at(i).div(n));
              return sum(dev.mul(dev), rv.toArray(IterVar[]::new));
            });
    Expr epsilon = new FloatImm(x.dtype(), eps);
    return dev.kernelgen.te.TE.computeN(
        "LayerNorm",
        x.shape(),
        i -> {
          java.util.List<Expr> row = new java.util.ArrayList<>(i.subList(0, lead));
          if (lead == 0) {
            row.add(IntImm.of(0));
          }
          java.util.List<Expr> tail = new java.util.ArrayList<>(i.subList(lead, i.size()));
          Expr mean = sum.at(row).div(n);
          Expr inv = dev.kernelgen.te.TE.sqrt(sq.at(row).div(n).add(epsilon));
          return x.at(i).sub(mean).div(inv).mul(gamma.at(tail)).add(beta.at(tail));
        });
  }

  private static long constant(Expr e, String what) {
    UserError.check(e instanceof IntImm, "%s must be a constant, got %s", what, e.show());
    return ((IntImm) e).value();
  }
}
