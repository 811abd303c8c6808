package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.FLOAT64;
import static dev.kernelgen.te.TE.INT32;
import static dev.kernelgen.te.TE.INT64;
import static dev.kernelgen.te.TE.abs;
import static dev.kernelgen.te.TE.cast;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.exp;
import static dev.kernelgen.te.TE.log;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sqrt;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The twenty-sixth session's new-user sweep ({@code bench/.../NewUserOpsE}, timed there at constant
 * shapes) written again with symbolic dims where a user would leave them open: batch, plane,
 * sequence and reduction lengths, each bound to a ragged value for the check.
 */
@Execution(ExecutionMode.CONCURRENT) // its operators are independent
class NewUserSymbolicTest extends NewUserSweep {
  static Stream<Op> cases() {
    List<Op> c = new ArrayList<>();
    // a 3x3 convolution of dilation 2 over a symbolic plane, padded by a select
    {
      Var h = var("h");
      Var w = var("w");
      Tensor x = placeholder("X", FLOAT32, 1, 4, h, w);
      Tensor f = placeholder("W", FLOAT32, 5, 4, 3, 3);
      IterVar ci = reduceAxis(4, "c");
      IterVar ky = reduceAxis(3, "ky");
      IterVar kx = reduceAxis(3, "kx");
      Tensor y =
          compute(
              "DilConvS",
              shape(1, 5, h, w),
              (n, o, i, j) -> {
                Expr hh = i.add(ky.var().mul(2)).sub(2);
                Expr ww = j.add(kx.var().mul(2)).sub(2);
                Expr inside = hh.ge(0).and(hh.lt(h)).and(ww.ge(0)).and(ww.lt(w));
                return sum(
                    select(inside, x.at(n, ci.var(), hh, ww), 0.0)
                        .mul(f.at(o, ci.var(), ky.var(), kx.var())),
                    ci,
                    ky,
                    kx);
              });
      c.add(new Op("dilated_conv_symbolic_plane", List.of(y), Map.of(h, 13L, w, 11L)));
    }
    // linear attention's K^T V over a symbolic sequence length
    {
      Var n = var("n");
      Tensor k = placeholder("K", FLOAT32, 2, n, 8);
      Tensor v = placeholder("V", FLOAT32, 2, n, 6);
      IterVar t = reduceAxis(n, "t");
      Tensor y =
          compute(
              "KVS",
              shape(2, 8, 6),
              (b, d, e) -> sum(k.at(b, t.var(), d).mul(v.at(b, t.var(), e)), t));
      c.add(new Op("linear_attn_kv_symbolic_length", List.of(y), Map.of(n, 37L)));
    }
    // rows scaled to unit L2 norm, rows and columns symbolic
    {
      Var r = var("r");
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, r, n);
      IterVar j = reduceAxis(n, "j");
      Tensor ss = compute("SumSqS", shape(r), i -> sum(x.at(i, j.var()).mul(x.at(i, j.var())), j));
      Tensor y = compute("L2S", shape(r, n), (i, k) -> x.at(i, k).div(sqrt(ss.at(i).add(1e-6))));
      c.add(new Op("l2_normalize_symbolic", List.of(y), Map.of(r, 9L, n, 33L)));
    }
    // batch norm's channel mean over a symbolic batch and plane
    {
      Var b = var("b");
      Var h = var("h");
      Var w = var("w");
      Tensor x = placeholder("X", FLOAT32, b, 6, h, w);
      IterVar rn = reduceAxis(b, "rn");
      IterVar rh = reduceAxis(h, "rh");
      IterVar rw = reduceAxis(w, "rw");
      Tensor y =
          compute(
              "ChanMeanS",
              shape(6),
              ch ->
                  sum(x.at(rn.var(), ch, rh.var(), rw.var()), rn, rh, rw)
                      .div(cast(FLOAT32, b.mul(h).mul(w))));
      c.add(new Op("bn_channel_mean_symbolic", List.of(y), Map.of(b, 3L, h, 5L, w, 7L)));
    }
    // a square matrix plus its transpose, its side symbolic
    {
      Var n = var("n");
      Tensor a = placeholder("A", FLOAT32, n, n);
      Tensor y = compute("SymS", shape(n, n), (i, j) -> a.at(i, j).add(a.at(j, i)));
      c.add(new Op("sym_add_transpose_symbolic", List.of(y), Map.of(n, 19L)));
    }
    // int64 row sums over a symbolic length
    {
      Var n = var("n");
      Tensor x = placeholder("X", INT64, 7, n);
      IterVar j = reduceAxis(n, "j");
      Tensor y = compute("RowSum64S", shape(7), i -> sum(x.at(i, j.var()), j));
      c.add(new Op("int64_row_sum_symbolic", List.of(y), Map.of(n, 301L)));
    }
    // a histogram of a symbolic number of labels into 10 classes
    {
      Var m = var("m");
      Tensor labels = placeholder("Labels", INT32, m);
      IterVar i = reduceAxis(m, "i");
      Tensor y =
          compute(
              "HistLS",
              shape(10),
              k -> sum(select(labels.at(i.var()).floormod(10).eq(k), 1, 0), i));
      c.add(new Op("label_histogram_symbolic", List.of(y), Map.of(m, 301L)));
    }
    // nearest upsampling by 3 of a symbolic plane
    {
      Var h = var("h");
      Var w = var("w");
      Tensor x = placeholder("X", FLOAT32, 2, 3, h, w);
      Tensor y =
          compute(
              "Up3S",
              shape(2, 3, h.mul(3), w.mul(3)),
              (n, ch, i, j) -> x.at(n, ch, i.floordiv(3), j.floordiv(3)));
      c.add(new Op("upsample_nearest3_symbolic", List.of(y), Map.of(h, 5L, w, 7L)));
    }
    // a float64 softmax over symbolic rows, softplus of its input beside
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT64, 5, n);
      IterVar j = reduceAxis(n, "j");
      IterVar j2 = reduceAxis(n, "j2");
      Tensor mx = compute("RowMaxS", shape(5), i -> max(x.at(i, j.var()), j));
      Tensor e = compute("ExpS", shape(5, n), (i, k) -> exp(x.at(i, k).sub(mx.at(i))));
      Tensor s = compute("ExpSumS", shape(5), i -> sum(e.at(i, j2.var()), j2));
      Tensor y = compute("SoftmaxF64S", shape(5, n), (i, k) -> e.at(i, k).div(s.at(i)));
      Tensor sp = compute("SoftplusS", shape(5, n), (i, k) -> log(exp(x.at(i, k)).add(1.0)));
      c.add(new Op("softmax_f64_and_softplus_symbolic", List.of(y, sp), Map.of(n, 41L)));
    }
    // a mean absolute error to one scalar over a symbolic matrix
    {
      Var r = var("r");
      Var n = var("n");
      Tensor a = placeholder("Pred", FLOAT32, r, n);
      Tensor b = placeholder("Target", FLOAT32, r, n);
      IterVar i = reduceAxis(r, "i");
      IterVar j = reduceAxis(n, "j");
      Tensor y =
          compute(
              "MaeS",
              shape(1),
              z ->
                  sum(abs(a.at(i.var(), j.var()).sub(b.at(i.var(), j.var()))), i, j)
                      .div(cast(FLOAT32, r.mul(n))));
      c.add(new Op("mae_loss_symbolic", List.of(y), Map.of(r, 11L, n, 29L)));
    }
    // two chained products, the first's reduction symbolic
    {
      Var k = var("k");
      Tensor a = placeholder("A", FLOAT32, 9, k);
      Tensor b = placeholder("B", FLOAT32, k, 7);
      Tensor cc = placeholder("C", FLOAT32, 7, 11);
      IterVar rk = reduceAxis(k, "rk");
      IterVar rl = reduceAxis(7, "rl");
      Tensor ab =
          compute("ABS", shape(9, 7), (i, j) -> sum(a.at(i, rk.var()).mul(b.at(rk.var(), j)), rk));
      Tensor y =
          compute(
              "ABCS", shape(9, 11), (i, j) -> sum(ab.at(i, rl.var()).mul(cc.at(rl.var(), j)), rl));
      c.add(new Op("chained_matmul_symbolic_inner", List.of(y), Map.of(k, 21L)));
    }
    // attention scores bhqd,bhkd->bhqk, both lengths symbolic
    {
      Var q = var("q");
      Var kl = var("kl");
      Tensor qt = placeholder("Q", FLOAT32, 2, 3, q, 8);
      Tensor kt = placeholder("K", FLOAT32, 2, 3, kl, 8);
      IterVar d = reduceAxis(8, "d");
      Tensor y =
          compute(
              "QKS",
              shape(2, 3, q, kl),
              (b, h, i, j) ->
                  sum(qt.at(b, h, i, d.var()).mul(kt.at(b, h, j, d.var())), d).mul(0.125));
      c.add(new Op("einsum_qk_symbolic_lengths", List.of(y), Map.of(q, 13L, kl, 17L)));
    }
    // a grouped 3x3 convolution (2 groups), valid padding, its batch symbolic
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, n, 4, 9, 8);
      Tensor w = placeholder("W", FLOAT32, 6, 2, 3, 3);
      IterVar ci = reduceAxis(2, "c");
      IterVar ky = reduceAxis(3, "ky");
      IterVar kx = reduceAxis(3, "kx");
      Tensor y =
          compute(
              "GConvS",
              shape(n, 6, 7, 6),
              (b, o, i, j) ->
                  sum(
                      x.at(b, o.floordiv(3).mul(2).add(ci.var()), i.add(ky.var()), j.add(kx.var()))
                          .mul(w.at(o, ci.var(), ky.var(), kx.var())),
                      ci,
                      ky,
                      kx));
      c.add(new Op("grouped_conv_symbolic_batch", List.of(y), Map.of(n, 3L)));
    }
    return c.stream();
  }
}
