package dev.kernelgen.algo;

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
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.function.BiFunction;
import java.util.function.IntFunction;

/**
 * The 3x3, stride-1 convolution in NCHW by Winograd's minimal filtering F(m x m, 3 x 3) (Lavin and
 * Gray, 2016): the direct convolution's result with fewer multiplications (2.25x fewer for m = 2,
 * 4x for m = 4), in four stages the schedulers treat like any other:
 *
 * <ol>
 *   <li>{@code KernelTransform[xi, nu, f, c] = (G g G^T)[xi, nu]} of each 3x3 filter;
 *   <li>{@code InputTransform[n, xi, nu, c, t] = (B^T d B)[xi, nu]} of each overlapping (m+2)^2
 *       tile {@code d} of image {@code n}'s padded input, {@code t} running over its tiles;
 *   <li>{@code WinogradProduct[n, xi, nu, f, t]}: (m+2)^2 independent matrix products over the
 *       input channels per image (the batch leads every stage, so that an image's stages can run
 *       together: {@code autosched/BatchSlices});
 *   <li>the output {@code [n, f, i, j] = (A^T M A)[i % m, j % m]} of the tile holding (i, j).
 * </ol>
 *
 * The transform matrices are constants: each element is written as a sum of its non-zero terms,
 * chosen by a select over the constant matrix's row, so that a loop unrolled or unswitched over the
 * row folds to those terms ({@code lower/UnswitchCases}). Used by {@code topi}'s {@code
 * conv2dWinograd} and by {@link ConvRewrite}, which finds direct convolutions in a user's DAG.
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

  /** The tiles of side {@code m} that cover {@code out} outputs: ceil(out / m). */
  public static Expr tiles(Expr out, int m) {
    return Simplifier.simplify(out.add(m - 1).floordiv(m));
  }

  /**
   * The convolution {@code out[n, f, i, j] = sum over c, di, dj of padded[n, c, i + di, j + dj] *
   * filter[f, c, di, dj]} for {@code i < outH, j < outW}, by F(m x m, 3 x 3), as stage {@code
   * name}. {@code padded} covers the whole tile grid: {@code tiles(outH, m) * m + 2} rows and
   * {@code tiles(outW, m) * m + 2} columns, zeros past the convolution's own window (the ragged
   * last tiles' extra outputs are never stored); {@code channels} and {@code features} are the
   * reduction's and the output's channel extents.
   */
  public static Tensor conv3x3(
      String name,
      String suffix,
      Tensor padded,
      Tensor filter,
      Expr channels,
      Expr features,
      Expr outH,
      Expr outW,
      int m) {
    UserError.check(m == 2 || m == 4, "conv2d_winograd: tile size must be 2 or 4, got %d", m);
    double[][] bt = m == 2 ? BT2 : BT4;
    double[][] g = m == 2 ? G2 : G4;
    double[][] at = m == 2 ? AT2 : AT4;
    int alpha = m + 2;
    Expr batch = padded.shape().get(0);
    Expr tilesW = tiles(outW, m);
    Expr perImage = Simplifier.simplify(tiles(outH, m).mul(tilesW));
    Tensor u =
        compute(
            "KernelTransform" + suffix,
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
            "InputTransform" + suffix,
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
                          padded.dtype(),
                          alpha,
                          alpha,
                          (p, q) -> bt[a][p] * bt[bb][q],
                          (p, q) ->
                              padded.at(ax.get(0), ax.get(3), th.mul(m).add(p), tw.mul(m).add(q))));
            });
    IterVar rc = reduceAxis(channels, "rc");
    Tensor product =
        computeN(
            "WinogradProduct" + suffix,
            shape(batch, alpha, alpha, features, perImage),
            ax ->
                sum(
                    u.at(ax.get(1), ax.get(2), ax.get(3), rc.var())
                        .mul(v.at(ax.get(0), ax.get(1), ax.get(2), rc.var(), ax.get(4))),
                    rc));
    return compute(
        name,
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
                      padded.dtype(),
                      alpha,
                      alpha,
                      (p, q) -> at[a][p] * at[bb][q],
                      (p, q) -> product.at(n, expr(p), expr(q), f, t)));
        });
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
