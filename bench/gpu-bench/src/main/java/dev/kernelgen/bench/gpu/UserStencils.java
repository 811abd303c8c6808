package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.INT32;
import static dev.kernelgen.te.TE.cast;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.floor;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.pow;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import java.util.List;

/**
 * More operators as a user writes them (the floor table's last rows, after {@link UserLayouts}):
 * windows the library has no template for (a 7x7 depthwise filter, a 5x5 one with a swish, a
 * transposed convolution, bilinear sampling, a window across channels), reads through an index
 * tensor, and reductions whose extent depends on the output (a prefix sum) or covers everything (to
 * a scalar).
 */
final class UserStencils {
  private UserStencils() {}

  static List<FloorBench.Op> all() {
    return List.of(
        depthwise7x7(),
        transposedConv(),
        bilinearUpsample(),
        sumOfSquares(),
        embeddingGather(),
        avgPoolPadded(),
        pointwiseStride2(),
        prefixSum(),
        localResponseNorm(),
        depthwise5x5Swish(),
        argmaxRows());
  }

  /**
   * A classifier's top-1 written without an index reducer: each row's max, then the least index
   * that holds it (int32): [4096, 1000].
   */
  static FloorBench.Op argmaxRows() {
    Tensor x = placeholder("Logits", FLOAT32, 4096, 1000);
    IterVar k = reduceAxis(1000, "k");
    IterVar i = reduceAxis(1000, "i");
    Tensor rowMax = compute("RowMax", shape(4096), r -> TE.max(x.at(r, k.var()), k));
    Tensor y =
        compute(
            "ArgMax",
            shape(4096),
            r -> TE.min(select(x.at(r, i.var()).eq(rowMax.at(r)), i.var(), IntImm.of(1000)), i));
    return FloorBench.Op.library("user_argmax_rows_4096x1000", List.of(x), y);
  }

  /**
   * An EfficientNet block's 5x5 depthwise filter with batch norm folded into a scale and shift and
   * a swish, written with topi: [1, 144, 56, 56].
   */
  static FloorBench.Op depthwise5x5Swish() {
    Tensor x = placeholder("X", FLOAT32, 1, 144, 56, 56);
    Tensor w = placeholder("W", FLOAT32, 144, 1, 5, 5);
    Tensor scale = placeholder("Scale", FLOAT32, 144);
    Tensor shift = placeholder("Shift", FLOAT32, 144);
    Tensor conv = Nn.depthwiseConv2dNchw(x, w, 1, 1, new Padding(2, 2, 2, 2), 1);
    Tensor bn = Nn.scaleShift(conv, scale, shift);
    Tensor y =
        compute(
            "Swish",
            shape(1, 144, 56, 56),
            (n, c, i, j) -> {
              Expr v = bn.at(n, c, i, j);
              return v.div(TE.f32(1).add(TE.exp(TE.f32(0).sub(v))));
            });
    return FloorBench.Op.library(
        "user_depthwise5x5_swish_1x144x56x56", List.of(x, w, scale, shift), y);
  }

  /** A ConvNeXt block's 7x7 depthwise filter, zero padding 3 by hand: [1, 96, 56, 56]. */
  static FloorBench.Op depthwise7x7() {
    Tensor x = placeholder("X", FLOAT32, 1, 96, 56, 56);
    Tensor w = placeholder("W", FLOAT32, 96, 7, 7);
    Tensor y = depthwiseSame("Depthwise7", x, w);
    return FloorBench.Op.library("user_depthwise7x7_1x96x56x56", List.of(x, w), y);
  }

  /**
   * A depthwise window {@code w [C, k, k]} over {@code x [1, C, 56, 56]}, its zero padding of k / 2
   * written by hand as a select on the read's bounds.
   */
  static Tensor depthwiseSame(String name, Tensor x, Tensor w) {
    int k = (int) ((dev.kernelgen.te.IntImm) w.shape().get(1)).value();
    IterVar ky = reduceAxis(k, "ky");
    IterVar kx = reduceAxis(k, "kx");
    return compute(
        name,
        shape(1, x.shape().get(1), 56, 56),
        (n, c, i, j) -> {
          Expr iy = i.add(ky.var()).sub(k / 2);
          Expr ix = j.add(kx.var()).sub(k / 2);
          Expr in =
              select(iy.ge(0).and(iy.lt(56)).and(ix.ge(0)).and(ix.lt(56)), x.at(n, c, iy, ix), 0.0);
          return sum(in.mul(w.at(c, ky.var(), kx.var())), ky, kx);
        });
  }

