package dev.kernelgen.topi;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Tensor;
import java.util.List;

/**
 * The 3x3, stride-1 convolution in NCHW by Winograd's minimal filtering F(m x m, 3 x 3) (Lavin and
 * Gray, 2016), as an operator of its own: the same result as {@link Conv#conv2dNchw} with fewer
 * multiplications, in the four stages of {@link dev.kernelgen.algo.Winograd} (filter transform,
 * input transform, batched products, inverse transform) over the input padded to the tile grid. On
 * 2 Zen 4 cores F(2x2)'s untuned pick runs 1.4x ONNX Runtime's direct convolution at
 * [1,64,56,56]x64; F(4x4)'s does not yet (its transforms over 14x14 tiles a plane cost more than
 * its products save).
 */
public final class Winograd {
  private Winograd() {}

  /**
   * {@code conv2dNchw(input, filter, 1, 1, padding, 1)} by F(m x m, 3 x 3), {@code m} 2 or 4. The
   * filter is {@code [F, C, 3, 3]}; every dim but the filter's 3x3 may be symbolic (the tile grid
   * is then counted at run time).
   */
  public static Tensor conv2dNchw(Tensor input, Tensor filter, Padding padding, int m) {
    UserError.check(m == 2 || m == 4, "conv2d_winograd: tile size must be 2 or 4, got %d", m);
    UserError.check(
        input.ndim() == 4 && filter.ndim() == 4,
        "conv2d_winograd: input '%s' must be NCHW and filter '%s' [F, C, 3, 3]",
        input.name(),
        filter.name());
    UserError.check(
        input.dtype().isFloat(),
        "conv2d_winograd: input '%s' must be floating point, is %s",
        input.name(),
        input.dtype());
    Linalg.sameDim("conv2d_winograd", input, 1, filter, 1);
    long kh = Conv.constant(filter.shape().get(2), "kernel height of '" + filter.name() + "'");
    long kw = Conv.constant(filter.shape().get(3), "kernel width of '" + filter.name() + "'");
    UserError.check(
        kh == 3 && kw == 3,
        "conv2d_winograd: filter '%s' must be 3x3, is %dx%d",
        filter.name(),
        kh,
        kw);
    Expr h = input.shape().get(2);
    Expr w = input.shape().get(3);
    Expr outH = Simplifier.simplify(h.add(padding.top() + padding.bottom() - 2));
    Expr outW = Simplifier.simplify(w.add(padding.left() + padding.right() - 2));
    UserError.check(
        !(outH instanceof IntImm oh && oh.value() <= 0)
            && !(outW instanceof IntImm ow && ow.value() <= 0),
        "conv2d_winograd: '%s' (%sx%s) padded by %s is smaller than the 3x3 filter",
        input.name(),
        h.show(),
        w.show(),
        padding);
    // The ragged last tiles read zeros past the padding, and their extra outputs are never stored.
    Tensor padded =
        paddedTiles(
            input,
            padding,
            dev.kernelgen.algo.Winograd.tiles(outH, m).mul(m).add(2),
            dev.kernelgen.algo.Winograd.tiles(outW, m).mul(m).add(2));
    return dev.kernelgen.algo.Winograd.conv3x3(
        "Conv2dWinograd",
        "",
        padded,
        filter,
        input.shape().get(1),
        filter.shape().get(0),
        outH,
        outW,
        m);
  }

  /**
   * {@code input} with zeros around it, {@code padding}'s before each plane and up to {@code rows x
   * cols} after (a tile grid's ragged last tiles; symbolic where the plane is).
   */
  private static Tensor paddedTiles(Tensor input, Padding padding, Expr rows, Expr cols) {
    Expr afterH = Simplifier.simplify(rows.sub(input.shape().get(2)).sub(padding.top()));
    Expr afterW = Simplifier.simplify(cols.sub(input.shape().get(3)).sub(padding.left()));
    return Transform.rename(
        Transform.pad(
            input,
            new int[] {0, 0, padding.top(), padding.left()},
            List.of(IntImm.of(0), IntImm.of(0), afterH, afterW),
            0),
        "WinogradPadded");
  }
}
