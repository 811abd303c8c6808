package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sqrt;
import static dev.kernelgen.te.TE.sum;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.List;

/**
 * More operators as a user writes them (the floor table's last rows, after {@link UserOperators}):
 * layouts other than the library's NCHW and normalisations the library lacks.
 */
final class UserLayouts {
  private UserLayouts() {}

  static List<FloorBench.Op> all() {
    return List.of(nhwcToNchwScaled(), rmsNorm(), conv2dNhwc(), groupNorm());
  }

  /** NHWC to NCHW with a scale per channel: [8, 56, 56, 64] to [8, 64, 56, 56]. */
  static FloorBench.Op nhwcToNchwScaled() {
    Tensor x = placeholder("X", FLOAT32, 8, 56, 56, 64);
    Tensor s = placeholder("S", FLOAT32, 64);
    Tensor y = compute("Nchw", shape(8, 64, 56, 56), (n, c, h, w) -> x.at(n, h, w, c).mul(s.at(c)));
    return FloorBench.Op.library("user_nhwc_to_nchw_scaled_8x56x56x64", List.of(x, s), y);
  }

  /** RMS norm over rows of 1024, {@code x / sqrt(mean(x^2) + 1e-6) * g}: [4096, 1024]. */
  static FloorBench.Op rmsNorm() {
    Tensor x = placeholder("X", FLOAT32, 4096, 1024);
    Tensor g = placeholder("G", FLOAT32, 1024);
    IterVar k = reduceAxis(1024, "k");
    Tensor ms =
        compute(
            "MeanSquare",
            shape(4096),
            i -> sum(x.at(i, k.var()).mul(x.at(i, k.var())), k).div(1024.0));
    Tensor y =
        compute(
            "RmsNorm", x.shape(), (i, j) -> x.at(i, j).div(sqrt(ms.at(i).add(1e-6))).mul(g.at(j)));
    return FloorBench.Op.library("user_rms_norm_4096x1024", List.of(x, g), y);
  }

  /** A 3x3 convolution in NHWC with an HWIO filter, zero padding by hand: [1,56,56,64] x 64. */
  static FloorBench.Op conv2dNhwc() {
    Tensor x = placeholder("X", FLOAT32, 1, 56, 56, 64);
    Tensor w = placeholder("W", FLOAT32, 3, 3, 64, 64);
    IterVar ky = reduceAxis(3, "ky");
    IterVar kx = reduceAxis(3, "kx");
    IterVar ci = reduceAxis(64, "ci");
    Tensor y =
        compute(
            "ConvNhwc",
            shape(1, 56, 56, 64),
            (n, h, wo, co) -> {
              Expr iy = h.add(ky.var()).sub(1);
              Expr ix = wo.add(kx.var()).sub(1);
              Expr in =
                  select(
                      iy.ge(0).and(iy.lt(56)).and(ix.ge(0)).and(ix.lt(56)),
                      x.at(n, iy, ix, ci.var()),
                      0.0);
              return sum(in.mul(w.at(ky.var(), kx.var(), ci.var(), co)), ky, kx, ci);
            });
    return FloorBench.Op.library("user_conv2d_nhwc_1x56x56x64_k64", List.of(x, w), y);
  }

  /** Group norm, 8 groups of 8 channels, no affine: [8, 64, 56, 56]. */
  static FloorBench.Op groupNorm() {
    Tensor x = placeholder("X", FLOAT32, 8, 64, 56, 56);
    double count = 8 * 56 * 56;
    IterVar c = reduceAxis(8, "c");
    IterVar h = reduceAxis(56, "h");
    IterVar w = reduceAxis(56, "w");
    Tensor mean =
        compute(
            "GroupMean",
            shape(8, 8),
            (n, g) -> sum(x.at(n, g.mul(8).add(c.var()), h.var(), w.var()), c, h, w).div(count));
    IterVar c2 = reduceAxis(8, "c2");
    IterVar h2 = reduceAxis(56, "h2");
    IterVar w2 = reduceAxis(56, "w2");
    Tensor var =
        compute(
            "GroupVar",
            shape(8, 8),
            (n, g) -> {
              Expr d = x.at(n, g.mul(8).add(c2.var()), h2.var(), w2.var()).sub(mean.at(n, g));
              return sum(d.mul(d), c2, h2, w2).div(count);
            });
    Tensor y =
        compute(
            "GroupNorm",
            x.shape(),
            (n, ch, i, j) ->
                x.at(n, ch, i, j)
                    .sub(mean.at(n, ch.floordiv(8)))
                    .div(sqrt(var.at(n, ch.floordiv(8)).add(1e-5))));
    return FloorBench.Op.library("user_group_norm_8x64x56x56_g8", List.of(x), y);
  }
}
