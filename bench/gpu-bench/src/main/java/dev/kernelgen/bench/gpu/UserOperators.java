package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sqrt;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.tanh;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Reduction;
import java.util.List;

/**
 * Operators as a user writes them, with the DSL alone and no library template (the floor table's
 * last rows): their untuned picks are what a user's build embeds for a new operator. Reductions sit
 * inside expressions where users put them ({@code sum(...).div(n)}).
 */
final class UserOperators {
  private UserOperators() {}

  static List<FloorBench.Op> all() {
    return List.of(
        conv1dGelu(),
        groupedConv(),
        l2NormalizeChannels(),
        centerColumns(),
        softmaxChannels(),
        transposedMatmul(),
        batchNormTraining(),
        matvec(),
        vecmat(),
        softmaxFirstAxis(),
        sumOverBatch(),
        avgPoolByHand(),
        permute0213(),
        meanMiddleAxis(),
        maxShortRows(),
        varianceOverBatch(),
        channelSumsNcl(),
        outerProductRelu(),
        pointwiseConv(),
        convStride2(),
        globalAvgPoolSmallPlanes(),
        layerNormShortRows(),
        softmaxShortRows(),
        attentionScores(),
        gemvTanh());
  }

  /** {@code gelu(bias + conv1d(x, w))}, stride 2, one zero on each side: [8, 64, 4096] x 128. */
  static FloorBench.Op conv1dGelu() {
    Tensor x = placeholder("X", FLOAT32, 8, 64, 4096);
    Tensor w = placeholder("W", FLOAT32, 128, 64, 3);
    Tensor bias = placeholder("Bias", FLOAT32, 128);
    IterVar c = reduceAxis(64, "c");
    IterVar k = reduceAxis(3, "k");
    Tensor conv =
        compute(
            "Conv1d",
            shape(8, 128, 2048),
            (b, o, t) -> {
              Expr at = t.mul(2).add(k.var()).sub(1);
              Expr in = select(at.ge(0).and(at.lt(4096)), x.at(b, c.var(), at), 0.0);
              return sum(in.mul(w.at(o, c.var(), k.var())), c, k);
            });
    Tensor gelu =
        compute(
            "Gelu",
            conv.shape(),
            (b, o, t) -> {
              Expr v = conv.at(b, o, t).add(bias.at(o));
              Expr inner = v.add(v.mul(v).mul(v).mul(0.044715)).mul(0.7978845608);
              return v.mul(0.5).mul(tanh(inner).add(1.0));
            });
    return FloorBench.Op.library("user_conv1d_s2_gelu_8x64x4096_k128", List.of(x, w, bias), gelu);
  }

  /** A 3x3 convolution in 4 groups, SAME: [1, 128, 56, 56] x 128. */
  static FloorBench.Op groupedConv() {
    Tensor x = placeholder("X", FLOAT32, 1, 128, 56, 56);
    Tensor w = placeholder("W", FLOAT32, 128, 32, 3, 3);
    Tensor padded =
        compute(
            "Padded",
            shape(1, 128, 58, 58),
            (b, ch, i, j) ->
                select(
                    i.ge(1).and(i.le(56)).and(j.ge(1)).and(j.le(56)),
                    x.at(b, ch, i.sub(1), j.sub(1)),
                    0.0));
    IterVar c = reduceAxis(32, "c");
    IterVar kh = reduceAxis(3, "kh");
    IterVar kw = reduceAxis(3, "kw");
    Tensor out =
        compute(
            "GroupedConv",
            shape(1, 128, 56, 56),
            (b, o, i, j) ->
                sum(
                    padded
                        .at(
                            b,
                            o.floordiv(32).mul(32).add(c.var()),
                            i.add(kh.var()),
                            j.add(kw.var()))
                        .mul(w.at(o, c.var(), kh.var(), kw.var())),
                    c,
                    kh,
                    kw));
    return FloorBench.Op.library("user_grouped_conv_g4_1x128x56x56", List.of(x, w), out);
  }

  /** {@code x / sqrt(sum_c x^2 + 1e-6)} over the channels of [8, 64, 56, 56], in one compute. */
  static FloorBench.Op l2NormalizeChannels() {
    Tensor x = placeholder("X", FLOAT32, 8, 64, 56, 56);
    IterVar c = reduceAxis(64, "c");
    Tensor out =
        compute(
            "L2Normalized",
            x.shape(),
            (b, ch, i, j) ->
                x.at(b, ch, i, j)
                    .div(
                        sqrt(
                            sum(x.at(b, c.var(), i, j).mul(x.at(b, c.var(), i, j)), c).add(1e-6))));
    return FloorBench.Op.library("user_l2_normalize_channels_8x64x56x56", List.of(x), out);
  }

