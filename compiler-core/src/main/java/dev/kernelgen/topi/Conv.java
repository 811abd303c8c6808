package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;

/**
 * Convolutions beside {@link Nn#depthwiseConv2dNchw}: the direct 2-d convolution in NCHW and the
 * depthwise convolution in NHWC. Padding is a separate injective stage that schedules inline.
 */
public final class Conv {
  private Conv() {}

  /**
   * {@code Out[b, f, i, j] = sum over c, di, dj of Padded[b, c, i * sh + di * dil, j * sw + dj *
   * dil] * Filter[f, c, di, dj]}, filter {@code [F, C, KH, KW]}.
   */
  public static Tensor conv2dNchw(
      Tensor input, Tensor filter, int strideH, int strideW, Padding padding, int dilation) {
    UserError.check(
        input.ndim() == 4 && filter.ndim() == 4,
        "conv2d: input '%s' must be NCHW and filter '%s' [F, C, KH, KW]",
        input.name(),
        filter.name());
    UserError.check(
        strideH > 0 && strideW > 0 && dilation > 0,
        "conv2d: strides and dilation must be positive");
    Linalg.sameDim("conv2d", input, 1, filter, 1);
    long kh = constant(filter.shape().get(2), "kernel height of '" + filter.name() + "'");
    long kw = constant(filter.shape().get(3), "kernel width of '" + filter.name() + "'");
    Tensor padded = Nn.pad2d(input, padding, "PaddedInput");
    Expr outH = outSize(padded.shape().get(2), kh, dilation, strideH);
    Expr outW = outSize(padded.shape().get(3), kw, dilation, strideW);
    IterVar rc = reduceAxis(input.shape().get(1), "rc");
    IterVar di = reduceAxis((int) kh, "di");
    IterVar dj = reduceAxis((int) kw, "dj");
    return Transform.tagged(
        conv2d(input, filter, strideH, strideW, dilation, padded, outH, outW, rc, di, dj),
        OpSchedules.CONV2D_NCHW);
  }

  private static Tensor conv2d(
      Tensor input,
      Tensor filter,
      int strideH,
      int strideW,
      int dilation,
      Tensor padded,
      Expr outH,
      Expr outW,
      IterVar rc,
      IterVar di,
      IterVar dj) {
    return compute(
        "Conv2d",
        shape(input.shape().get(0), filter.shape().get(0), outH, outW),
        (b, f, i, j) ->
            sum(
                padded
                    .at(
                        b,
                        rc.var(),
                        i.mul(strideH).add(di.var().mul(dilation)),
                        j.mul(strideW).add(dj.var().mul(dilation)))
                    .mul(filter.at(f, rc.var(), di.var(), dj.var())),
                rc,
                di,
                dj));
  }

  /**
   * Depthwise convolution in NHWC: {@code Out[b, i, j, c] = sum over di, dj of Padded[b, i * sh +
   * di * dil, j * sw + dj * dil, c / m] * Filter[di, dj, c / m, c % m]}, filter {@code [KH, KW, C,
   * m]} (TensorFlow's layout).
   */
  public static Tensor depthwiseConv2dNhwc(
      Tensor input, Tensor filter, int strideH, int strideW, Padding padding, int dilation) {
    UserError.check(
        input.ndim() == 4 && filter.ndim() == 4,
        "depthwise_conv2d_nhwc: input '%s' must be NHWC and filter '%s' [KH, KW, C, multiplier]",
        input.name(),
        filter.name());
    UserError.check(
        strideH > 0 && strideW > 0 && dilation > 0,
        "depthwise_conv2d_nhwc: strides and dilation must be positive");
    Linalg.sameDim("depthwise_conv2d_nhwc", input, 3, filter, 2);
    long kh = constant(filter.shape().get(0), "kernel height of '" + filter.name() + "'");
    long kw = constant(filter.shape().get(1), "kernel width of '" + filter.name() + "'");
    long mult = constant(filter.shape().get(3), "channel multiplier of '" + filter.name() + "'");
    Tensor padded = input;
    if (!padding.equals(Padding.valid())) {
      padded =
          Transform.rename(
              Transform.pad(
                  input,
                  new int[] {0, padding.top(), padding.left(), 0},
                  new int[] {0, padding.bottom(), padding.right(), 0},
                  0),
              "PaddedInput");
    }
    Tensor p = padded;
    Expr outH = outSize(padded.shape().get(1), kh, dilation, strideH);
    Expr outW = outSize(padded.shape().get(2), kw, dilation, strideW);
    IterVar di = reduceAxis((int) kh, "di");
    IterVar dj = reduceAxis((int) kw, "dj");
    Expr channels = Simplifier.simplify(input.shape().get(3).mul(mult));
    return compute(
        "DepthwiseConv2dNhwc",
        shape(input.shape().get(0), outH, outW, channels),
        (b, i, j, c) ->
            sum(
                p.at(
                        b,
                        i.mul(strideH).add(di.var().mul(dilation)),
                        j.mul(strideW).add(dj.var().mul(dilation)),
                        c.floordiv(mult))
                    .mul(filter.at(di.var(), dj.var(), c.floordiv(mult), c.floormod(mult))),
                di,
                dj));
  }

  static Expr outSize(Expr padded, long k, int dilation, int stride) {
    return Simplifier.simplify(padded.sub((k - 1) * dilation + 1).floordiv(stride).add(1));
  }

  static long constant(Expr e, String what) {
    UserError.check(e instanceof IntImm, "%s must be a constant, got %s", what, e.show());
    return ((IntImm) e).value();
  }
}