  /**
   * A transposed convolution, 4x4, stride 2, padding 1 (a decoder's 2x upsampling): [1, 64, 28, 28]
   * to [1, 32, 56, 56], written as the gather a user derives from the scatter: an output pixel
   * takes the taps whose source lands on a whole input pixel.
   */
  static FloorBench.Op transposedConv() {
    Tensor x = placeholder("X", FLOAT32, 1, 64, 28, 28);
    Tensor w = placeholder("W", FLOAT32, 64, 32, 4, 4);
    IterVar ci = reduceAxis(64, "ci");
    IterVar ky = reduceAxis(4, "ky");
    IterVar kx = reduceAxis(4, "kx");
    Tensor y =
        compute(
            "ConvTranspose",
            shape(1, 32, 56, 56),
            (n, co, i, j) -> {
              Expr sy = i.add(1).sub(ky.var());
              Expr sx = j.add(1).sub(kx.var());
              Expr hit =
                  sy.floormod(2)
                      .eq(0)
                      .and(sx.floormod(2).eq(0))
                      .and(sy.ge(0))
                      .and(sy.lt(56))
                      .and(sx.ge(0))
                      .and(sx.lt(56));
              Expr in = select(hit, x.at(n, ci.var(), sy.floordiv(2), sx.floordiv(2)), 0.0);
              return sum(in.mul(w.at(ci.var(), co, ky.var(), kx.var())), ci, ky, kx);
            });
    return FloorBench.Op.library("user_conv_transpose_s2_1x64x28x28", List.of(x, w), y);
  }

  /**
   * Bilinear upsampling by 2, half-pixel centres (align_corners false), the source coordinates
   * computed in floating point: [4, 64, 56, 56] to [4, 64, 112, 112].
   */
  static FloorBench.Op bilinearUpsample() {
    Tensor x = placeholder("X", FLOAT32, 4, 64, 56, 56);
    Tensor y =
        compute(
            "Bilinear",
            shape(4, 64, 112, 112),
            (n, c, i, j) -> {
              Expr fy = TE.maximum(cast(FLOAT32, i).add(0.5).mul(0.5).sub(0.5), 0.0);
              Expr fx = TE.maximum(cast(FLOAT32, j).add(0.5).mul(0.5).sub(0.5), 0.0);
              Expr y0 = cast(INT32, floor(fy));
              Expr x0 = cast(INT32, floor(fx));
              Expr y1 = TE.minimum(y0.add(1), 55);
              Expr x1 = TE.minimum(x0.add(1), 55);
              Expr wy = fy.sub(floor(fy));
              Expr wx = fx.sub(floor(fx));
              Expr top =
                  x.at(n, c, y0, x0).mul(wx.sub(1.0).mul(-1.0)).add(x.at(n, c, y0, x1).mul(wx));
              Expr bottom =
                  x.at(n, c, y1, x0).mul(wx.sub(1.0).mul(-1.0)).add(x.at(n, c, y1, x1).mul(wx));
              return top.mul(wy.sub(1.0).mul(-1.0)).add(bottom.mul(wy));
            });
    return FloorBench.Op.library("user_bilinear_upsample_4x64x56x56", List.of(x), y);
  }

  /** The sum of squares of a whole tensor, to one value: [4096, 4096] to [1]. */
  static FloorBench.Op sumOfSquares() {
    Tensor x = placeholder("X", FLOAT32, 4096, 4096);
    IterVar r = reduceAxis(4096, "r");
    IterVar k = reduceAxis(4096, "k");
    Tensor y =
        compute(
            "SumSquares",
            shape(1),
            i -> sum(x.at(r.var(), k.var()).mul(x.at(r.var(), k.var())), r, k));
    return FloorBench.Op.library("user_sum_of_squares_4096x4096", List.of(x), y);
  }

