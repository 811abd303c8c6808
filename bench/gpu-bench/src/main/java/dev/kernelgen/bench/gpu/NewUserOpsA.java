package dev.kernelgen.bench.gpu;

import static dev.kernelgen.bench.gpu.NewUserOps.add;
import static dev.kernelgen.bench.gpu.NewUserOps.sig;
import static dev.kernelgen.te.TE.*;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Topi;
import java.util.ArrayList;
import java.util.List;

/**
 * Operators a new user wrote, none of them in the tests or the floor table before: the C sweep of
 * 2026-12-07 (layers: convolutions, normalisations, cells, resampling, windows). {@code FloorBench
 * OUT --set new-user} times each one's untuned pick against its naive loops ({@link NewUserOps}).
 */
final class NewUserOpsA {
  private NewUserOpsA() {}

  static List<FloorBench.Op> operators() {
    List<FloorBench.Op> ops = new ArrayList<>();
    // 1. 1x1 conv, stride 2, NHWC, weights [Cin, Cout]
    add(
        ops,
        "conv1x1_s2_nhwc_2x35x35x80_120",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 2, 35, 35, 80);
          Tensor w = placeholder("W", FLOAT32, 80, 120);
          IterVar c = reduceAxis(80, "c");
          Tensor y =
              compute(
                  "Conv1x1S2",
                  shape(2, 18, 18, 120),
                  (n, i, j, o) ->
                      sum(x.at(n, i.mul(2), j.mul(2), c.var()).mul(w.at(c.var(), o)), c));
          return new NewUserOps.Def(List.of(x, w), List.of(y));
        });
    // 2. batched GEMV
    add(
        ops,
        "batched_gemv_24x300x513",
        () -> {
          Tensor a = placeholder("A", FLOAT32, 24, 300, 513);
          Tensor v = placeholder("V", FLOAT32, 24, 513);
          IterVar k = reduceAxis(513, "k");
          Tensor y =
              compute(
                  "BGemv",
                  shape(24, 300),
                  (b, i) -> sum(a.at(b, i, k.var()).mul(v.at(b, k.var())), k));
          return new NewUserOps.Def(List.of(a, v), List.of(y));
        });
    // 3. depthwise 3x3 NHWC, channel multiplier 2 (topi)
    add(
        ops,
        "depthwise_nhwc_m2_1x56x56x48",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 1, 56, 56, 48);
          Tensor w = placeholder("W", FLOAT32, 3, 3, 48, 2);
          Tensor y = Topi.depthwiseConv2dNhwc(x, w, 1, 1, new Padding(1, 1, 1, 1), 1);
          return new NewUserOps.Def(List.of(x, w), List.of(y));
        });
    // 4. 7x7 stem conv stride 2 on 3 channels (topi NCHW)
    add(
        ops,
        "stem7x7_s2_1x3x115x115_32",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 1, 3, 115, 115);
          Tensor w = placeholder("W", FLOAT32, 32, 3, 7, 7);
          Tensor y = Topi.conv2dNchw(x, w, 2, 2, new Padding(3, 3, 3, 3), 1);
          return new NewUserOps.Def(List.of(x, w), List.of(y));
        });
    // 5. instance norm
    add(
        ops,
        "instance_norm_4x32x57x57",
        () -> {
          int N = 4, C = 32, H = 57, W = 57;
          Tensor x = placeholder("X", FLOAT32, N, C, H, W);
          Tensor g = placeholder("Gamma", FLOAT32, C);
          Tensor b = placeholder("Beta", FLOAT32, C);
          IterVar h1 = reduceAxis(H, "h1"), w1 = reduceAxis(W, "w1");
          Tensor mean =
              compute(
                  "Mean",
                  shape(N, C),
                  (n, c) -> sum(x.at(n, c, h1.var(), w1.var()), h1, w1).mul(1.0 / (H * W)));
          IterVar h2 = reduceAxis(H, "h2"), w2 = reduceAxis(W, "w2");
          Tensor var =
              compute(
                  "Var",
                  shape(N, C),
                  (n, c) -> {
                    Expr d = x.at(n, c, h2.var(), w2.var()).sub(mean.at(n, c));
                    return sum(d.mul(d), h2, w2).mul(1.0 / (H * W));
                  });
          Tensor y =
              compute(
                  "InstNorm",
                  shape(N, C, H, W),
                  (n, c, i, j) ->
                      x.at(n, c, i, j)
                          .sub(mean.at(n, c))
                          .div(sqrt(var.at(n, c).add(1e-5)))
                          .mul(g.at(c))
                          .add(b.at(c)));
          return new NewUserOps.Def(List.of(x, g, b), List.of(y));
        });
    // 6. LSTM cell: gates = X W + H U + b; outputs h', c'
    add(
        ops,
        "lstm_cell_64x256_h192",
        () -> {
          int B = 64, I = 256, Hd = 192, G = 4 * Hd;
          Tensor x = placeholder("X", FLOAT32, B, I);
          Tensor h = placeholder("H", FLOAT32, B, Hd);
          Tensor c = placeholder("C", FLOAT32, B, Hd);
          Tensor w = placeholder("W", FLOAT32, I, G);
          Tensor u = placeholder("U", FLOAT32, Hd, G);
          Tensor bias = placeholder("Bias", FLOAT32, G);
          IterVar k = reduceAxis(I, "k");
          Tensor xw =
              compute("XW", shape(B, G), (i, j) -> sum(x.at(i, k.var()).mul(w.at(k.var(), j)), k));
          IterVar k2 = reduceAxis(Hd, "k2");
          Tensor hu =
              compute(
                  "HU", shape(B, G), (i, j) -> sum(h.at(i, k2.var()).mul(u.at(k2.var(), j)), k2));
          Tensor gates =
              compute("Gates", shape(B, G), (i, j) -> xw.at(i, j).add(hu.at(i, j)).add(bias.at(j)));
          Tensor cn =
              compute(
                  "CNew",
                  shape(B, Hd),
                  (i, j) ->
                      sig(gates.at(i, j.add(Hd)))
                          .mul(c.at(i, j))
                          .add(sig(gates.at(i, j)).mul(tanh(gates.at(i, j.add(2 * Hd))))));
          Tensor hn =
              compute(
                  "HNew",
                  shape(B, Hd),
                  (i, j) -> sig(gates.at(i, j.add(3 * Hd))).mul(tanh(cn.at(i, j))));
          return new NewUserOps.Def(List.of(x, h, c, w, u, bias), List.of(hn, cn));
        });
    // 7. fused 2-layer MLP
    add(
        ops,
        "mlp2_96x250x384x101",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 96, 250);
          Tensor w1 = placeholder("W1", FLOAT32, 250, 384);
          Tensor b1 = placeholder("B1", FLOAT32, 384);
          Tensor w2 = placeholder("W2", FLOAT32, 384, 101);
          Tensor b2 = placeholder("B2", FLOAT32, 101);
          IterVar k = reduceAxis(250, "k");
          Tensor hid =
              compute(
                  "Hidden",
                  shape(96, 384),
                  (i, j) ->
                      maximum(sum(x.at(i, k.var()).mul(w1.at(k.var(), j)), k).add(b1.at(j)), 0.0));
          IterVar k2 = reduceAxis(384, "k2");
          Tensor y =
              compute(
                  "Out",
                  shape(96, 101),
                  (i, j) -> sum(hid.at(i, k2.var()).mul(w2.at(k2.var(), j)), k2).add(b2.at(j)));
          return new NewUserOps.Def(List.of(x, w1, b1, w2, b2), List.of(y));
        });
    // 8. squeeze-excitation
    add(
        ops,
        "squeeze_excite_4x120x28x28_r30",
        () -> {
          int N = 4, C = 120, H = 28, R = 30;
          Tensor x = placeholder("X", FLOAT32, N, C, H, H);
          Tensor w1 = placeholder("W1", FLOAT32, R, C);
          Tensor b1 = placeholder("B1", FLOAT32, R);
          Tensor w2 = placeholder("W2", FLOAT32, C, R);
          Tensor b2 = placeholder("B2", FLOAT32, C);
          IterVar hh = reduceAxis(H, "hh"), ww = reduceAxis(H, "ww");
          Tensor pool =
              compute(
                  "Pool",
                  shape(N, C),
                  (n, c) -> sum(x.at(n, c, hh.var(), ww.var()), hh, ww).mul(1.0 / (H * H)));
          IterVar cc = reduceAxis(C, "cc");
          Tensor z =
              compute(
                  "Squeeze",
                  shape(N, R),
                  (n, r) ->
                      maximum(
                          sum(w1.at(r, cc.var()).mul(pool.at(n, cc.var())), cc).add(b1.at(r)),
                          0.0));
          IterVar rr = reduceAxis(R, "rr");
          Tensor s =
              compute(
                  "Excite",
                  shape(N, C),
                  (n, c) -> sig(sum(w2.at(c, rr.var()).mul(z.at(n, rr.var())), rr).add(b2.at(c))));
          Tensor y =
              compute(
                  "SEScale", shape(N, C, H, H), (n, c, i, j) -> x.at(n, c, i, j).mul(s.at(n, c)));
          return new NewUserOps.Def(List.of(x, w1, b1, w2, b2), List.of(y));
        });
    // 9. bilinear resize 45 -> 64 (half-pixel centers)
    add(
        ops,
        "bilinear_resize_2x32x45x45_to_64",
        () -> {
          int N = 2, C = 32, IH = 45, OH = 64;
          double scale = (double) IH / OH;
          Tensor x = placeholder("X", FLOAT32, N, C, IH, IH);
          Tensor y =
              compute(
                  "Resize",
                  shape(N, C, OH, OH),
                  (n, c, i, j) -> {
                    Expr sy = maximum(cast(FLOAT32, i).add(0.5).mul(scale).sub(0.5), 0.0);
                    Expr sx = maximum(cast(FLOAT32, j).add(0.5).mul(scale).sub(0.5), 0.0);
                    Expr y0 = cast(INT32, floor(sy)), x0 = cast(INT32, floor(sx));
                    Expr y1 = minimum(y0.add(1), IH - 1), x1 = minimum(x0.add(1), IH - 1);
                    Expr wy = sy.sub(cast(FLOAT32, y0)), wx = sx.sub(cast(FLOAT32, x0));
                    Expr top =
                        x.at(n, c, y0, x0).mul(f32(1.0).sub(wx)).add(x.at(n, c, y0, x1).mul(wx));
                    Expr bot =
                        x.at(n, c, y1, x0).mul(f32(1.0).sub(wx)).add(x.at(n, c, y1, x1).mul(wx));
                    return top.mul(f32(1.0).sub(wy)).add(bot.mul(wy));
                  });
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 10. cumulative sum along axis 0
    add(
        ops,
        "cumsum_axis0_256x383",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 256, 383);
          IterVar k = reduceAxis(256, "k");
          Tensor y =
              compute(
                  "CumSum0",
                  shape(256, 383),
                  (i, j) -> sum(select(k.var().le(i), x.at(k.var(), j), 0.0), k));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 11. max over windows of 1-d signals: window 25 stride 10
    add(
        ops,
        "window_max_1d_128x8000_w25s10",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 128, 8000);
          IterVar t = reduceAxis(25, "t");
          Tensor y =
              compute("WinMax", shape(128, 798), (b, o) -> max(x.at(b, o.mul(10).add(t.var())), t));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 12. weighted sum over middle axis
    add(
        ops,
        "weighted_mid_sum_64x300x129",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 64, 300, 129);
          Tensor w = placeholder("Wt", FLOAT32, 300);
          IterVar k = reduceAxis(300, "k");
          Tensor y =
              compute(
                  "WMid", shape(64, 129), (b, j) -> sum(x.at(b, k.var(), j).mul(w.at(k.var())), k));
          return new NewUserOps.Def(List.of(x, w), List.of(y));
        });
    // 13. stereo cost volume (correlation over disparities)
    add(
        ops,
        "cost_volume_64x48x64_d40",
        () -> {
          int C = 64, H = 48, W = 64, D = 40;
          Tensor l = placeholder("L", FLOAT32, C, H, W);
          Tensor r = placeholder("R", FLOAT32, C, H, W);
          IterVar c = reduceAxis(C, "c");
          Tensor y =
              compute(
                  "CostVol",
                  shape(D, H, W),
                  (d, h, w) ->
                      sum(
                              select(
                                  w.sub(d).ge(0),
                                  l.at(c.var(), h, w).mul(r.at(c.var(), h, w.sub(d))),
                                  0.0),
                              c)
                          .mul(1.0 / C));
          return new NewUserOps.Def(List.of(l, r), List.of(y));
        });
    // 14. complex multiply, interleaved re/im
    add(
        ops,
        "complex_mul_interleaved_1000003",
        () -> {
          int N = 1_000_003;
          Tensor a = placeholder("A", FLOAT32, 2 * N);
          Tensor b = placeholder("B", FLOAT32, 2 * N);
          Tensor y =
              compute(
                  "CMul",
                  shape(2 * N),
                  k -> {
                    Expr r = k.floordiv(2).mul(2), im = r.add(1);
                    return select(
                        k.floormod(2).eq(0),
                        a.at(r).mul(b.at(r)).sub(a.at(im).mul(b.at(im))),
                        a.at(r).mul(b.at(im)).add(a.at(im).mul(b.at(r))));
                  });
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    // 15. row-wise L1 normalize
    add(
        ops,
        "l1_normalize_rows_3000x700",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 3000, 700);
          IterVar k = reduceAxis(700, "k");
          Tensor s = compute("L1", shape(3000), i -> sum(abs(x.at(i, k.var())), k));
          Tensor y =
              compute(
                  "L1Norm", shape(3000, 700), (i, j) -> x.at(i, j).div(maximum(s.at(i), 1e-12)));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 16. batched outer product
    add(
        ops,
        "batched_outer_64x300x257",
        () -> {
          Tensor a = placeholder("A", FLOAT32, 64, 300);
          Tensor b = placeholder("B", FLOAT32, 64, 257);
          Tensor y =
              compute("BOuter", shape(64, 300, 257), (n, i, j) -> a.at(n, i).mul(b.at(n, j)));
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    return ops;
  }
}