  /**
   * Softmax over the channels of [8, 64, 56, 56] (a segmentation head's), with the library's op.
   */
  static FloorBench.Op softmaxChannels() {
    Tensor x = placeholder("X", FLOAT32, 8, 64, 56, 56);
    return FloorBench.Op.library(
        "user_softmax_channels_8x64x56x56", List.of(x), Reduction.softmax(x, 1));
  }

  /** {@code C = A^T B} read as written, {@code sum_k a[k, i] * b[k, j]}, 512-cubed. */
  static FloorBench.Op transposedMatmul() {
    Tensor a = placeholder("A", FLOAT32, 512, 512);
    Tensor b = placeholder("B", FLOAT32, 512, 512);
    IterVar k = reduceAxis(512, "k");
    Tensor c =
        compute("AtB", shape(512, 512), (i, j) -> sum(a.at(k.var(), i).mul(b.at(k.var(), j)), k));
    return FloorBench.Op.library("user_transposed_matmul_512", List.of(a, b), c);
  }

  /**
   * Batch norm as in training, the statistics of the batch inline: each channel of [8, 64, 56, 56]
   * less its mean over (n, h, w), over the root of its mean square deviation.
   */
  static FloorBench.Op batchNormTraining() {
    Tensor x = placeholder("X", FLOAT32, 8, 64, 56, 56);
    double count = 8.0 * 56 * 56;
    IterVar n = reduceAxis(8, "n");
    IterVar h = reduceAxis(56, "h");
    IterVar w = reduceAxis(56, "w");
    Tensor mean =
        compute(
            "ChannelMean",
            shape(64),
            ch -> sum(x.at(n.var(), ch, h.var(), w.var()), n, h, w).div(count));
    IterVar n2 = reduceAxis(8, "n2");
    IterVar h2 = reduceAxis(56, "h2");
    IterVar w2 = reduceAxis(56, "w2");
    Tensor out =
        compute(
            "BatchNorm",
            x.shape(),
            (b, ch, i, j) -> {
              Expr d = x.at(n2.var(), ch, h2.var(), w2.var()).sub(mean.at(ch));
              Expr var = sum(d.mul(d), n2, h2, w2).div(count);
              return x.at(b, ch, i, j).sub(mean.at(ch)).div(sqrt(var.add(1e-5)));
            });
    return FloorBench.Op.library("user_batch_norm_training_8x64x56x56", List.of(x), out);
  }

  /** {@code y = A x} over [4096, 4096]: one row of A per output. */
  static FloorBench.Op matvec() {
    Tensor a = placeholder("A", FLOAT32, 4096, 4096);
    Tensor x = placeholder("X", FLOAT32, 4096);
    IterVar k = reduceAxis(4096, "k");
    Tensor y = compute("Matvec", shape(4096), i -> sum(a.at(i, k.var()).mul(x.at(k.var())), k));
    return FloorBench.Op.library("user_matvec_4096", List.of(a, x), y);
  }

  /** {@code y = x A} over [4096, 4096]: one column of A per output. */
  static FloorBench.Op vecmat() {
    Tensor a = placeholder("A", FLOAT32, 4096, 4096);
    Tensor x = placeholder("X", FLOAT32, 4096);
    IterVar k = reduceAxis(4096, "k");
    Tensor y = compute("Vecmat", shape(4096), j -> sum(x.at(k.var()).mul(a.at(k.var(), j)), k));
    return FloorBench.Op.library("user_vecmat_4096", List.of(a, x), y);
  }

  /** Softmax down the columns of [1024, 1024] (axis 0), with the library's op. */
  static FloorBench.Op softmaxFirstAxis() {
    Tensor x = placeholder("X", FLOAT32, 1024, 1024);
    return FloorBench.Op.library(
        "user_softmax_axis0_1024x1024", List.of(x), Reduction.softmax(x, 0));
  }

  /** The sum over the batch of [64, 256, 256]. */
  static FloorBench.Op sumOverBatch() {
    Tensor x = placeholder("X", FLOAT32, 64, 256, 256);
    IterVar b = reduceAxis(64, "b");
    Tensor y = compute("BatchSum", shape(256, 256), (i, j) -> sum(x.at(b.var(), i, j), b));
    return FloorBench.Op.library("user_sum_over_batch_64x256x256", List.of(x), y);
  }

