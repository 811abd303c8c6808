package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.computeN;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.IntFunction;

/**
 * The 3x3, stride-1 convolution in NCHW by Winograd's minimal filtering F(m x m, 3 x 3) (Lavin and
 * Gray, 2016): the same result as {@link Conv#conv2dNchw} with fewer multiplications (2.25x fewer
 * for m = 2, 4x for m = 4), in four stages the schedulers treat like any other:
 *
 * <ol>
 *   <li>{@code KernelTransform[xi, nu, f, c] = (G g G^T)[xi, nu]} of each 3x3 filter;
 *   <li>{@code InputTransform[n, xi, nu, c, t] = (B^T d B)[xi, nu]} of each overlapping (m+2)^2
 *       tile {@code d} of image {@code n}'s padded input, {@code t} running over its tiles;
 *   <li>{@code WinogradProduct[n, xi, nu, f, t]}: (m+2)^2 independent matrix products over the
 *       input channels per image (the batch leads every stage, so that an image's stages can run
 *       together: {@code autosched/BatchSlices});
 *   <li>{@code Conv2dWinograd[n, f, i, j] = (A^T M A)[i % m, j % m]} of the tile holding (i, j).
 * </ol>
 *
 * The transform matrices are constants: each element is written as a sum of its non-zero terms,
 * chosen by a select over the constant matrix's row, so that a loop unrolled or unswitched over the
 * row folds to those terms ({@code lower/UnswitchCases}). On 2 Zen 4 cores F(2x2)'s untuned pick
 * runs 1.4x ONNX Runtime's direct convolution at [1,64,56,56]x64; F(4x4)'s does not yet (its
 * transforms over 14x14 tiles a plane cost more than its products save).
 */
public final class Winograd {
  private Winograd() {}

  /** F(2x2, 3x3): tiles of 4x4, exact in the interpreter's arithmetic. */
  private static final double[][] BT2 = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};

  private static final double[][] G2 = {{1, 0, 0}, {.5, .5, .5}, {.5, -.5, .5}, {0, 0, 1}};
  private static final double[][] AT2 = {{1, 1, 1, 0}, {0, 1, -1, -1}};

  /** F(4x4, 3x3) at the points 0, +-1, +-2 (Lavin and Gray's matrices): tiles of 6x6. */
  private static final double[][] BT4 = {
    {4, 0, -5, 0, 1, 0},
    {0, -4, -4, 1, 1, 0},
    {0, 4, -4, -1, 1, 0},
    {0, -2, -1, 2, 1, 0},
    {0, 2, -1, -2, 1, 0},
    {0, 4, 0, -5, 0, 1}
  };

  private static final double[][] G4 = {
    {1 / 4.0, 0, 0},
    {-1 / 6.0, -1 / 6.0, -1 / 6.0},
    {-1 / 6.0, 1 / 6.0, -1 / 6.0},
    {1 / 24.0, 1 / 12.0, 1 / 6.0},
    {1 / 24.0, -1 / 12.0, 1 / 6.0},
    {0, 0, 1}
  };

  private static final double[][] AT4 = {
    {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}
  };

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
    double[][] bt = m == 2 ? BT2 : BT4;
    double[][] g = m == 2 ? G2 : G4;
    double[][] at = m == 2 ? AT2 : AT4;
    int alpha = m + 2;
    Expr batch = input.shape().get(0);
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
    Expr tilesH = Simplifier.simplify(outH.add(m - 1).floordiv(m));
    Expr tilesW = Simplifier.simplify(outW.add(m - 1).floordiv(m));
    Expr perImage = Simplifier.simplify(tilesH.mul(tilesW));
    // The ragged last tiles read zeros past the padding, and their extra outputs are never stored.
    Tensor padded = paddedTiles(input, padding, tilesH.mul(m).add(2), tilesW.mul(m).add(2));
    Expr channels = input.shape().get(1);
    Expr features = filter.shape().get(0);

    Tensor u =
        compute(
            "KernelTransform",
            shape(alpha, alpha, features, channels),
            (xi, nu, f, c) ->
                byCase(
                    xi,
                    nu,
                    alpha,
                    alpha,
                    (a, b) ->
                        weighted(
                            filter.dtype(),
                            3,
                            3,
                            (p, q) -> g[a][p] * g[b][q],
                            (p, q) -> filter.at(f, c, expr(p), expr(q)))));
    Tensor v =
        computeN(
            "InputTransform",
            shape(batch, alpha, alpha, channels, perImage),
            ax -> {
              Expr th = ax.get(4).floordiv(tilesW);
              Expr tw = ax.get(4).floormod(tilesW);
              return byCase(
                  ax.get(1),
                  ax.get(2),
                  alpha,
                  alpha,
                  (a, bb) ->
                      weighted(
                          input.dtype(),
                          alpha,
                          alpha,
                          (p, q) -> bt[a][p] * bt[bb][q],
                          (p, q) ->
                              padded.at(ax.get(0), ax.get(3), th.mul(m).add(p), tw.mul(m).add(q))));
            });
    IterVar rc = reduceAxis(channels, "rc");
    Tensor product =
        computeN(
            "WinogradProduct",
            shape(batch, alpha, alpha, features, perImage),
            ax ->
                sum(
                    u.at(ax.get(1), ax.get(2), ax.get(3), rc.var())
                        .mul(v.at(ax.get(0), ax.get(1), ax.get(2), rc.var(), ax.get(4))),
                    rc));
    return compute(
        "Conv2dWinograd",
        shape(batch, features, outH, outW),
        (n, f, i, j) -> {
          Expr t = i.floordiv(m).mul(tilesW).add(j.floordiv(m));
          return byCase(
              i.floormod(m),
              j.floormod(m),
              m,
              m,
              (a, bb) ->
                  weighted(
                      input.dtype(),
                      alpha,
                      alpha,
                      (p, q) -> at[a][p] * at[bb][q],
                      (p, q) -> product.at(n, expr(p), expr(q), f, t)));
        });
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

  private static Expr expr(long v) {
    return dev.kernelgen.te.IntImm.of(v);
  }

  /**
   * {@code cases(a, b)} for {@code x == a, y == b}, as nested selects (the last case unguarded).
   */
  private static Expr byCase(
      Expr x, Expr y, int nx, int ny, BiFunction<Integer, Integer, Expr> cases) {
    return chain(x, nx, a -> chain(y, ny, b -> cases.apply(a, b)));
  }

  private static Expr chain(Expr x, int n, IntFunction<Expr> cases) {
    Expr out = cases.apply(n - 1);
    for (int a = n - 2; a >= 0; a--) {
      out = select(x.eq(a), cases.apply(a), out);
    }
    return out;
  }

  private interface Weight {
    double at(int p, int q);
  }

  /** The sum over p, q of {@code weight(p, q) * term(p, q)}, its zero terms left out. */
  private static Expr weighted(
      dev.kernelgen.te.DType dtype,
      int np,
      int nq,
      Weight weight,
      BiFunction<Integer, Integer, Expr> term) {
    Expr out = null;
    for (int p = 0; p < np; p++) {
      for (int q = 0; q < nq; q++) {
        double k = weight.at(p, q);
        if (k == 0) {
          continue;
        }
        Expr t = term.apply(p, q);
        Expr scaled =
            k == 1 ? t : k == -1 ? t.mul(new FloatImm(dtype, -1)) : t.mul(new FloatImm(dtype, k));
        out = out == null ? scaled : out.add(scaled);
      }
    }
    return out == null ? new FloatImm(dtype, 0) : out;
  }
}
