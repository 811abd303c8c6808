package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.BOOL;
import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.FLOAT64;
import static dev.kernelgen.te.TE.INT32;
import static dev.kernelgen.te.TE.INT64;
import static dev.kernelgen.te.TE.abs;
import static dev.kernelgen.te.TE.cast;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.exp;
import static dev.kernelgen.te.TE.floor;
import static dev.kernelgen.te.TE.log;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.min;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduce;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.reduceWhere;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sqrt;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.te.Expr;
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
 * Reductions as a new user writes them with the DSL: min, max, sum, product and custom reducers
 * over one axis or several, conditional ({@code reduceWhere}) and chained reductions, arg-min and
 * arg-max, statistics (variance, layer norm, logsumexp) and mixed-precision accumulation. Each
 * untuned pick is checked against the oracle on every target: C on the IR interpreter and cc, Java,
 * CUDA and OpenCL on the IR interpreter, CUDA through nvcc to PTX and OpenCL through clang's syntax
 * check; both index widths where dims are symbolic.
 */
@Execution(ExecutionMode.CONCURRENT) // its operators are independent
class NewUserReductionsTest extends NewUserSweep {
  static Stream<Op> cases() {
    List<Op> c = new ArrayList<>();
    // row min
    {
      Tensor a = placeholder("A", FLOAT32, 11, 29);
      IterVar k = reduceAxis(29, "k");
      c.add(op("row_min", compute("RowMin", shape(11), i -> min(a.at(i, k.var()), k))));
    }
    // sum of logs (log of a product)
    {
      Tensor a = placeholder("A", FLOAT32, 7, 31);
      IterVar k = reduceAxis(31, "k");
      c.add(
          op(
              "sum_of_logs",
              compute("LogProd", shape(7), i -> sum(log(abs(a.at(i, k.var())).add(0.5)), k))));
    }
    // argmin over columns (axis 0), symbolic rows
    {
      Var n = var("n");
      Tensor a = placeholder("A", FLOAT32, n, 9);
      IterVar r = reduceAxis(n, "r");
      IterVar q = reduceAxis(n, "q");
      Tensor colMin = compute("ColMin", shape(9), j -> min(a.at(r.var(), j), r));
      Tensor arg =
          compute(
              "ArgMinCol",
              shape(9),
              j -> min(select(a.at(q.var(), j).eq(colMin.at(j)), q.var(), n), q));
      c.add(new Op("argmin_columns_symbolic", List.of(arg), Map.of(n, 37L)));
    }
    // mean over two non-adjacent axes
    {
      Tensor x = placeholder("X", FLOAT32, 3, 5, 4, 7);
      IterVar a1 = reduceAxis(5, "a1");
      IterVar a3 = reduceAxis(7, "a3");
      c.add(
          op(
              "mean_axes_1_3",
              compute(
                  "Mean13",
                  shape(3, 4),
                  (i, j) -> sum(x.at(i, a1.var(), j, a3.var()), a1, a3).div(35.0))));
    }
    // variance, two passes (mean, then mean of squared deviations)
    {
      Tensor x = placeholder("X", FLOAT32, 6, 53);
      IterVar k = reduceAxis(53, "k");
      IterVar k2 = reduceAxis(53, "k2");
      Tensor mean = compute("Mean", shape(6), i -> sum(x.at(i, k.var()), k).div(53.0));
      Tensor var =
          compute(
              "Var",
              shape(6),
              i -> {
                Expr d = x.at(i, k2.var()).sub(mean.at(i));
                return sum(d.mul(d), k2).div(53.0);
              });
      c.add(op("variance_two_pass", var));
    }
    // variance as E[x^2] - E[x]^2 inline, symbolic cols
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 5, n);
      IterVar k = reduceAxis(n, "k");
      IterVar k2 = reduceAxis(n, "k2");
      Tensor v =
          compute(
              "VarInline",
              shape(5),
              i -> {
                Expr nf = cast(FLOAT32, n);
                Expr m = sum(x.at(i, k.var()), k).div(nf);
                Expr sq = sum(x.at(i, k2.var()).mul(x.at(i, k2.var())), k2).div(nf);
                return sq.sub(m.mul(m));
              });
      c.add(new Op("variance_inline_symbolic", List.of(v), Map.of(n, 13L)));
    }
    // layer norm with gamma/beta, symbolic cols
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 4, n);
      Tensor g = placeholder("G", FLOAT32, n);
      Tensor b = placeholder("B", FLOAT32, n);
      IterVar k = reduceAxis(n, "k");
      IterVar k2 = reduceAxis(n, "k2");
      Tensor mean =
          compute("LnMean", shape(4), i -> sum(x.at(i, k.var()), k).div(cast(FLOAT32, n)));
      Tensor var =
          compute(
              "LnVar",
              shape(4),
              i -> {
                Expr d = x.at(i, k2.var()).sub(mean.at(i));
                return sum(d.mul(d), k2).div(cast(FLOAT32, n));
              });
      Tensor y =
          compute(
              "LayerNorm",
              shape(4, n),
              (i, j) ->
                  x.at(i, j)
                      .sub(mean.at(i))
                      .div(sqrt(var.at(i).add(1e-5)))
                      .mul(g.at(j))
                      .add(b.at(j)));
      c.add(new Op("layer_norm_symbolic", List.of(y), Map.of(n, 37L)));
    }
    // max over a symbolic axis, symbolic rows too
    {
      Var n = var("n");
      Var m = var("m");
      Tensor a = placeholder("A", FLOAT32, n, m);
      IterVar k = reduceAxis(m, "k");
      c.add(
          new Op(
              "row_max_symbolic_both",
              List.of(compute("RowMaxNM", shape(n), i -> max(a.at(i, k.var()), k))),
              Map.of(n, 13L, m, 37L)));
    }
    // lower-triangular matvec with reduceWhere j <= i
    {
      Tensor a = placeholder("A", FLOAT32, 17, 17);
      Tensor x = placeholder("X", FLOAT32, 17);
      IterVar j = reduceAxis(17, "j");
      c.add(
          op(
              "tril_matvec_where",
              compute(
                  "TrilMv",
                  shape(17),
                  i ->
                      reduceWhere(
                          Reducer.sum(FLOAT32),
                          a.at(i, j.var()).mul(x.at(j.var())),
                          j.var().le(i),
                          j))));
    }
    // prefix sum, symbolic length, reduceWhere
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 3, n);
      IterVar k = reduceAxis(n, "k");
      c.add(
          new Op(
              "cumsum_symbolic",
              List.of(
                  compute(
                      "Cumsum",
                      shape(3, n),
                      (i, j) ->
                          reduceWhere(Reducer.sum(FLOAT32), x.at(i, k.var()), k.var().le(j), k))),
              Map.of(n, 37L)));
    }
    // int64 sum of int32 data
    {
      Tensor a = placeholder("A", INT32, 5, 19);
      IterVar k = reduceAxis(19, "k");
      c.add(
          op(
              "sum_i32_to_i64",
              compute(
                  "SumI64",
                  shape(5),
                  i -> sum(cast(INT64, a.at(i, k.var())).mul(1000000007L), k))));
    }
    // float64 accumulation of float32
    {
      Tensor a = placeholder("A", FLOAT32, 9, 23);
      IterVar k = reduceAxis(23, "k");
      c.add(
          op(
              "sum_f32_to_f64",
              compute("SumF64", shape(9), i -> sum(cast(FLOAT64, a.at(i, k.var())), k))));
    }
    // int32 count of floored values
    {
      Tensor a = placeholder("A", FLOAT32, 8, 21);
      IterVar k = reduceAxis(21, "k");
      c.add(
          op(
              "floor_to_i32_sum",
              compute(
                  "FloorSum",
                  shape(8),
                  i -> sum(cast(INT32, floor(a.at(i, k.var()).mul(10.0))), k))));
    }
    // product reducer
    {
      Tensor a = placeholder("A", FLOAT32, 6, 13);
      IterVar k = reduceAxis(13, "k");
      c.add(
          op(
              "prod_reducer",
              compute(
                  "Prod",
                  shape(6),
                  i -> reduce(Reducer.prod(FLOAT32), a.at(i, k.var()).mul(0.5).add(1.0), k))));
    }
    // histogram (count equal), int32 output
    {
      Tensor a = placeholder("A", INT32, 41);
      IterVar k = reduceAxis(41, "k");
      c.add(
          op(
              "histogram_i32",
              compute("Hist", shape(17), b -> sum(select(a.at(k.var()).add(8).eq(b), 1, 0), k))));
    }
    // a reduction of a reduction: max over rows of row sums (a one-element output)
    {
      Tensor a = placeholder("A", FLOAT32, 19, 11);
      IterVar k = reduceAxis(11, "k");
      IterVar r = reduceAxis(19, "r");
      Tensor rs = compute("RowSums", shape(19), i -> sum(a.at(i, k.var()), k));
      c.add(op("max_of_row_sums", compute("MaxRowSum", shape(1), z -> max(rs.at(r.var()), r))));
    }
    // logsumexp rows, symbolic
    {
      Var n = var("n");
      Tensor a = placeholder("A", FLOAT32, 7, n);
      IterVar k = reduceAxis(n, "k");
      IterVar k2 = reduceAxis(n, "k2");
      Tensor mx = compute("LseMax", shape(7), i -> max(a.at(i, k.var()), k));
      Tensor lse =
          compute(
              "Lse",
              shape(7),
              i -> log(sum(exp(a.at(i, k2.var()).sub(mx.at(i))), k2)).add(mx.at(i)));
      c.add(new Op("logsumexp_symbolic", List.of(lse), Map.of(n, 37L)));
    }
    // trace per batch (diagonal sum)
    {
      Tensor a = placeholder("A", FLOAT32, 4, 13, 13);
      IterVar k = reduceAxis(13, "k");
      c.add(op("batch_trace", compute("Trace", shape(4), b -> sum(a.at(b, k.var(), k.var()), k))));
    }
    // rank-5 reduce over middle axes with extent-1 dims
    {
      Tensor a = placeholder("A", FLOAT32, 2, 1, 3, 1, 5);
      IterVar r1 = reduceAxis(1, "r1");
      IterVar r2 = reduceAxis(3, "r2");
      c.add(
          op(
              "rank5_reduce_unit",
              compute(
                  "R5",
                  shape(2, 1, 5),
                  (i, j, l) -> sum(a.at(i, r1.var(), r2.var(), j, l), r1, r2))));
    }
    // reduce axis with nonzero min, symbolic
    {
      Var n = var("n");
      Tensor a = placeholder("A", FLOAT32, 6, n);
      IterVar k = reduceAxis(2, n.sub(3), "k");
      c.add(
          new Op(
              "sum_offset_axis_symbolic",
              List.of(compute("SumOff", shape(6), i -> sum(a.at(i, k.var()), k))),
              Map.of(n, 13L)));
    }
    // min over int64 data along the middle axis
    {
      Tensor a = placeholder("A", INT64, 3, 7, 5);
      IterVar k = reduceAxis(7, "k");
      c.add(
          op(
              "min_i64_middle_axis",
              compute("MinI64", shape(3, 5), (i, j) -> min(a.at(i, k.var(), j).mul(-3L), k))));
    }
    // L1 normalised columns, symbolic rows
    {
      Var n = var("n");
      Tensor a = placeholder("A", FLOAT32, n, 6);
      IterVar r = reduceAxis(n, "r");
      Tensor l1 = compute("L1", shape(6), j -> sum(abs(a.at(r.var(), j)), r));
      c.add(
          new Op(
              "l1_normalize_columns_symbolic",
              List.of(compute("L1Norm", shape(n, 6), (i, j) -> a.at(i, j).div(l1.at(j).add(1e-3)))),
              Map.of(n, 23L)));
    }
    // int64 max reduction (identity Long.MIN_VALUE)
    {
      Tensor a = placeholder("A", INT64, 5, 29);
      IterVar k = reduceAxis(29, "k");
      c.add(op("max_i64", compute("MaxI64", shape(5), i -> max(a.at(i, k.var()), k))));
    }
    // any/all over bool via max/min reducers
    {
      Tensor m = placeholder("M", BOOL, 6, 11);
      IterVar k = reduceAxis(11, "k");
      IterVar k2 = reduceAxis(11, "k2");
      Tensor any = compute("AnyB", shape(6), i -> max(cast(INT32, m.at(i, k.var())), k).gt(0));
      Tensor all = compute("AllB", shape(6), i -> min(cast(INT32, m.at(i, k2.var())), k2).eq(1));
      c.add(new Op("bool_any_all", List.of(any, all), Map.of()));
    }
    // the same reduce axis in two reductions of one compute
    {
      Tensor x = placeholder("X", FLOAT32, 6, 23);
      IterVar k = reduceAxis(23, "k");
      c.add(
          op(
              "same_axis_two_reductions",
              compute(
                  "SumPlusMax",
                  shape(6),
                  i -> sum(x.at(i, k.var()), k).add(max(x.at(i, k.var()), k)))));
    }
    // three chained reductions: row sums -> column max over groups -> total
    {
      Tensor x = placeholder("X", FLOAT32, 6, 7, 11);
      IterVar k = reduceAxis(11, "k");
      IterVar r = reduceAxis(6, "r");
      IterVar q = reduceAxis(7, "q");
      Tensor rs = compute("RS3", shape(6, 7), (a, b) -> sum(x.at(a, b, k.var()), k));
      Tensor cm = compute("CM3", shape(7), b -> max(rs.at(r.var(), b), r));
      c.add(op("three_chained_reductions", compute("Tot3", shape(1), z -> sum(cm.at(q.var()), q))));
    }
    // global mean subtracted (a full reduction inside an expression)
    {
      Tensor x = placeholder("X", FLOAT32, 5, 9);
      IterVar a = reduceAxis(5, "a");
      IterVar b = reduceAxis(9, "b");
      c.add(
          op(
              "global_center",
              compute(
                  "GCenter",
                  x.shape(),
                  (i, j) -> x.at(i, j).sub(sum(x.at(a.var(), b.var()), a, b).mul(1.0 / 45)))));
    }
    return c.stream();
  }
}
