package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.INT32;
import static dev.kernelgen.te.TE.cast;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.computeN;
import static dev.kernelgen.te.TE.exp;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
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
 * Edge forms a new user reaches with the DSL: several outputs (one feeding another), no inputs or
 * no reads, extent-1 and one-element tensors, empty reduction ranges, reduce axes with negative or
 * data-dependent bounds, symbolic shape expressions, non-affine and clamped indices, and many
 * symbolic dims. Each untuned pick is checked against the oracle on every target: C on the IR
 * interpreter and cc, Java, CUDA and OpenCL on the IR interpreter, CUDA through nvcc to PTX and
 * OpenCL through clang's syntax check; both index widths where dims are symbolic.
 */
@Execution(ExecutionMode.CONCURRENT) // its operators are independent
class NewUserEdgesTest extends NewUserSweep {
  static Stream<Op> cases() {
    List<Op> c = new ArrayList<>();
    // extent 1 everywhere: a one-element sum
    {
      Tensor a = placeholder("A", FLOAT32, 1);
      IterVar k = reduceAxis(1, "k");
      c.add(op("tiny_rank1", compute("Tiny", shape(1), i -> sum(a.at(k.var()).mul(2.0), k))));
    }
    // histogram with symbolic bins (data compared with an index)
    {
      Var b = var("b");
      Tensor a = placeholder("A", INT32, 53);
      IterVar k = reduceAxis(53, "k");
      c.add(
          new Op(
              "histogram_symbolic_bins",
              List.of(
                  compute(
                      "HistS", shape(b), i -> sum(select(a.at(k.var()).add(8).eq(i), 1, 0), k))),
              Map.of(b, 17L)));
    }
    // strict-triangle max: empty range on row 0 (-inf)
    {
      Tensor x = placeholder("X", FLOAT32, 2, 11, 11);
      IterVar k = reduceAxis(11, "k");
      c.add(
          op(
              "strict_tril_max_empty_row",
              compute(
                  "StrictMax",
                  shape(2, 11),
                  (b, i) ->
                      max(
                          select(k.var().lt(i), x.at(b, i, k.var()), Double.NEGATIVE_INFINITY),
                          k))));
    }
    // reduction inside a select condition
    {
      Tensor x = placeholder("X", FLOAT32, 7, 13);
      IterVar k = reduceAxis(13, "k");
      c.add(
          op(
              "reduction_in_condition",
              compute(
                  "CondRed",
                  x.shape(),
                  (i, j) ->
                      select(
                          sum(x.at(i, k.var()), k).gt(new FloatImm(FLOAT32, 0)),
                          x.at(i, j),
                          x.at(i, j).mul(-1.0)))));
    }
    // centred rows with symbolic cols bound to 1 (degenerate)
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 5, n);
      IterVar k = reduceAxis(n, "k");
      Tensor mean = compute("M1", shape(5), i -> sum(x.at(i, k.var()), k).div(cast(FLOAT32, n)));
      c.add(
          new Op(
              "center_rows_symbolic_n1",
              List.of(compute("C1", shape(5, n), (i, j) -> x.at(i, j).sub(mean.at(i)))),
              Map.of(n, 1L)));
    }
    // an intermediate that is also an output (mean and centred rows both returned)
    {
      Tensor x = placeholder("X", FLOAT32, 9, 29);
      IterVar k = reduceAxis(29, "k");
      Tensor mean = compute("RMean", shape(9), i -> sum(x.at(i, k.var()), k).div(29.0));
      Tensor cen = compute("RCen", x.shape(), (i, j) -> x.at(i, j).sub(mean.at(i)));
      c.add(new Op("output_feeds_output", List.of(mean, cen), Map.of()));
    }
    // an elementwise intermediate that is also an output, with a reduction consumer, symbolic
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 4, n);
      IterVar k = reduceAxis(n, "k");
      Tensor e = compute("EOut", shape(4, n), (i, j) -> exp(x.at(i, j)));
      Tensor s = compute("ESumOut", shape(4), i -> sum(e.at(i, k.var()), k));
      c.add(new Op("elementwise_and_its_sum_outputs_symbolic", List.of(e, s), Map.of(n, 37L)));
    }
    // no inputs at all: iota
    {
      c.add(
          op(
              "no_inputs_iota",
              compute("IotaOnly", shape(5, 7), (i, j) -> cast(FLOAT32, i.mul(7).add(j)).mul(0.5))));
    }
    // symbolic shape expressions: ceil(n/2) output with a guarded stride-2 read
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 3, n);
      c.add(
          new Op(
              "stride2_pairs_ceil_symbolic",
              List.of(
                  compute(
                      "Pairs",
                      shape(3, n.add(1).floordiv(2)),
                      (i, j) ->
                          x.at(i, j.mul(2))
                              .add(
                                  select(
                                      j.mul(2).add(1).lt(n),
                                      x.at(i, j.mul(2).add(1).min(n.sub(1))),
                                      0.0)))),
              Map.of(n, 37L)));
    }
    // mean over axes 0 and 2 of [n, 5, m], symbolic
    {
      Var n = var("n");
      Var m = var("m");
      Tensor x = placeholder("X", FLOAT32, n, 5, m);
      IterVar r0 = reduceAxis(n, "r0");
      IterVar r2 = reduceAxis(m, "r2");
      c.add(
          new Op(
              "mean_axes_0_2_symbolic",
              List.of(
                  compute(
                      "Mean02",
                      shape(5),
                      j -> sum(x.at(r0.var(), j, r2.var()), r0, r2).div(cast(FLOAT32, n.mul(m))))),
              Map.of(n, 13L, m, 37L)));
    }
    // index with min/max of indices (clamped window read)
    {
      Tensor x = placeholder("X", FLOAT32, 4, 19);
      IterVar k = reduceAxis(5, "k");
      c.add(
          op(
              "clamped_window_sum",
              compute(
                  "ClampWin",
                  x.shape(),
                  (i, j) ->
                      sum(
                          x.at(i, j.add(k.var()).sub(2).max(IntImm.of(0)).min(IntImm.of(18))),
                          k))));
    }
    // non-affine index: x[i, (k * i) mod n], symbolic
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 6, n);
      IterVar k = reduceAxis(n, "k");
      c.add(
          new Op(
              "nonaffine_modular_index_symbolic",
              List.of(
                  compute(
                      "ModIdx", shape(6), i -> sum(x.at(i, k.var().mul(i.add(1)).floormod(n)), k))),
              Map.of(n, 13L)));
    }
    // many symbolic dims, rank 5 broadcast add with reduction over the last
    {
      Var a = var("a");
      Var b = var("b");
      Var d = var("d");
      Var e = var("e");
      Tensor x = placeholder("X", FLOAT32, a, b, 1, d, e);
      Tensor y = placeholder("Y", FLOAT32, b, d);
      IterVar k = reduceAxis(e, "k");
      c.add(
          new Op(
              "rank5_symbolic_reduce_last",
              List.of(
                  computeN(
                      "R5S",
                      shape(a, b, 1, d),
                      ix ->
                          sum(
                              x.at(ix.get(0), ix.get(1), ix.get(2), ix.get(3), k.var())
                                  .mul(y.at(ix.get(1), ix.get(3))),
                              k))),
              Map.of(a, 2L, b, 3L, d, 5L, e, 37L)));
    }
    // row-wise dot of two gathered rows (indices from two int tensors)
    {
      Tensor emb = placeholder("Emb", FLOAT32, 11, 17);
      Tensor u = placeholder("U", INT32, 9);
      Tensor v = placeholder("V", INT32, 9);
      IterVar k = reduceAxis(17, "k");
      c.add(
          op(
              "gathered_pair_dot",
              compute(
                  "PairDot",
                  shape(9),
                  i ->
                      sum(
                          emb.at(u.at(i).add(8).floormod(11), k.var())
                              .mul(emb.at(v.at(i).add(9).floormod(11), k.var())),
                          k))));
    }
    // scatter-free one-hot: out[i, c] = (label[i] mod C == c) as float, symbolic C
    {
      Var nc = var("nc");
      Tensor label = placeholder("Label", INT32, 13);
      c.add(
          new Op(
              "one_hot_symbolic",
              List.of(
                  compute(
                      "OneHot",
                      shape(13, nc),
                      (i, j) -> select(label.at(i).floormod(nc).eq(j), 1.0f, 0.0f))),
              Map.of(nc, 7L)));
    }
    // pure index count: number of k < i (no tensor read in the reduction)
    {
      Tensor x = placeholder("X", FLOAT32, 9);
      IterVar k = reduceAxis(9, "k");
      c.add(
          op(
              "index_only_count",
              compute(
                  "CountLess",
                  shape(9),
                  i -> cast(FLOAT32, sum(select(k.var().lt(i), 1, 0), k)).add(x.at(i)))));
    }
    // constant compute (no reads)
    {
      c.add(
          op("constant_fill", compute("Fill", shape(3, 5), (i, j) -> new FloatImm(FLOAT32, 2.5))));
    }
    // reduce axis with a negative min (window centred), guarded
    {
      Tensor x = placeholder("X", FLOAT32, 3, 23);
      IterVar k = reduceAxis(-2, 5, "k");
      c.add(
          op(
              "negative_min_reduce_axis",
              compute(
                  "CenteredWin",
                  x.shape(),
                  (i, j) -> {
                    Expr at = j.add(k.var());
                    return sum(select(at.ge(0).and(at.lt(23)), x.at(i, at), 0.0), k);
                  })));
    }
    // sum reduction with int32 output over a bool comparison inside, symbolic 2-D
    {
      Var n = var("n");
      Tensor a = placeholder("A", FLOAT32, n, 11);
      Tensor b = placeholder("B", FLOAT32, 11);
      IterVar r = reduceAxis(n, "r");
      c.add(
          new Op(
              "count_greater_columns_symbolic",
              List.of(
                  compute(
                      "CountGt",
                      shape(11),
                      j -> sum(cast(INT32, a.at(r.var(), j).gt(b.at(j))), r))),
              Map.of(n, 37L)));
    }
    // a scalar parameter as a shape-(1) placeholder, read inside a reduction
    {
      Tensor x = placeholder("X", FLOAT32, 4, 9);
      Tensor sc = placeholder("Alpha", FLOAT32, 1);
      IterVar k = reduceAxis(9, "k");
      c.add(
          op(
              "shape1_scale_in_reduction",
              compute("ScaledSum1", shape(4), i -> sum(x.at(i, k.var()).mul(sc.at(0)), k))));
    }
    // guarded shifted read with the guard on the reduce axis only, symbolic (causal conv)
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 2, n);
      Tensor w = placeholder("W", FLOAT32, 4);
      IterVar k = reduceAxis(4, "k");
      c.add(
          new Op(
              "causal_conv1d_symbolic",
              List.of(
                  compute(
                      "Causal",
                      shape(2, n),
                      (b, t) -> {
                        Expr at = t.sub(k.var());
                        return sum(select(at.ge(0), x.at(b, at), 0.0).mul(w.at(k.var())), k);
                      })),
              Map.of(n, 37L)));
    }
    return c.stream();
  }
}