  /** 2x2 average pooling, stride 2, written with two reduce axes: [8, 64, 112, 112]. */
  static FloorBench.Op avgPoolByHand() {
    Tensor x = placeholder("X", FLOAT32, 8, 64, 112, 112);
    IterVar p = reduceAxis(2, "p");
    IterVar q = reduceAxis(2, "q");
    Tensor y =
        compute(
            "AvgPool",
            shape(8, 64, 56, 56),
            (n, c, i, j) ->
                sum(x.at(n, c, i.mul(2).add(p.var()), j.mul(2).add(q.var())), p, q).mul(0.25));
    return FloorBench.Op.library("user_avg_pool_2x2_8x64x112x112", List.of(x), y);
  }

  /** The axes 1 and 2 of [16, 64, 64, 32] exchanged (attention's head split). */
  static FloorBench.Op permute0213() {
    Tensor x = placeholder("X", FLOAT32, 16, 64, 64, 32);
    Tensor y = compute("Permuted", shape(16, 64, 64, 32), (n, c, i, j) -> x.at(n, i, c, j));
    return FloorBench.Op.library("user_permute_0213_16x64x64x32", List.of(x), y);
  }

  /** Each column of [4096, 1024] minus its mean: a reduction over the first axis, inline. */
  static FloorBench.Op centerColumns() {
    Tensor a = placeholder("A", FLOAT32, 4096, 1024);
    IterVar r = reduceAxis(4096, "r");
    Tensor out =
        compute(
            "Centered",
            a.shape(),
            (row, col) -> a.at(row, col).sub(sum(a.at(r.var(), col), r).div(4096.0)));
    return FloorBench.Op.library("user_center_columns_4096x1024", List.of(a), out);
  }

  /** The mean over the middle axis of [32, 512, 256], with the library's op. */
  static FloorBench.Op meanMiddleAxis() {
    Tensor x = placeholder("X", FLOAT32, 32, 512, 256);
    return FloorBench.Op.library(
        "user_mean_axis1_32x512x256", List.of(x), Reduction.mean(x, false, 1));
  }

  /** The maximum of each row of three, [262144, 3]: rows too short for vector lanes. */
  static FloorBench.Op maxShortRows() {
    Tensor x = placeholder("X", FLOAT32, 262144, 3);
    return FloorBench.Op.library(
        "user_max_short_rows_262144x3", List.of(x), Reduction.max(x, false, 1));
  }

  /** The variance over the batch of [64, 4096], two passes: the mean, then the squares. */
  static FloorBench.Op varianceOverBatch() {
    Tensor x = placeholder("X", FLOAT32, 64, 4096);
    IterVar b = reduceAxis(64, "b");
    Tensor mean = compute("Mean", shape(4096), j -> sum(x.at(b.var(), j), b).div(64.0));
    IterVar b2 = reduceAxis(64, "b2");
    Tensor var =
        compute(
            "Variance",
            shape(4096),
            j -> {
              Expr d = x.at(b2.var(), j).sub(mean.at(j));
              return sum(d.mul(d), b2).div(64.0);
            });
    return FloorBench.Op.library("user_variance_over_batch_64x4096", List.of(x), var);
  }

  /** Per-channel sums of NCL [64, 128, 512] (a batch norm's statistics over batch and length). */
  static FloorBench.Op channelSumsNcl() {
    Tensor x = placeholder("X", FLOAT32, 64, 128, 512);
    return FloorBench.Op.library(
        "user_channel_sums_ncl_64x128x512", List.of(x), Reduction.sum(x, false, 0, 2));
  }

  /** {@code relu(a_i * b_j)} over [2048] x [2048]: an outer product with an activation. */
  static FloorBench.Op outerProductRelu() {
    Tensor a = placeholder("A", FLOAT32, 2048);
    Tensor b = placeholder("B", FLOAT32, 2048);
    Tensor y =
        compute(
            "Outer",
            shape(2048, 2048),
            (i, j) -> dev.kernelgen.te.TE.maximum(a.at(i).mul(b.at(j)), 0.0));
    return FloorBench.Op.library("user_outer_relu_2048", List.of(a, b), y);
  }

