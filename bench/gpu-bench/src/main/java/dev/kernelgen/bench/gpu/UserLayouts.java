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
    return List.of(
        nhwcToNchwScaled(),
        rmsNorm(),
        conv2dNhwc(),
        groupNorm(),
        upsampleNearest(),
        concatChannels(),
        maxPoolNhwc(),
        pixelShuffle(),
        swiglu(),
        conv3d(),
        causalSoftmax(),
        logSumExp(),
        cosineSimilarity(),
        pointwiseNhwc(),
        sharedWeightBmm(),
        depthwiseNhwcStride2(),
        mish(),
        dilatedConv(),
        smallKMatmul());
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

  /** Nearest-neighbour upsampling by 2: [8, 64, 56, 56] to [8, 64, 112, 112]. */
  static FloorBench.Op upsampleNearest() {
    Tensor x = placeholder("X", FLOAT32, 8, 64, 56, 56);
    Tensor y =
        compute(
            "Upsampled",
            shape(8, 64, 112, 112),
            (n, c, i, j) -> x.at(n, c, i.floordiv(2), j.floordiv(2)));
    return FloorBench.Op.library("user_upsample_nearest_8x64x56x56", List.of(x), y);
  }

  /** Two NCHW tensors concatenated along the channels, then a relu: 2 x [8, 32, 56, 56]. */
  static FloorBench.Op concatChannels() {
    Tensor a = placeholder("A", FLOAT32, 8, 32, 56, 56);
    Tensor b = placeholder("B", FLOAT32, 8, 32, 56, 56);
    Tensor y =
        compute(
            "Concat",
            shape(8, 64, 56, 56),
            (n, c, i, j) ->
                select(c.lt(32), a.at(n, c, i, j), b.at(n, c.sub(32), i, j)).max(zero()));
    return FloorBench.Op.library("user_concat_relu_8x32x56x56", List.of(a, b), y);
  }

  /** A 3x3, stride 2 max pool in NHWC, no padding: [8, 56, 56, 64] to [8, 27, 27, 64]. */
  static FloorBench.Op maxPoolNhwc() {
    Tensor x = placeholder("X", FLOAT32, 8, 56, 56, 64);
    IterVar ky = reduceAxis(3, "ky");
    IterVar kx = reduceAxis(3, "kx");
    Tensor y =
        compute(
            "MaxPoolNhwc",
            shape(8, 27, 27, 64),
            (n, i, j, c) ->
                dev.kernelgen.te.TE.max(
                    x.at(n, i.mul(2).add(ky.var()), j.mul(2).add(kx.var()), c), ky, kx));
    return FloorBench.Op.library("user_max_pool_nhwc_8x56x56x64", List.of(x), y);
  }

  /** Depth to space by 2 (pixel shuffle): [1, 256, 28, 28] to [1, 64, 56, 56]. */
  static FloorBench.Op pixelShuffle() {
    Tensor x = placeholder("X", FLOAT32, 1, 256, 28, 28);
    Tensor y =
        compute(
            "Shuffled",
            shape(1, 64, 56, 56),
            (n, c, i, j) ->
                x.at(
                    n,
                    c.mul(4).add(i.floormod(2).mul(2)).add(j.floormod(2)),
                    i.floordiv(2),
                    j.floordiv(2)));
    return FloorBench.Op.library("user_pixel_shuffle_1x256x28x28", List.of(x), y);
  }

  /** SwiGLU, {@code silu(x W1) * (x W2)}: two products feeding one epilogue, [512, 256] x 512. */
  static FloorBench.Op swiglu() {
    Tensor x = placeholder("X", FLOAT32, 512, 256);
    Tensor w1 = placeholder("W1", FLOAT32, 256, 512);
    Tensor w2 = placeholder("W2", FLOAT32, 256, 512);
    IterVar k1 = reduceAxis(256, "k1");
    IterVar k2 = reduceAxis(256, "k2");
    Tensor gate =
        compute(
            "Gate", shape(512, 512), (i, j) -> sum(x.at(i, k1.var()).mul(w1.at(k1.var(), j)), k1));
    Tensor up =
        compute(
            "Up", shape(512, 512), (i, j) -> sum(x.at(i, k2.var()).mul(w2.at(k2.var(), j)), k2));
    Tensor y =
        compute(
            "SwiGlu",
            shape(512, 512),
            (i, j) -> {
              Expr g = gate.at(i, j);
              return g.div(dev.kernelgen.te.TE.exp(g.mul(-1.0)).add(1.0)).mul(up.at(i, j));
            });
    return FloorBench.Op.library("user_swiglu_512x256x512", List.of(x, w1, w2), y);
  }

  /** A 3x3x3 convolution over a volume, padding 1: [1, 16, 16, 28, 28] x 16. */
  static FloorBench.Op conv3d() {
    Tensor x = placeholder("X", FLOAT32, 1, 16, 16, 28, 28);
    Tensor w = placeholder("W", FLOAT32, 16, 16, 3, 3, 3);
    IterVar ci = reduceAxis(16, "ci");
    IterVar kd = reduceAxis(3, "kd");
    IterVar ky = reduceAxis(3, "ky");
    IterVar kx = reduceAxis(3, "kx");
    Tensor y =
        dev.kernelgen.te.TE.computeN(
            "Conv3d",
            shape(1, 16, 16, 28, 28),
            i -> {
              Expr z = i.get(2).add(kd.var()).sub(1);
              Expr yy = i.get(3).add(ky.var()).sub(1);
              Expr xx = i.get(4).add(kx.var()).sub(1);
              Expr inside =
                  z.ge(0).and(z.lt(16)).and(yy.ge(0)).and(yy.lt(28)).and(xx.ge(0)).and(xx.lt(28));
              Expr in = select(inside, x.at(i.get(0), ci.var(), z, yy, xx), 0.0);
              return sum(
                  in.mul(w.at(i.get(1), ci.var(), kd.var(), ky.var(), kx.var())), ci, kd, ky, kx);
            });
    return FloorBench.Op.library("user_conv3d_1x16x16x28x28_k16", List.of(x, w), y);
  }

  /** Causal attention weights of 8 heads, the masked scores' softmax over rows: [8, 256, 256]. */
  static FloorBench.Op causalSoftmax() {
    Tensor s = placeholder("Scores", FLOAT32, 8, 256, 256);
    Tensor masked =
        compute(
            "Masked",
            shape(8, 256, 256),
            (h, i, j) -> select(j.le(i), s.at(h, i, j), dev.kernelgen.te.TE.f32(-1e30)));
    return FloorBench.Op.library(
        "user_causal_softmax_8x256x256",
        List.of(s),
        dev.kernelgen.topi.Reduction.softmax(masked, 2));
  }

  /** Log-sum-exp of each row, {@code m + log(sum(exp(x - m)))}: [16384, 512] to [16384]. */
  static FloorBench.Op logSumExp() {
    Tensor x = placeholder("X", FLOAT32, 16384, 512);
    IterVar k = reduceAxis(512, "k");
    IterVar k2 = reduceAxis(512, "k2");
    Tensor m = compute("RowMax", shape(16384), i -> dev.kernelgen.te.TE.max(x.at(i, k.var()), k));
    Tensor y =
        compute(
            "LogSumExp",
            shape(16384),
            i ->
                m.at(i)
                    .add(
                        dev.kernelgen.te.TE.log(
                            sum(dev.kernelgen.te.TE.exp(x.at(i, k2.var()).sub(m.at(i))), k2))));
    return FloorBench.Op.library("user_logsumexp_16384x512", List.of(x), y);
  }

  /** Cosine similarity of matching rows, three reductions in one expression: [4096, 256] x 2. */
  static FloorBench.Op cosineSimilarity() {
    Tensor a = placeholder("A", FLOAT32, 4096, 256);
    Tensor b = placeholder("B", FLOAT32, 4096, 256);
    IterVar k = reduceAxis(256, "k");
    IterVar k2 = reduceAxis(256, "k2");
    IterVar k3 = reduceAxis(256, "k3");
    Tensor y =
        compute(
            "Cosine",
            shape(4096),
            i ->
                sum(a.at(i, k.var()).mul(b.at(i, k.var())), k)
                    .div(
                        sqrt(
                            sum(a.at(i, k2.var()).mul(a.at(i, k2.var())), k2)
                                .mul(sum(b.at(i, k3.var()).mul(b.at(i, k3.var())), k3))
                                .add(1e-12))));
    return FloorBench.Op.library("user_cosine_rows_4096x256", List.of(a, b), y);
  }

  /** A 1x1 convolution in NHWC with a bias: [1, 56, 56, 64] x [64, 128]. */
  static FloorBench.Op pointwiseNhwc() {
    Tensor x = placeholder("X", FLOAT32, 1, 56, 56, 64);
    Tensor w = placeholder("W", FLOAT32, 64, 128);
    Tensor bias = placeholder("Bias", FLOAT32, 128);
    IterVar c = reduceAxis(64, "c");
    Tensor y =
        compute(
            "PointwiseNhwc",
            shape(1, 56, 56, 128),
            (n, h, wo, o) -> sum(x.at(n, h, wo, c.var()).mul(w.at(c.var(), o)), c).add(bias.at(o)));
    return FloorBench.Op.library("user_pointwise_nhwc_1x56x56x64_128", List.of(x, w, bias), y);
  }

  /** A batch of products with one shared weight: [16, 128, 256] x [256, 192]. */
  static FloorBench.Op sharedWeightBmm() {
    Tensor x = placeholder("X", FLOAT32, 16, 128, 256);
    Tensor w = placeholder("W", FLOAT32, 256, 192);
    IterVar k = reduceAxis(256, "k");
    Tensor y =
        compute(
            "Projected",
            shape(16, 128, 192),
            (b, i, j) -> sum(x.at(b, i, k.var()).mul(w.at(k.var(), j)), k));
    return FloorBench.Op.library("user_shared_weight_bmm_16x128x256x192", List.of(x, w), y);
  }

  /** A 3x3 depthwise convolution in NHWC, stride 2, padding 1: [8, 56, 56, 96]. */
  static FloorBench.Op depthwiseNhwcStride2() {
    Tensor x = placeholder("X", FLOAT32, 8, 56, 56, 96);
    Tensor f = placeholder("F", FLOAT32, 3, 3, 96);
    IterVar ky = reduceAxis(3, "ky");
    IterVar kx = reduceAxis(3, "kx");
    Tensor y =
        compute(
            "DwNhwc",
            shape(8, 28, 28, 96),
            (n, i, j, c) -> {
              Expr iy = i.mul(2).add(ky.var()).sub(1);
              Expr ix = j.mul(2).add(kx.var()).sub(1);
              Expr in =
                  select(
                      iy.ge(0).and(iy.lt(56)).and(ix.ge(0)).and(ix.lt(56)),
                      x.at(n, iy, ix, c),
                      0.0);
              return sum(in.mul(f.at(ky.var(), kx.var(), c)), ky, kx);
            });
    return FloorBench.Op.library("user_depthwise_nhwc_s2_8x56x56x96", List.of(x, f), y);
  }

  /** Mish, {@code x * tanh(log(1 + exp(x)))}, over 4M elements. */
  static FloorBench.Op mish() {
    Tensor x = placeholder("X", FLOAT32, 4096, 1024);
    Tensor y =
        compute(
            "Mish",
            x.shape(),
            (i, j) ->
                x.at(i, j)
                    .mul(
                        dev.kernelgen.te.TE.tanh(
                            dev.kernelgen.te.TE.log(
                                dev.kernelgen.te.TE.exp(x.at(i, j)).add(1.0)))));
    return FloorBench.Op.library("user_mish_4096x1024", List.of(x), y);
  }

  /** A 3x3 convolution of dilation 2, padding 2: [1, 64, 56, 56] x 64. */
  static FloorBench.Op dilatedConv() {
    Tensor x = placeholder("X", FLOAT32, 1, 64, 56, 56);
    Tensor w = placeholder("W", FLOAT32, 64, 64, 3, 3);
    IterVar c = reduceAxis(64, "c");
    IterVar ky = reduceAxis(3, "ky");
    IterVar kx = reduceAxis(3, "kx");
    Tensor y =
        compute(
            "Dilated",
            shape(1, 64, 56, 56),
            (n, o, i, j) -> {
              Expr iy = i.add(ky.var().mul(2)).sub(2);
              Expr ix = j.add(kx.var().mul(2)).sub(2);
              Expr in =
                  select(
                      iy.ge(0).and(iy.lt(56)).and(ix.ge(0)).and(ix.lt(56)),
                      x.at(n, c.var(), iy, ix),
                      0.0);
              return sum(in.mul(w.at(o, c.var(), ky.var(), kx.var())), c, ky, kx);
            });
    return FloorBench.Op.library("user_dilated_conv_1x64x56x56_d2", List.of(x, w), y);
  }

  /** A product with a short reduction: [4096, 8] x [8, 1024]. */
  static FloorBench.Op smallKMatmul() {
    Tensor a = placeholder("A", FLOAT32, 4096, 8);
    Tensor b = placeholder("B", FLOAT32, 8, 1024);
    IterVar k = reduceAxis(8, "k");
    Tensor y =
        compute(
            "LowRank", shape(4096, 1024), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
    return FloorBench.Op.library("user_small_k_matmul_4096x8x1024", List.of(a, b), y);
  }

  private static Expr zero() {
    return dev.kernelgen.te.TE.f32(0);
  }
}
