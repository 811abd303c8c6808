package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.BOOL;
import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.FLOAT64;
import static dev.kernelgen.te.TE.INT32;
import static dev.kernelgen.te.TE.INT64;
import static dev.kernelgen.te.TE.cast;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.exp;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.min;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduce;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.reduceWhere;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Reducer;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Larger operators a new user writes with the DSL, whose extents (up to a few thousand, mostly not
 * multiples of a tile) give cross-thread reductions on the GPUs, vector remainders on C and ragged
 * tiles: big reductions in every dtype, transposes, windows, resampling, matrix-vector products and
 * pairwise distances. Each untuned pick is checked against the oracle on every target: C on the IR
 * interpreter and cc, Java, CUDA and OpenCL on the IR interpreter, CUDA through nvcc to PTX and
 * OpenCL through clang's syntax check; both index widths where dims are symbolic.
 */
@Execution(ExecutionMode.CONCURRENT) // its operators are independent
class NewUserLargerTest extends NewUserSweep {
  static Stream<Op> cases() {
    List<Op> c = new ArrayList<>();
    // int32 min reduction over a big axis (cross-thread on GPU)
    {
      Tensor a = placeholder("A", INT32, 3, 2053);
      IterVar k = reduceAxis(2053, "k");
      c.add(op("min_i32_big", compute("MinI32B", shape(3), i -> min(a.at(i, k.var()).mul(5), k))));
    }
    // int64 sum over a big axis
    {
      Tensor a = placeholder("A", INT64, 2, 4099);
      IterVar k = reduceAxis(4099, "k");
      c.add(
          op(
              "sum_i64_big",
              compute("SumI64B", shape(2), i -> sum(a.at(i, k.var()).mul(3000000000L), k))));
    }
    // float64 max over a big symbolic axis
    {
      Var n = var("n");
      Tensor a = placeholder("A", FLOAT64, 3, n);
      IterVar k = reduceAxis(n, "k");
      c.add(
          new Op(
              "max_f64_big_symbolic",
              List.of(compute("MaxF64", shape(3), i -> max(a.at(i, k.var()).mul(2.0), k))),
              Map.of(n, 3001L)));
    }
    // bool input mask, count per row (int32), big
    {
      Tensor m = placeholder("M", BOOL, 4, 1031);
      IterVar k = reduceAxis(1031, "k");
      c.add(
          op(
              "bool_mask_count",
              compute("Count", shape(4), i -> sum(cast(INT32, m.at(i, k.var())), k))));
    }
    // custom reducer (1+x)(1+y)-1, big axis
    {
      Tensor a = placeholder("A", FLOAT32, 3, 1999);
      IterVar k = reduceAxis(1999, "k");
      Reducer r =
          Reducer.of("prodp1", FLOAT32, (x, y) -> x.add(y).add(x.mul(y)), new FloatImm(FLOAT32, 0));
      c.add(
          op(
              "custom_reducer_big",
              compute("CustomR", shape(3), i -> reduce(r, a.at(i, k.var()).mul(0.001), k))));
    }
    // reduceWhere with a data-dependent where, symbolic
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 4, n);
      Tensor t = placeholder("T", FLOAT32, 4);
      IterVar k = reduceAxis(n, "k");
      c.add(
          new Op(
              "sum_where_above_threshold_symbolic",
              List.of(
                  compute(
                      "AboveT",
                      shape(4),
                      i ->
                          reduceWhere(
                              Reducer.sum(FLOAT32),
                              x.at(i, k.var()),
                              x.at(i, k.var()).gt(t.at(i)),
                              k))),
              Map.of(n, 1025L)));
    }
    // column sum over a big first axis
    {
      Tensor a = placeholder("A", FLOAT32, 1031, 67);
      IterVar r = reduceAxis(1031, "r");
      c.add(op("column_sum_big", compute("ColSum", shape(67), j -> sum(a.at(r.var(), j), r))));
    }
    // big rank-4 transpose (0,2,3,1) ragged
    {
      Tensor x = placeholder("X", FLOAT32, 2, 67, 33, 65);
      c.add(
          op(
              "transpose_big_ragged",
              compute("TBig", shape(2, 33, 65, 67), (b, h, w, ch) -> x.at(b, ch, h, w))));
    }
    // big outer product with bias (C vector remainders)
    {
      Tensor a = placeholder("A", FLOAT32, 131);
      Tensor b = placeholder("B", FLOAT32, 257);
      c.add(
          op(
              "outer_big",
              compute("OuterB", shape(131, 257), (i, j) -> a.at(i).mul(b.at(j)).add(1.0))));
    }
    // hand-written softmax (exp / sum) over big symbolic rows, n = 2049
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 3, n);
      IterVar k = reduceAxis(n, "k");
      IterVar k2 = reduceAxis(n, "k2");
      Tensor mx = compute("SmMax", shape(3), i -> max(x.at(i, k.var()), k));
      Tensor e = compute("SmExp", shape(3, n), (i, j) -> exp(x.at(i, j).sub(mx.at(i))));
      Tensor s = compute("SmSum", shape(3), i -> sum(e.at(i, k2.var()), k2));
      c.add(
          new Op(
              "softmax_hand_big_symbolic",
              List.of(compute("SmOut", shape(3, n), (i, j) -> e.at(i, j).div(s.at(i)))),
              Map.of(n, 2049L)));
    }
    // float64 variance over a big axis, two passes
    {
      Tensor x = placeholder("X", FLOAT64, 2, 3001);
      IterVar k = reduceAxis(3001, "k");
      IterVar k2 = reduceAxis(3001, "k2");
      Tensor mean = compute("MeanD", shape(2), i -> sum(x.at(i, k.var()), k).div(3001.0));
      c.add(
          op(
              "variance_f64_big",
              compute(
                  "VarD",
                  shape(2),
                  i -> {
                    Expr d = x.at(i, k2.var()).sub(mean.at(i));
                    return sum(d.mul(d), k2);
                  })));
    }
    // argmax with int64 output index (position of max), big symbolic
    {
      Var n = var("n");
      Tensor a = placeholder("A", FLOAT32, 4, n);
      IterVar k = reduceAxis(n, "k");
      IterVar q = reduceAxis(n, "q");
      Tensor mx = compute("AMx", shape(4), i -> max(a.at(i, k.var()), k));
      c.add(
          new Op(
              "argmax_i64_big_symbolic",
              List.of(
                  compute(
                      "ArgMax64",
                      shape(4),
                      i ->
                          min(
                              select(
                                  a.at(i, q.var()).eq(mx.at(i)),
                                  cast(INT64, q.var()),
                                  IntImm.of(INT64, Long.MAX_VALUE)),
                              q))),
              Map.of(n, 2049L)));
    }
    // full reduction of a big matrix to one value
    {
      Tensor x = placeholder("X", FLOAT32, 1031, 67);
      IterVar r = reduceAxis(1031, "r");
      IterVar q = reduceAxis(67, "q");
      c.add(
          op(
              "full_reduction_big",
              compute("Full", shape(1), z -> sum(x.at(r.var(), q.var()), r, q))));
    }
    // reduce 3 axes per batch, big
    {
      Tensor x = placeholder("X", FLOAT32, 2, 3, 67, 65);
      IterVar rc = reduceAxis(3, "rc");
      IterVar rh = reduceAxis(67, "rh");
      IterVar rw = reduceAxis(65, "rw");
      c.add(
          op(
              "global_avg_pool_all_channels",
              compute(
                  "GAP",
                  shape(2),
                  b -> sum(x.at(b, rc.var(), rh.var(), rw.var()), rc, rh, rw).div(13065.0))));
    }
    // roll with negative symbolic shift (j - n - 3) mod n, big
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 2, n);
      c.add(
          new Op(
              "roll_negative_big_symbolic",
              List.of(
                  compute("RollN", shape(2, n), (i, j) -> x.at(i, j.sub(n).sub(3).floormod(n)))),
              Map.of(n, 1031L)));
    }
    // float64 accumulation of squares with a float32 output, symbolic extent 1001
    {
      Var n = var("n");
      Tensor a = placeholder("A", FLOAT32, 3, n);
      IterVar k = reduceAxis(n, "k");
      c.add(
          new Op(
              "f64_accumulate_f32_out_symbolic",
              List.of(
                  compute(
                      "AccD",
                      shape(3),
                      i -> {
                        Expr v = cast(FLOAT64, a.at(i, k.var()));
                        return cast(FLOAT32, sum(v.mul(v), k));
                      })),
              Map.of(n, 1001L)));
    }
    // stride-2 window sum without padding (strided copies on C), big ragged
    {
      Tensor x = placeholder("X", FLOAT32, 3, 67, 131);
      IterVar ky = reduceAxis(3, "ky");
      IterVar kx = reduceAxis(3, "kx");
      c.add(
          op(
              "stride2_window_sum_big",
              compute(
                  "S2Win",
                  shape(3, 33, 65),
                  (b, i, j) ->
                      sum(x.at(b, i.mul(2).add(ky.var()), j.mul(2).add(kx.var())), ky, kx))));
    }
    // stride-2 depthwise 1-d conv with weights, reads another input too
    {
      Tensor x = placeholder("X", FLOAT32, 5, 259);
      Tensor w = placeholder("W", FLOAT32, 5, 3);
      IterVar k = reduceAxis(3, "k");
      c.add(
          op(
              "depthwise1d_stride2",
              compute(
                  "Dw1d",
                  shape(5, 129),
                  (ch, t) -> sum(x.at(ch, t.mul(2).add(k.var())).mul(w.at(ch, k.var())), k))));
    }
    // big space-to-depth
    {
      Tensor x = placeholder("X", FLOAT32, 1, 3, 66, 130);
      c.add(
          op(
              "space_to_depth_big",
              compute(
                  "S2DBig",
                  shape(1, 12, 33, 65),
                  (b, ch, i, j) -> {
                    Expr off = ch.floordiv(3);
                    return x.at(
                        b,
                        ch.floormod(3),
                        i.mul(2).add(off.floordiv(2)),
                        j.mul(2).add(off.floormod(2)));
                  })));
    }
    // big bilinear-ish 2x upsample via floordiv and weights
    {
      Tensor x = placeholder("X", FLOAT32, 2, 33, 65);
      c.add(
          op(
              "upsample2x_avg_big",
              compute(
                  "Up2",
                  shape(2, 66, 130),
                  (ch, i, j) ->
                      x.at(ch, i.floordiv(2), j.floordiv(2))
                          .add(x.at(ch, i.floordiv(2), j.add(1).floordiv(2).min(IntImm.of(64))))
                          .mul(0.5))));
    }
    // batched matrix-vector with a transposed read (A^T x) and bias, ragged
    {
      Tensor a = placeholder("A", FLOAT32, 3, 131, 67);
      Tensor x = placeholder("X", FLOAT32, 3, 131);
      Tensor b = placeholder("B", FLOAT32, 67);
      IterVar k = reduceAxis(131, "k");
      c.add(
          op(
              "batched_transposed_matvec",
              compute(
                  "BTMv",
                  shape(3, 67),
                  (n, j) -> sum(a.at(n, k.var(), j).mul(x.at(n, k.var())), k).add(b.at(j)))));
    }
    // pairwise squared distances, symbolic rows
    {
      Var n = var("n");
      Tensor p = placeholder("P", FLOAT32, n, 5);
      Tensor q = placeholder("Q", FLOAT32, 67, 5);
      IterVar d = reduceAxis(5, "d");
      c.add(
          new Op(
              "pairwise_sqdist_symbolic",
              List.of(
                  compute(
                      "Dist",
                      shape(n, 67),
                      (i, j) -> {
                        Expr t = p.at(i, d.var()).sub(q.at(j, d.var()));
                        return sum(t.mul(t), d);
                      })),
              Map.of(n, 131L)));
    }
    // gram matrix of a symbolic reduce axis X X^T (self-read, two layouts)
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 37, n);
      IterVar k = reduceAxis(n, "k");
      c.add(
          new Op(
              "gram_self_symbolic",
              List.of(
                  compute(
                      "Gram",
                      shape(37, 37),
                      (i, j) -> sum(x.at(i, k.var()).mul(x.at(j, k.var())), k))),
              Map.of(n, 131L)));
    }
    return c.stream();
  }
}