  /** A 1x1 convolution written as a sum over channels: [1, 256, 28, 28] x 128. */
  static FloorBench.Op pointwiseConv() {
    Tensor x = placeholder("X", FLOAT32, 1, 256, 28, 28);
    Tensor w = placeholder("W", FLOAT32, 128, 256);
    IterVar c = reduceAxis(256, "c");
    Tensor y =
        compute(
            "Pointwise",
            shape(1, 128, 28, 28),
            (n, o, i, j) -> sum(x.at(n, c.var(), i, j).mul(w.at(o, c.var())), c));
    return FloorBench.Op.library("user_pointwise_1x256x28x28_128", List.of(x, w), y);
  }

  /** A 3x3 convolution of stride 2 with its padding inline: [1, 64, 56, 56] x 128. */
  static FloorBench.Op convStride2() {
    Tensor x = placeholder("X", FLOAT32, 1, 64, 56, 56);
    Tensor w = placeholder("W", FLOAT32, 128, 64, 3, 3);
    IterVar c = reduceAxis(64, "c");
    IterVar p = reduceAxis(3, "p");
    IterVar q = reduceAxis(3, "q");
    Tensor y =
        compute(
            "ConvS2",
            shape(1, 128, 28, 28),
            (n, o, i, j) -> {
              Expr hi = i.mul(2).add(p.var()).sub(1);
              Expr wi = j.mul(2).add(q.var()).sub(1);
              Expr in =
                  select(
                      hi.ge(0).and(hi.lt(56)).and(wi.ge(0)).and(wi.lt(56)),
                      x.at(n, c.var(), hi, wi),
                      0.0);
              return sum(in.mul(w.at(o, c.var(), p.var(), q.var())), c, p, q);
            });
    return FloorBench.Op.library("user_conv3x3s2_1x64x56x56_128", List.of(x, w), y);
  }

  /** Global average pooling of small planes, with the library's mean: [8, 256, 14, 14]. */
  static FloorBench.Op globalAvgPoolSmallPlanes() {
    Tensor x = placeholder("X", FLOAT32, 8, 256, 14, 14);
    return FloorBench.Op.library(
        "user_global_avg_pool_8x256x14x14", List.of(x), Reduction.mean(x, false, 2, 3));
  }

  /** Layer norm over rows of 64, with the library's op: [65536, 64]. */
  static FloorBench.Op layerNormShortRows() {
    Tensor x = placeholder("X", FLOAT32, 65536, 64);
    Tensor g = placeholder("G", FLOAT32, 64);
    Tensor b = placeholder("B", FLOAT32, 64);
    return FloorBench.Op.library(
        "user_layer_norm_65536x64",
        List.of(x, g, b),
        dev.kernelgen.topi.Nn.layerNorm(x, g, b, 1, 1e-5));
  }

  /** Softmax over rows of 16 (one vector a row), with the library's op: [65536, 16]. */
  static FloorBench.Op softmaxShortRows() {
    Tensor x = placeholder("X", FLOAT32, 65536, 16);
    return FloorBench.Op.library(
        "user_softmax_short_rows_65536x16", List.of(x), Reduction.softmax(x, 1));
  }

  /** Attention scores of 16 heads, {@code q k^T / 8}: [16, 128, 64] x [16, 128, 64]. */
  static FloorBench.Op attentionScores() {
    Tensor q = placeholder("Q", FLOAT32, 16, 128, 64);
    Tensor k = placeholder("K", FLOAT32, 16, 128, 64);
    IterVar d = reduceAxis(64, "d");
    Tensor y =
        compute(
            "Scores",
            shape(16, 128, 128),
            (h, i, j) -> sum(q.at(h, i, d.var()).mul(k.at(h, j, d.var())), d).mul(0.125));
    return FloorBench.Op.library("user_attention_scores_16x128x128x64", List.of(q, k), y);
  }

  /** {@code tanh(W v + b)}: a matrix-vector product with its epilogue, [4096, 1024]. */
  static FloorBench.Op gemvTanh() {
    Tensor w = placeholder("W", FLOAT32, 4096, 1024);
    Tensor v = placeholder("V", FLOAT32, 1024);
    Tensor b = placeholder("B", FLOAT32, 4096);
    IterVar k = reduceAxis(1024, "k");
    Tensor y =
        compute(
            "GemvTanh",
            shape(4096),
            i -> tanh(sum(w.at(i, k.var()).mul(v.at(k.var())), k).add(b.at(i))));
    return FloorBench.Op.library("user_gemv_tanh_4096x1024", List.of(w, v, b), y);
  }
}
