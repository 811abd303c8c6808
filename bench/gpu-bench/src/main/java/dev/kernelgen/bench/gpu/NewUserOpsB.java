package dev.kernelgen.bench.gpu;

import static dev.kernelgen.bench.gpu.NewUserOps.add;
import static dev.kernelgen.bench.gpu.NewUserOps.sig;
import static dev.kernelgen.te.TE.*;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * Operators a new user wrote, none of them in the tests or the floor table before: the C sweep of
 * 2026-12-07 (indexing, integers, layouts, small products, elementwise). {@code FloorBench OUT
 * --set new-user} times each one's untuned pick against its naive loops ({@link NewUserOps}).
 */
final class NewUserOpsB {
  private NewUserOpsB() {}

  static List<FloorBench.Op> operators() {
    List<FloorBench.Op> ops = new ArrayList<>();
    // 17. int32: count of positive entries per row
    add(
        ops,
        "int32_count_positive_2048x1500",
        () -> {
          Tensor x = placeholder("X", INT32, 2048, 1500);
          IterVar k = reduceAxis(1500, "k");
          Tensor y =
              compute(
                  "CountPos",
                  shape(2048),
                  i -> sum(select(x.at(i, k.var()).gt(i32(0)), i32(1), i32(0)), k));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 18. causal depthwise conv1d along time, [B, T, C] (Mamba/Conformer style), kernel 4
    add(
        ops,
        "causal_dwconv1d_btc_8x1000x96_k4",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 8, 1000, 96);
          Tensor w = placeholder("W", FLOAT32, 4, 96);
          IterVar k = reduceAxis(4, "k");
          Tensor y =
              compute(
                  "CausalDw",
                  shape(8, 1000, 96),
                  (b, t, c) -> {
                    Expr tt = t.add(k.var()).sub(3);
                    return sum(select(tt.ge(0), x.at(b, tt, c), 0.0).mul(w.at(k.var(), c)), k);
                  });
          return new NewUserOps.Def(List.of(x, w), List.of(y));
        });
    // 19. horizontal flip NHWC
    add(
        ops,
        "flip_w_nhwc_8x57x57x64",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 8, 57, 57, 64);
          Tensor y =
              compute(
                  "FlipW", shape(8, 57, 57, 64), (n, i, j, c) -> x.at(n, i, j.mul(-1).add(56), c));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 20. circular roll along axis 1
    add(
        ops,
        "roll_axis1_512x1000_s337",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 512, 1000);
          Tensor y =
              compute("Roll", shape(512, 1000), (i, j) -> x.at(i, j.add(337).floormod(1000)));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 21. space-to-depth NHWC, block 2
    add(
        ops,
        "space_to_depth_nhwc_4x56x56x32_b2",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 4, 56, 56, 32);
          Tensor y =
              compute(
                  "S2D",
                  shape(4, 28, 28, 128),
                  (n, i, j, c) -> {
                    Expr blk = c.floordiv(32);
                    return x.at(
                        n,
                        i.mul(2).add(blk.floordiv(2)),
                        j.mul(2).add(blk.floormod(2)),
                        c.floormod(32));
                  });
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 23. symmetric int8 quantize into int32
    add(
        ops,
        "quantize_i8_2048x1000",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 2048, 1000);
          Tensor sc = placeholder("Scale", FLOAT32, 1000);
          Tensor y =
              compute(
                  "Quant",
                  shape(2048, 1000),
                  (i, j) ->
                      cast(
                          INT32,
                          minimum(
                              maximum(floor(x.at(i, j).div(sc.at(j)).add(0.5)), -128.0), 127.0)));
          return new NewUserOps.Def(List.of(x, sc), List.of(y));
        });
    // 24. float64 matmul
    add(
        ops,
        "matmul_f64_200x300x150",
        () -> {
          Tensor a = placeholder("A", FLOAT64, 200, 300);
          Tensor b = placeholder("B", FLOAT64, 300, 150);
          IterVar k = reduceAxis(300, "k");
          Tensor y =
              compute(
                  "MatF64",
                  shape(200, 150),
                  (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    // 25. affine transform of 3-d points by a 3x4 matrix
    add(
        ops,
        "point_affine_200000x3",
        () -> {
          Tensor p = placeholder("P", FLOAT32, 200000, 3);
          Tensor m = placeholder("M", FLOAT32, 3, 4);
          IterVar k = reduceAxis(3, "k");
          Tensor y =
              compute(
                  "Affine",
                  shape(200000, 3),
                  (i, r) -> sum(m.at(r, k.var()).mul(p.at(i, k.var())), k).add(m.at(r, 3)));
          return new NewUserOps.Def(List.of(p, m), List.of(y));
        });
    // 26. triangular matmul (lower-triangular A)
    add(
        ops,
        "trmm_lower_384x384x200",
        () -> {
          Tensor a = placeholder("A", FLOAT32, 384, 384);
          Tensor b = placeholder("B", FLOAT32, 384, 200);
          IterVar k = reduceAxis(384, "k");
          Tensor y =
              compute(
                  "Trmm",
                  shape(384, 200),
                  (i, j) ->
                      sum(select(k.var().le(i), a.at(i, k.var()).mul(b.at(k.var(), j)), 0.0), k));
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    // 27. Kronecker product
    add(
        ops,
        "kron_30x40_20x25",
        () -> {
          Tensor a = placeholder("A", FLOAT32, 30, 40);
          Tensor b = placeholder("B", FLOAT32, 20, 25);
          Tensor y =
              compute(
                  "Kron",
                  shape(600, 1000),
                  (i, j) ->
                      a.at(i.floordiv(20), j.floordiv(25))
                          .mul(b.at(i.floormod(20), j.floormod(25))));
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    // 28. batched trace
    add(
        ops,
        "batched_trace_256x300x300",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 256, 300, 300);
          IterVar k = reduceAxis(300, "k");
          Tensor y = compute("Trace", shape(256), b -> sum(x.at(b, k.var(), k.var()), k));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 29. int32 column max
    add(
        ops,
        "int32_col_max_1500x2049",
        () -> {
          Tensor x = placeholder("X", INT32, 1500, 2049);
          IterVar k = reduceAxis(1500, "k");
          Tensor y = compute("ColMax", shape(2049), j -> max(x.at(k.var(), j), k));
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 30. GRU cell
    add(
        ops,
        "gru_cell_50x200_h160",
        () -> {
          int B = 50, I = 200, Hd = 160, G = 3 * Hd;
          Tensor x = placeholder("X", FLOAT32, B, I);
          Tensor h = placeholder("H", FLOAT32, B, Hd);
          Tensor w = placeholder("W", FLOAT32, I, G);
          Tensor u = placeholder("U", FLOAT32, Hd, G);
          IterVar k = reduceAxis(I, "k");
          Tensor xw =
              compute("XW", shape(B, G), (i, j) -> sum(x.at(i, k.var()).mul(w.at(k.var(), j)), k));
          IterVar k2 = reduceAxis(Hd, "k2");
          Tensor hu =
              compute(
                  "HU", shape(B, G), (i, j) -> sum(h.at(i, k2.var()).mul(u.at(k2.var(), j)), k2));
          Tensor hn =
              compute(
                  "HNew",
                  shape(B, Hd),
                  (i, j) -> {
                    Expr r = sig(xw.at(i, j).add(hu.at(i, j)));
                    Expr z = sig(xw.at(i, j.add(Hd)).add(hu.at(i, j.add(Hd))));
                    Expr n = tanh(xw.at(i, j.add(2 * Hd)).add(r.mul(hu.at(i, j.add(2 * Hd)))));
                    return f32(1.0).sub(z).mul(n).add(z.mul(h.at(i, j)));
                  });
          return new NewUserOps.Def(List.of(x, h, w, u), List.of(hn));
        });
    // 31. tanh-GELU on a ragged 3-d tensor
    add(
        ops,
        "gelu_tanh_7x333x1001",
        () -> {
          Tensor x = placeholder("X", FLOAT32, 7, 333, 1001);
          Tensor y =
              compute(
                  "Gelu",
                  shape(7, 333, 1001),
                  (a, b, c) -> {
                    Expr v = x.at(a, b, c);
                    return v.mul(0.5)
                        .mul(
                            f32(1.0)
                                .add(tanh(v.add(v.mul(v).mul(v).mul(0.044715)).mul(0.7978845608))));
                  });
          return new NewUserOps.Def(List.of(x), List.of(y));
        });
    // 32. complex multiply as [N, 2] (re/im axis explicit)
    add(
        ops,
        "complex_mul_nx2_1000003",
        () -> {
          int N = 1_000_003;
          Tensor a = placeholder("A", FLOAT32, N, 2);
          Tensor b = placeholder("B", FLOAT32, N, 2);
          Tensor y =
              compute(
                  "CMul2",
                  shape(N, 2),
                  (i, c) ->
                      select(
                          c.eq(0),
                          a.at(i, 0).mul(b.at(i, 0)).sub(a.at(i, 1).mul(b.at(i, 1))),
                          a.at(i, 0).mul(b.at(i, 1)).add(a.at(i, 1).mul(b.at(i, 0)))));
          return new NewUserOps.Def(List.of(a, b), List.of(y));
        });
    return ops;
  }
}
