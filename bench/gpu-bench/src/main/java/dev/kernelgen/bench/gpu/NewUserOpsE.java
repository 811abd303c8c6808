package dev.kernelgen.bench.gpu;

import static dev.kernelgen.bench.gpu.NewUserOps.add;
import static dev.kernelgen.te.TE.*;

import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * Operators a new user wrote, none of them in the tests, the floor table or the earlier sets: the
 * sweep of 2026-12-07's twenty-sixth session (dilated and grouped windows, reductions over outer
 * and inner axes at once, chained products, int64 and float64 rows, histograms, losses to a
 * scalar). {@code FloorBench OUT --set new-user} times each one's untuned pick against its naive
 * loops ({@link NewUserOps}).
 */
final class NewUserOpsE {
  private NewUserOpsE() {}

  static List<FloorBench.Op> operators() {
    List<FloorBench.Op> ops = new ArrayList<>();
    // 1. 3x3 convolution of dilation 2, its zero padding written with a select
    add(
        ops,
        "dilated_conv2d_d2_1x32x40x40_32",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 1, 32, 40, 40);
          Tensor w = placeholder("W", FLOAT32, 32, 32, 3, 3);
          IterVar c = reduceAxis(32, "c");
          IterVar ky = reduceAxis(3, "ky");
          IterVar kx = reduceAxis(3, "kx");
          Tensor y =
              compute(
                  "DilConv",
                  shape(1, 32, 40, 40),
                  (n, o, h, v) -> {
                    var hh = h.add(ky.var().mul(2)).sub(2);
                    var ww = v.add(kx.var().mul(2)).sub(2);
                    var inside = hh.ge(0).and(hh.lt(40)).and(ww.ge(0)).and(ww.lt(40));
                    return sum(
                        select(inside, x.at(n, c.var(), hh, ww), 0.0)
                            .mul(w.at(o, c.var(), ky.var(), kx.var())),
                        c,
                        ky,
                        kx);
                  });
          return new NewUserOps.Def(List.of(x, w), List.of(y));
        });
    // 2. linear attention's state: K^T V per batch, [b, n, d] x [b, n, e] -> [b, d, e]
    add(
        ops,
        "linear_attn_kv_4x1024x64x48",
        () -> {
          Tensor k = placeholder("K", FLOAT32, 4, 1024, 64);
          Tensor v = placeholder("V", FLOAT32, 4, 1024, 48);
          IterVar n = reduceAxis(1024, "n");
          Tensor y =
              compute(
                  "KV",
                  shape(4, 64, 48),
                  (b, d, e) -> sum(k.at(b, n.var(), d).mul(v.at(b, n.var(), e)), n));
          return new NewUserOps.Def(List.of(k, v), List.of(y));
        });
    // 3. rows scaled to unit L2 norm, eps inside the root
    add(
        ops,
        "l2_normalize_eps_4096x300",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 4096, 300);
          IterVar j = reduceAxis(300, "j");
          Tensor ss =
              compute("SumSq", shape(4096), i -> sum(x.at(i, j.var()).mul(x.at(i, j.var())), j));
          Tensor y =
              compute(
                  "L2Norm", shape(4096, 300), (i, c) -> x.at(i, c).div(sqrt(ss.at(i).add(1e-6))));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 4. softplus, ragged
    add(
        ops,
        "softplus_1000x333",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 1000, 333);
          Tensor y =
              compute("Softplus", shape(1000, 333), (i, j) -> log(f32(1.0).add(exp(x.at(i, j)))));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 5. batch norm's per-channel mean: a reduction over the batch and the plane at once
    add(
        ops,
        "bn_channel_mean_16x64x28x28",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 16, 64, 28, 28);
          IterVar n = reduceAxis(16, "n");
          IterVar h = reduceAxis(28, "h");
          IterVar w = reduceAxis(28, "w");
          Tensor y =
              compute(
                  "ChanMean",
                  shape(64),
                  c -> sum(x.at(n.var(), c, h.var(), w.var()), n, h, w).mul(1.0 / (16 * 28 * 28)));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 6. a matrix plus its transpose
    add(
        ops,
        "sym_add_transpose_1000x1000",
        () -> {
          Tensor a = placeholder("A", FLOAT32, 1000, 1000);
          Tensor y = compute("Sym", shape(1000, 1000), (i, j) -> a.at(i, j).add(a.at(j, i)));
          return new NewUserOps.Def(List.of(a), List.of(y));
        });
    // 7. int64 row sums
    add(
        ops,
        "int64_row_sum_500x777",
        () -> {
          Tensor x = placeholder("X", INT64, 500, 777);
          IterVar j = reduceAxis(777, "j");
          Tensor y = compute("RowSum64", shape(500), i -> sum(x.at(i, j.var()), j));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 8. a histogram of class labels: counts per class by comparison
    add(
        ops,
        "label_histogram_100000_c100",
        () -> {
          Tensor labels = placeholder("Labels", INT32, 100000);
          IterVar i = reduceAxis(100000, "i");
          Tensor y =
              compute(
                  "Hist",
                  shape(100),
                  c -> sum(select(labels.at(i.var()).floormod(100).eq(c), i32(1), i32(0)), i));
          return new NewUserOps.Def(List.of(labels), List.of(y));
        });
    // 9. nearest upsampling by 3, ragged
    add(
        ops,
        "upsample_nearest3_2x16x33x45",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 2, 16, 33, 45);
          Tensor y =
              compute(
                  "Up3",
                  shape(2, 16, 99, 135),
                  (n, c, h, w) -> x.at(n, c, h.floordiv(3), w.floordiv(3)));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 10. a row-wise dot product of two matrices
    add(
        ops,
        "rowwise_dot_10000x97",
        () -> {
          Tensor a = placeholder("A", FLOAT32, 10000, 97);
          Tensor b = placeholder("B", FLOAT32, 10000, 97);
          IterVar k = reduceAxis(97, "k");
          Tensor y =
              compute("RowDot", shape(10000), i -> sum(a.at(i, k.var()).mul(b.at(i, k.var())), k));
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    // 11. a float64 softmax over rows
    add(
        ops,
        "softmax_f64_300x1001",
        () -> {
          Tensor x = placeholder("X", FLOAT64, 300, 1001);
          IterVar j = reduceAxis(1001, "j");
          IterVar j2 = reduceAxis(1001, "j2");
          Tensor mx = compute("RowMax", shape(300), i -> max(x.at(i, j.var()), j));
          Tensor e = compute("Exp", shape(300, 1001), (i, c) -> exp(x.at(i, c).sub(mx.at(i))));
          Tensor s = compute("ExpSum", shape(300), i -> sum(e.at(i, j2.var()), j2));
          Tensor y = compute("SoftmaxF64", shape(300, 1001), (i, c) -> e.at(i, c).div(s.at(i)));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 12. mean absolute error to a scalar (a reduction over both axes, one output)
    add(
        ops,
        "mae_loss_1000x999",
        () -> {
          Tensor a = placeholder("Pred", FLOAT32, 1000, 999);
          Tensor b = placeholder("Target", FLOAT32, 1000, 999);
          IterVar i = reduceAxis(1000, "i");
          IterVar j = reduceAxis(999, "j");
          Tensor y =
              compute(
                  "Mae",
                  shape(1),
                  z ->
                      sum(abs(a.at(i.var(), j.var()).sub(b.at(i.var(), j.var()))), i, j)
                          .mul(1.0 / 999000));
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    // 13. two chained products, (A B) C
    add(
        ops,
        "chained_matmul_128x256x64x200",
        () -> {
          Tensor a = placeholder("A", FLOAT32, 128, 256);
          Tensor b = placeholder("B", FLOAT32, 256, 64);
          Tensor c = placeholder("C", FLOAT32, 64, 200);
          IterVar k = reduceAxis(256, "k");
          IterVar l = reduceAxis(64, "l");
          Tensor ab =
              compute(
                  "AB", shape(128, 64), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
          Tensor y =
              compute(
                  "ABC",
                  shape(128, 200),
                  (i, j) -> sum(ab.at(i, l.var()).mul(c.at(l.var(), j)), l));
          return new NewUserOps.Def(List.of(a, b, c), List.of(y));
        });
    // 14. attention scores of 8 heads, ragged lengths: bhqd,bhkd->bhqk
    add(
        ops,
        "einsum_qk_2x8x77x91x64",
        () -> {
          Tensor q = placeholder("Q", FLOAT32, 2, 8, 77, 64);
          Tensor k = placeholder("K", FLOAT32, 2, 8, 91, 64);
          IterVar d = reduceAxis(64, "d");
          Tensor y =
              compute(
                  "QK",
                  shape(2, 8, 77, 91),
                  (b, h, i, j) ->
                      sum(q.at(b, h, i, d.var()).mul(k.at(b, h, j, d.var())), d).mul(0.125));
          return new NewUserOps.Def(List.of(q, k), List.of(y));
        });
    // 15. grouped 3x3 convolution, 4 groups, valid padding, ragged plane
    add(
        ops,
        "grouped_conv_g4_2x32x30x27_48",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 2, 32, 30, 27);
          Tensor w = placeholder("W", FLOAT32, 48, 8, 3, 3);
          IterVar c = reduceAxis(8, "c");
          IterVar ky = reduceAxis(3, "ky");
          IterVar kx = reduceAxis(3, "kx");
          Tensor y =
              compute(
                  "GConv",
                  shape(2, 48, 28, 25),
                  (n, o, h, v) ->
                      sum(
                          x.at(
                                  n,
                                  o.floordiv(12).mul(8).add(c.var()),
                                  h.add(ky.var()),
                                  v.add(kx.var()))
                              .mul(w.at(o, c.var(), ky.var(), kx.var())),
                          c,
                          ky,
                          kx));
          return new NewUserOps.Def(List.of(x, w), List.of(y));
        });
    return ops;
  }
}
