package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;

/**
 * 2-d pooling of NCHW tensors. Max pooling pads with the lowest finite value; average pooling
 * divides by the number of window elements inside the input (padding not counted, as PyTorch's
 * {@code count_include_pad=False}) or by the window size.
 */
public final class Pooling {
  private Pooling() {}

  public static Tensor maxPool2d(
      Tensor x, int kh, int kw, int strideH, int strideW, Padding padding) {
    check(x, kh, kw, strideH, strideW);
    Tensor p = pad(x, padding, -Float.MAX_VALUE);
    IterVar di = reduceAxis(kh, "di");
    IterVar dj = reduceAxis(kw, "dj");
    return compute(
        "MaxPool2d",
        shape(
            x.shape().get(0),
            x.shape().get(1),
            Conv.outSize(p.shape().get(2), kh, 1, strideH),
            Conv.outSize(p.shape().get(3), kw, 1, strideW)),
        (b, c, i, j) ->
            TE.max(p.at(b, c, i.mul(strideH).add(di.var()), j.mul(strideW).add(dj.var())), di, dj));
  }

  public static Tensor avgPool2d(
      Tensor x,
      int kh,
      int kw,
      int strideH,
      int strideW,
      Padding padding,
      boolean countIncludePad) {
    check(x, kh, kw, strideH, strideW);
    Elementwise.requireFloat("avg_pool2d", x);
    Tensor p = pad(x, padding, 0);
    IterVar di = reduceAxis(kh, "di");
    IterVar dj = reduceAxis(kw, "dj");
    Tensor sum =
        compute(
            "AvgPoolSum",
            shape(
                x.shape().get(0),
                x.shape().get(1),
                Conv.outSize(p.shape().get(2), kh, 1, strideH),
                Conv.outSize(p.shape().get(3), kw, 1, strideW)),
            (b, c, i, j) ->
                TE.sum(
                    p.at(b, c, i.mul(strideH).add(di.var()), j.mul(strideW).add(dj.var())),
                    di,
                    dj));
    Expr h = x.shape().get(2);
    Expr w = x.shape().get(3);
    return compute(
        "AvgPool2d",
        sum.shape(),
        (b, c, i, j) -> {
          Expr count;
          if (countIncludePad) {
            count = IntImm.of(kh * kw);
          } else {
            // The window's rows and columns that fall inside the unpadded input.
            Expr h0 = i.mul(strideH).sub(padding.top());
            Expr w0 = j.mul(strideW).sub(padding.left());
            Expr rows = h0.add(kh).min(h).sub(h0.max(IntImm.of(0)));
            Expr cols = w0.add(kw).min(w).sub(w0.max(IntImm.of(0)));
            count = rows.mul(cols);
          }
          return sum.at(b, c, i, j).div(TE.cast(x.dtype(), count));
        });
  }

  /** The maximum over H and W, keeping them as dims of 1: {@code [N, C, 1, 1]}. */
  public static Tensor globalMaxPool(Tensor x) {
    UserError.check(
        x.ndim() == 4, "global pooling needs NCHW, '%s' has %d dims", x.name(), x.ndim());
    return Transform.rename(Reduction.max(x, true, 2, 3), "GlobalMaxPool");
  }

  /** The mean over H and W, keeping them as dims of 1: {@code [N, C, 1, 1]}. */
  public static Tensor globalAvgPool(Tensor x) {
    UserError.check(
        x.ndim() == 4, "global pooling needs NCHW, '%s' has %d dims", x.name(), x.ndim());
    return Transform.rename(Reduction.mean(x, true, 2, 3), "GlobalAvgPool");
  }

  private static Tensor pad(Tensor x, Padding p, double value) {
    if (p.equals(Padding.valid())) {
      return x;
    }
    return Transform.rename(
        Transform.pad(
            x, new int[] {0, 0, p.top(), p.left()}, new int[] {0, 0, p.bottom(), p.right()}, value),
        "PaddedInput");
  }

  private static void check(Tensor x, int kh, int kw, int sh, int sw) {
    UserError.check(x.ndim() == 4, "pooling needs NCHW, '%s' has %d dims", x.name(), x.ndim());
    UserError.check(
        kh > 0 && kw > 0 && sh > 0 && sw > 0, "pooling: window and strides must be positive");
  }
}
