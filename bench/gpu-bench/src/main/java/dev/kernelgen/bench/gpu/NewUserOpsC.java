package dev.kernelgen.bench.gpu;

import static dev.kernelgen.bench.gpu.NewUserOps.add;
import static dev.kernelgen.bench.gpu.NewUserOps.clampIdx;
import static dev.kernelgen.bench.gpu.NewUserOps.pool3d;
import static dev.kernelgen.te.TE.*;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Topi;
import java.util.ArrayList;
import java.util.List;

/**
 * Operators a new user wrote, none of them in the tests or the floor table before: the second C
 * sweep of 2026-12-07, its first half (losses, normalisations over other axes, a transposed and a
 * dilated 1-d convolution, a 3-d pooling, broadcast products, a channel shuffle). {@code FloorBench
 * OUT --set new-user} times each one's untuned pick against its naive loops ({@link NewUserOps}).
 */
final class NewUserOpsC {
  private NewUserOpsC() {}

  static List<FloorBench.Op> operators() {
    List<FloorBench.Op> ops = new ArrayList<>();
    // 1. log-softmax over the last axis of a 3-d tensor (topi)
    add(
        ops,
        "log_softmax_3d_12x97x1001",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 12, 97, 1001);
          return new NewUserOps.Def(List.of(x), List.of(Topi.logSoftmax(x, 2)));
        });
    // 2. cross-entropy: mean over rows of logsumexp(x_i) - x_i[label_i]
    add(
        ops,
        "cross_entropy_4096x1000",
        () -> {
          int N = 4096, C = 1000;
          Tensor x = placeholder("Logits", FLOAT32, N, C);
          Tensor lab = placeholder("Labels", INT32, N);
          IterVar k = reduceAxis(C, "k");
          Tensor mx = compute("RowMax", shape(N), i -> max(x.at(i, k.var()), k));
          IterVar k2 = reduceAxis(C, "k2");
          Tensor se =
              compute("RowSumExp", shape(N), i -> sum(exp(x.at(i, k2.var()).sub(mx.at(i))), k2));
          Tensor li =
              compute(
                  "RowLoss",
                  shape(N),
                  i ->
                      log(se.at(i))
                          .add(mx.at(i))
                          .sub(x.at(i, lab.at(i).mul(37).add(i.mul(13)).floormod(C))));
          IterVar r = reduceAxis(N, "r");
          Tensor loss = compute("Loss", shape(1), z -> sum(li.at(r.var()), r).mul(1.0 / N));
          return new NewUserOps.Def(List.of(x, lab), List.of(loss));
        });
    // 3. RMS norm over the middle axis of [B, C, T]
    add(
        ops,
        "rms_norm_mid_16x333x129",
        () -> {
          int B = 16, C = 333, T = 129;
          Tensor x = placeholder("X", FLOAT32, B, C, T);
          Tensor g = placeholder("G", FLOAT32, C);
          IterVar c = reduceAxis(C, "c");
          Tensor ms =
              compute(
                  "MeanSq",
                  shape(B, T),
                  (b, t) -> sum(x.at(b, c.var(), t).mul(x.at(b, c.var(), t)), c).mul(1.0 / C));
          Tensor y =
              compute(
                  "RmsMid",
                  shape(B, C, T),
                  (b, cc, t) -> x.at(b, cc, t).div(sqrt(ms.at(b, t).add(1e-6))).mul(g.at(cc)));
          return new NewUserOps.Def(List.of(x, g), List.of(y));
        });
    // 4. 2-d sum pool 4x4 stride 4, NHWC
    add(
        ops,
        "sum_pool4_nhwc_8x128x128x36",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 8, 128, 128, 36);
          IterVar ky = reduceAxis(4, "ky"), kx = reduceAxis(4, "kx");
          Tensor y =
              compute(
                  "SumPool4",
                  shape(8, 32, 32, 36),
                  (n, i, j, c) ->
                      sum(x.at(n, i.mul(4).add(ky.var()), j.mul(4).add(kx.var()), c), ky, kx));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 5. transposed conv 1-d stride 2: x [B, Cin, T], w [Cin, Cout, K] -> [B, Cout, 2(T-1)+K]
    add(
        ops,
        "conv_transpose1d_s2_4x32x250_48_k5",
        () -> {
          int B = 4, CI = 32, CO = 48, T = 250, K = 5, TO = 2 * (T - 1) + K;
          Tensor x = placeholder("X", FLOAT32, B, CI, T);
          Tensor w = placeholder("W", FLOAT32, CI, CO, K);
          IterVar c = reduceAxis(CI, "c"), kk = reduceAxis(K, "kk");
          Tensor y =
              compute(
                  "ConvT1d",
                  shape(B, CO, TO),
                  (b, o, t) -> {
                    Expr d = t.sub(kk.var());
                    Expr ok = all(d.ge(0), d.floormod(2).eq(0), d.floordiv(2).lt(T));
                    return sum(
                        select(
                            ok,
                            x.at(b, c.var(), clampIdx(d.floordiv(2), T - 1))
                                .mul(w.at(c.var(), o, kk.var())),
                            0.0),
                        c,
                        kk);
                  });
          return new NewUserOps.Def(List.of(x, w), List.of(y));
        });
    // 6. depthwise 1-d conv [B, C, T], 9 taps, dilation 3, same padding 12
    add(
        ops,
        "dwconv1d_dil3_k9_8x96x1000",
        () -> {
          int B = 8, C = 96, T = 1000;
          Tensor x = placeholder("X", FLOAT32, B, C, T);
          Tensor w = placeholder("W", FLOAT32, C, 9);
          IterVar k = reduceAxis(9, "k");
          Tensor y =
              compute(
                  "DwDil",
                  shape(B, C, T),
                  (b, c, t) -> {
                    Expr tt = t.add(k.var().mul(3)).sub(12);
                    return sum(
                        select(all(tt.ge(0), tt.lt(T)), x.at(b, c, tt), 0.0).mul(w.at(c, k.var())),
                        k);
                  });
          return new NewUserOps.Def(List.of(x, w), List.of(y));
        });
    // 7. group norm, 3 groups over 45 channels
    add(
        ops,
        "group_norm_g3_4x45x31x31",
        () -> {
          int N = 4, C = 45, G = 3, CG = 15, H = 31, W = 31;
          double cnt = CG * H * W;
          Tensor x = placeholder("X", FLOAT32, N, C, H, W);
          Tensor gm = placeholder("Gamma", FLOAT32, C);
          Tensor bt = placeholder("Beta", FLOAT32, C);
          IterVar c = reduceAxis(CG, "c"), h = reduceAxis(H, "h"), w = reduceAxis(W, "w");
          Tensor mean =
              compute(
                  "GMean",
                  shape(N, G),
                  (n, g) ->
                      sum(x.at(n, g.mul(CG).add(c.var()), h.var(), w.var()), c, h, w)
                          .mul(1.0 / cnt));
          IterVar c2 = reduceAxis(CG, "c2"), h2 = reduceAxis(H, "h2"), w2 = reduceAxis(W, "w2");
          Tensor var =
              compute(
                  "GVar",
                  shape(N, G),
                  (n, g) -> {
                    Expr d =
                        x.at(n, g.mul(CG).add(c2.var()), h2.var(), w2.var()).sub(mean.at(n, g));
                    return sum(d.mul(d), c2, h2, w2).mul(1.0 / cnt);
                  });
          Tensor y =
              compute(
                  "GNorm",
                  shape(N, C, H, W),
                  (n, ch, i, j) ->
                      x.at(n, ch, i, j)
                          .sub(mean.at(n, ch.floordiv(CG)))
                          .div(sqrt(var.at(n, ch.floordiv(CG)).add(1e-5)))
                          .mul(gm.at(ch))
                          .add(bt.at(ch)));
          return new NewUserOps.Def(List.of(x, gm, bt), List.of(y));
        });
    // 8. batched matmul, A has batch 1 (broadcast)
    add(
        ops,
        "bmm_bcast_a1_8x128x200x150",
        () -> {
          Tensor a = placeholder("A", FLOAT32, 1, 128, 200);
          Tensor b = placeholder("B", FLOAT32, 8, 200, 150);
          IterVar k = reduceAxis(200, "k");
          Tensor y =
              compute(
                  "BmmB",
                  shape(8, 128, 150),
                  (bb, i, j) -> sum(a.at(0, i, k.var()).mul(b.at(bb, k.var(), j)), k));
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    // 9. 3-d max pool 2x2x2 stride 2, NCDHW
    add(ops, "max_pool3d_2x16x32x56x56", () -> pool3d(2, 16, 32, 56, 56, true));
    // 10. warp by per-image integer shifts (zero outside)
    add(
        ops,
        "int_shift_warp_8x32x61x67",
        () -> {
          int N = 8, C = 32, H = 61, W = 67;
          Tensor x = placeholder("X", FLOAT32, N, C, H, W);
          Tensor s = placeholder("Shift", INT32, N, 2);
          Tensor y =
              compute(
                  "Warp",
                  shape(N, C, H, W),
                  (n, c, i, j) -> {
                    Expr si = i.add(s.at(n, 0)), sj = j.add(s.at(n, 1));
                    return select(
                        all(si.ge(0), si.lt(H), sj.ge(0), sj.lt(W)),
                        x.at(n, c, clampIdx(si, H - 1), clampIdx(sj, W - 1)),
                        0.0);
                  });
          return new NewUserOps.Def(List.of(x, s), List.of(y));
        });
    // 11. masked mean over time
    add(
        ops,
        "masked_mean_32x500x129",
        () -> {
          int B = 32, T = 500, D = 129;
          Tensor x = placeholder("X", FLOAT32, B, T, D);
          Tensor mk = placeholder("Mask", FLOAT32, B, T);
          IterVar t = reduceAxis(T, "t");
          Tensor cnt =
              compute(
                  "MCount",
                  shape(B),
                  b -> sum(select(mk.at(b, t.var()).gt(f32(0.0)), f32(1.0), f32(0.0)), t));
          IterVar t2 = reduceAxis(T, "t2");
          Tensor y =
              compute(
                  "MMean",
                  shape(B, D),
                  (b, d) ->
                      sum(select(mk.at(b, t2.var()).gt(f32(0.0)), x.at(b, t2.var(), d), 0.0), t2)
                          .div(maximum(cnt.at(b), 1.0)));
          return new NewUserOps.Def(List.of(x, mk), List.of(y));
        });
    // 12. Gram matrix per batch: X^T X for [B, N, D]
    add(
        ops,
        "gram_per_batch_8x300x96",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 8, 300, 96);
          IterVar n = reduceAxis(300, "n");
          Tensor y =
              compute(
                  "Gram",
                  shape(8, 96, 96),
                  (b, d, e) -> sum(x.at(b, n.var(), d).mul(x.at(b, n.var(), e)), n));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 13. multiclass hinge loss (mean)
    add(
        ops,
        "multiclass_hinge_2048x1000",
        () -> {
          int N = 2048, C = 1000;
          Tensor s = placeholder("S", FLOAT32, N, C);
          Tensor lab = placeholder("Labels", INT32, N);
          IterVar j = reduceAxis(C, "j");
          Tensor li =
              compute(
                  "HingeRow",
                  shape(N),
                  i -> {
                    Expr y = lab.at(i).mul(37).add(i.mul(13)).floormod(C);
                    return sum(
                        select(
                            j.var().ne(y),
                            maximum(s.at(i, j.var()).sub(s.at(i, y)).add(1.0), 0.0),
                            0.0),
                        j);
                  });
          IterVar r = reduceAxis(N, "r");
          Tensor loss = compute("Hinge", shape(1), z -> sum(li.at(r.var()), r).mul(1.0 / N));
          return new NewUserOps.Def(List.of(s, lab), List.of(loss));
        });
    // 14. channel shuffle, 3 groups of 40 (reshape/transpose as topi)
    add(
        ops,
        "channel_shuffle_g3_8x120x28x28",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 8, 120, 28, 28);
          Tensor r = Topi.reshape(x, shape(8, 3, 40, 28, 28));
          Tensor t = Topi.transpose(r, 0, 2, 1, 3, 4);
          Tensor y = Topi.reshape(t, shape(8, 120, 28, 28));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    return ops;
  }
}