  /**
   * An embedding lookup scaled by sqrt(d) (a transformer's input): rows of a [32000, 512] table
   * picked by 4096 int32 ids.
   */
  static FloorBench.Op embeddingGather() {
    Tensor table = placeholder("Table", FLOAT32, 32000, 512);
    Tensor ids = placeholder("Ids", INT32, 4096);
    double scale = Math.sqrt(512);
    Tensor y =
        compute(
            "Embedded",
            shape(4096, 512),
            (i, j) -> table.at(TE.minimum(TE.maximum(ids.at(i), 0), 31999), j).mul(scale));
    return FloorBench.Op.library("user_embedding_gather_4096x512", List.of(table, ids), y);
  }

  /** A 3x3 average pool, stride 1, zero padding 1 counted: [8, 64, 56, 56]. */
  static FloorBench.Op avgPoolPadded() {
    Tensor x = placeholder("X", FLOAT32, 8, 64, 56, 56);
    IterVar ky = reduceAxis(3, "ky");
    IterVar kx = reduceAxis(3, "kx");
    Tensor y =
        compute(
            "AvgPool3",
            x.shape(),
            (n, c, i, j) -> {
              Expr iy = i.add(ky.var()).sub(1);
              Expr ix = j.add(kx.var()).sub(1);
              Expr in =
                  select(
                      iy.ge(0).and(iy.lt(56)).and(ix.ge(0)).and(ix.lt(56)),
                      x.at(n, c, iy, ix),
                      0.0);
              return sum(in, ky, kx).div(9.0);
            });
    return FloorBench.Op.library("user_avg_pool3_s1_8x64x56x56", List.of(x), y);
  }

  /** A residual block's 1x1, stride 2 shortcut: [1, 256, 56, 56] to [1, 512, 28, 28]. */
  static FloorBench.Op pointwiseStride2() {
    Tensor x = placeholder("X", FLOAT32, 1, 256, 56, 56);
    Tensor w = placeholder("W", FLOAT32, 512, 256);
    IterVar ci = reduceAxis(256, "ci");
    Tensor y =
        compute(
            "Shortcut",
            shape(1, 512, 28, 28),
            (n, co, i, j) ->
                sum(x.at(n, ci.var(), i.mul(2), j.mul(2)).mul(w.at(co, ci.var())), ci));
    return FloorBench.Op.library("user_pointwise_s2_1x256x56x56_512", List.of(x, w), y);
  }

  /** A prefix sum along rows written as a masked reduction: [256, 1024]. */
  static FloorBench.Op prefixSum() {
    Tensor x = placeholder("X", FLOAT32, 256, 1024);
    IterVar k = reduceAxis(1024, "k");
    Tensor y =
        compute(
            "Cumsum", x.shape(), (i, j) -> sum(select(k.var().le(j), x.at(i, k.var()), 0.0), k));
    return FloorBench.Op.library("user_prefix_sum_256x1024", List.of(x), y);
  }

  /**
   * Local response normalisation across 5 channels (AlexNet's), {@code x / (2 + 1e-4 / 5 *
   * sum(x^2))^0.75}: [8, 96, 55, 55].
   */
  static FloorBench.Op localResponseNorm() {
    Tensor x = placeholder("X", FLOAT32, 8, 96, 55, 55);
    IterVar d = reduceAxis(5, "d");
    Tensor sq =
        compute(
            "WindowSquares",
            x.shape(),
            (n, c, i, j) -> {
              Expr cc = c.add(d.var()).sub(2);
              Expr v = select(cc.ge(0).and(cc.lt(96)), x.at(n, cc, i, j), 0.0);
              return sum(v.mul(v), d);
            });
    Tensor y =
        compute(
            "Lrn",
            x.shape(),
            (n, c, i, j) ->
                x.at(n, c, i, j).div(pow(sq.at(n, c, i, j).mul(1e-4 / 5).add(2.0), TE.f32(0.75))));
    return FloorBench.Op.library("user_lrn_8x96x55x55", List.of(x), y);
  }
}
