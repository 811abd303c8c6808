package dev.kernelgen.bench.gpu;

import static dev.kernelgen.bench.gpu.NewUserOps.add;
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
 * sweep of 2026-12-07, its second half (stencils, scans, polynomials, integer dots, poolings of
 * stride 2, broadcast products). {@code FloorBench OUT --set new-user} times each one's untuned
 * pick against its naive loops ({@link NewUserOps}).
 */
final class NewUserOpsD {
  private NewUserOpsD() {}

  static List<FloorBench.Op> operators() {
    List<FloorBench.Op> ops = new ArrayList<>();
    // 15. 5-point Laplacian (valid region) on a ragged grid
    add(
        ops,
        "laplacian5_1000x1003",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 1000, 1003);
          Tensor y =
              compute(
                  "Lap5",
                  shape(998, 1001),
                  (i, j) ->
                      x.at(i.add(1), j.add(1))
                          .mul(4.0)
                          .sub(x.at(i, j.add(1)))
                          .sub(x.at(i.add(2), j.add(1)))
                          .sub(x.at(i.add(1), j))
                          .sub(x.at(i.add(1), j.add(2))));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 16. 3x3 box blur applied twice (two stages)
    add(
        ops,
        "box_blur3x3_twice_3x720x1283",
        () -> {
          int C = 3, H = 720, W = 1283;
          Tensor x = placeholder("X", FLOAT32, C, H, W);
          IterVar a = reduceAxis(3, "a"), b = reduceAxis(3, "b");
          Tensor b1 =
              compute(
                  "Blur1",
                  shape(C, H - 2, W - 2),
                  (c, i, j) -> sum(x.at(c, i.add(a.var()), j.add(b.var())), a, b).mul(1.0 / 9));
          IterVar a2 = reduceAxis(3, "a2"), b2 = reduceAxis(3, "b2");
          Tensor y =
              compute(
                  "Blur2",
                  shape(C, H - 4, W - 4),
                  (c, i, j) ->
                      sum(b1.at(c, i.add(a2.var()), j.add(b2.var())), a2, b2).mul(1.0 / 9));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 17. EMA as a masked reduction with weights pow(alpha, i - k)
    add(
        ops,
        "ema_pow_reduce_32x256",
        () -> {
          int B = 32, T = 256;
          double alpha = 0.9;
          Tensor x = placeholder("X", FLOAT32, B, T);
          IterVar k = reduceAxis(T, "k");
          Tensor y =
              compute(
                  "Ema",
                  shape(B, T),
                  (b, i) ->
                      sum(
                              select(
                                  k.var().le(i),
                                  pow(f32(alpha), cast(FLOAT32, i.sub(k.var())))
                                      .mul(x.at(b, k.var())),
                                  0.0),
                              k)
                          .mul(1 - alpha));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 18. outer sum then row logsumexp (max + log sum exp)
    add(
        ops,
        "outer_sum_lse_2000x1501",
        () -> {
          int M = 2000, N = 1501;
          Tensor a = placeholder("A", FLOAT32, M);
          Tensor b = placeholder("B", FLOAT32, N);
          Tensor s = compute("OuterSum", shape(M, N), (i, j) -> a.at(i).add(b.at(j)));
          IterVar k = reduceAxis(N, "k");
          Tensor mx = compute("OMax", shape(M), i -> max(s.at(i, k.var()), k));
          IterVar k2 = reduceAxis(N, "k2");
          Tensor y =
              compute(
                  "OLse",
                  shape(M),
                  i -> log(sum(exp(s.at(i, k2.var()).sub(mx.at(i))), k2)).add(mx.at(i)));
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    // 19. Horner polynomial, 8 coefficients
    add(
        ops,
        "horner8_2000003",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 2_000_003);
          Tensor cf = placeholder("Coef", FLOAT32, 8);
          Tensor y =
              compute(
                  "Horner",
                  shape(2_000_003),
                  i -> {
                    Expr v = x.at(i);
                    Expr acc = cf.at(7);
                    for (int d = 6; d >= 0; d--) acc = acc.mul(v).add(cf.at(d));
                    return acc;
                  });
          return new NewUserOps.Def(List.of(x, cf), List.of(y));
        });
    // 20. int8-like dot with zero points, int32 accumulate, [M,K] x [K,N]
    add(
        ops,
        "int_dot_zp_384x300x257",
        () -> {
          Tensor a = placeholder("A", INT32, 384, 300);
          Tensor b = placeholder("B", INT32, 300, 257);
          IterVar k = reduceAxis(300, "k");
          Tensor y =
              compute(
                  "QDot",
                  shape(384, 257),
                  (i, j) -> sum(a.at(i, k.var()).sub(3).mul(b.at(k.var(), j).add(5)), k));
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    // 21. 2-d max pool 2x2 stride 2 NCHW, ragged
    add(
        ops,
        "max_pool2d_2x2_nchw_8x30x111x111",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 8, 30, 111, 111);
          IterVar ky = reduceAxis(2, "ky"), kx = reduceAxis(2, "kx");
          Tensor y =
              compute(
                  "MaxPool2",
                  shape(8, 30, 55, 55),
                  (n, c, i, j) ->
                      max(x.at(n, c, i.mul(2).add(ky.var()), j.mul(2).add(kx.var())), ky, kx));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 22. 3-d avg pool 2x2x2, NCDHW, output width 56 (divisible by 8 and 16)
    add(ops, "avg_pool3d_1x8x16x112x112", () -> pool3d(1, 8, 16, 112, 112, false));
    // 23. 3-d max pool 2x2x2 with output width 56
    add(ops, "max_pool3d_1x8x16x112x112", () -> pool3d(1, 8, 16, 112, 112, true));
    // 24. 1-d max pool k3 s2 over [B, C, T]
    add(
        ops,
        "max_pool1d_k3s2_16x64x2001",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 16, 64, 2001);
          IterVar t = reduceAxis(3, "t");
          Tensor y =
              compute(
                  "MaxPool1",
                  shape(16, 64, 1000),
                  (b, c, o) -> max(x.at(b, c, o.mul(2).add(t.var())), t));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 25. pairwise squared L2 distances
    add(
        ops,
        "pairwise_sqdist_500x64x700",
        () -> {
          Tensor a = placeholder("A", FLOAT32, 500, 64);
          Tensor b = placeholder("B", FLOAT32, 700, 64);
          IterVar d = reduceAxis(64, "d");
          Tensor y =
              compute(
                  "SqDist",
                  shape(500, 700),
                  (i, j) -> {
                    Expr diff = a.at(i, d.var()).sub(b.at(j, d.var()));
                    return sum(diff.mul(diff), d);
                  });
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    // 26. attention scores + softmax over keys: softmax(Q K^T / 8) per head
    add(
        ops,
        "attn_scores_softmax_4x200x64x300",
        () -> {
          int H = 4, Q = 200, D = 64, K = 300;
          Tensor q = placeholder("Q", FLOAT32, H, Q, D);
          Tensor kk = placeholder("K", FLOAT32, H, K, D);
          IterVar d = reduceAxis(D, "d");
          Tensor s =
              compute(
                  "Scores",
                  shape(H, Q, K),
                  (h, i, j) -> sum(q.at(h, i, d.var()).mul(kk.at(h, j, d.var())), d).mul(0.125));
          return new NewUserOps.Def(List.of(q, kk), List.of(Topi.softmax(s, 2)));
        });
    // 27. dense conv1d, [B, T, C] layout, 3 taps, same padding
    add(
        ops,
        "conv1d_ntc_k3_4x500x64_96",
        () -> {
          int B = 4, T = 500, CI = 64, CO = 96;
          Tensor x = placeholder("X", FLOAT32, B, T, CI);
          Tensor w = placeholder("W", FLOAT32, 3, CI, CO);
          IterVar k = reduceAxis(3, "k"), c = reduceAxis(CI, "c");
          Tensor y =
              compute(
                  "Conv1dNtc",
                  shape(B, T, CO),
                  (b, t, o) -> {
                    Expr tt = t.add(k.var()).sub(1);
                    return sum(
                        select(all(tt.ge(0), tt.lt(T)), x.at(b, tt, c.var()), 0.0)
                            .mul(w.at(k.var(), c.var(), o)),
                        k,
                        c);
                  });
          return new NewUserOps.Def(List.of(x, w), List.of(y));
        });
    // 28. batched matmul, B has batch 1 (broadcast)
    add(
        ops,
        "bmm_bcast_b1_8x128x200x150",
        () -> {
          Tensor a = placeholder("A", FLOAT32, 8, 128, 200);
          Tensor b = placeholder("B", FLOAT32, 1, 200, 150);
          IterVar k = reduceAxis(200, "k");
          Tensor y =
              compute(
                  "BmmA",
                  shape(8, 128, 150),
                  (bb, i, j) -> sum(a.at(bb, i, k.var()).mul(b.at(0, k.var(), j)), k));
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    return ops;
  }
}
