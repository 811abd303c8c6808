package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.BOOL;
import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.FLOAT64;
import static dev.kernelgen.te.TE.INT32;
import static dev.kernelgen.te.TE.INT64;
import static dev.kernelgen.te.TE.abs;
import static dev.kernelgen.te.TE.cast;
import static dev.kernelgen.te.TE.ceil;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.exp;
import static dev.kernelgen.te.TE.floor;
import static dev.kernelgen.te.TE.log;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.maximum;
import static dev.kernelgen.te.TE.minimum;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.pow;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.reduceWhere;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sqrt;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.tanh;
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
 * Chains of elementwise work around reductions, and elementwise arithmetic in every dtype, as a new
 * user writes them with the DSL: activations and epilogues, intermediates read in two layouts or as
 * a stencil, integer floor division and modulo (by constants, symbolic dims and data), casts,
 * comparisons, bool logic and float64 intrinsics. Each untuned pick is checked against the oracle
 * on every target: C on the IR interpreter and cc, Java, CUDA and OpenCL on the IR interpreter,
 * CUDA through nvcc to PTX and OpenCL through clang's syntax check; both index widths where dims
 * are symbolic.
 */
@Execution(ExecutionMode.CONCURRENT) // its operators are independent
class NewUserFusedTest extends NewUserSweep {
  static Stream<Op> cases() {
    List<Op> c = new ArrayList<>();
    // relu * w summed, bias, tanh
    {
      Tensor x = placeholder("X", FLOAT32, 6, 29);
      Tensor w = placeholder("W", FLOAT32, 29);
      Tensor bias = placeholder("Bias", FLOAT32, 6);
      IterVar k = reduceAxis(29, "k");
      Tensor relu = compute("Relu", x.shape(), (i, j) -> maximum(x.at(i, j), 0.0f));
      Tensor s = compute("Dot", shape(6), i -> sum(relu.at(i, k.var()).mul(w.at(k.var())), k));
      c.add(op("relu_dot_bias_tanh", compute("Epi", shape(6), i -> tanh(s.at(i).add(bias.at(i))))));
    }
    // two reduction outputs from one producer
    {
      Tensor x = placeholder("X", FLOAT32, 9, 17);
      IterVar k = reduceAxis(17, "k");
      IterVar k2 = reduceAxis(17, "k2");
      Tensor e = compute("ExpP", x.shape(), (i, j) -> exp(x.at(i, j)));
      Tensor s = compute("ESum", shape(9), i -> sum(e.at(i, k.var()), k));
      Tensor m = compute("EMax", shape(9), i -> max(e.at(i, k2.var()), k2));
      c.add(new Op("two_reductions_one_producer", List.of(s, m), Map.of()));
    }
    // reduction with an epilogue reading another input, broadcast
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 5, n);
      Tensor y = placeholder("Y", FLOAT32, 5, 11);
      IterVar k = reduceAxis(n, "k");
      Tensor s = compute("SumX", shape(5), i -> sum(x.at(i, k.var()), k));
      c.add(
          new Op(
              "reduce_times_other_symbolic",
              List.of(compute("Scaled", shape(5, 11), (i, j) -> y.at(i, j).mul(s.at(i)))),
              Map.of(n, 37L)));
    }
    // clamp + sigmoid
    {
      Tensor x = placeholder("X", FLOAT32, 7, 19);
      c.add(
          op(
              "clamp_sigmoid",
              compute(
                  "ClampSig",
                  x.shape(),
                  (i, j) -> sigmoid(minimum(maximum(x.at(i, j).mul(3.0), -0.5f), 0.5f)))));
    }
    // integer floordiv / floormod with negative values and negative divisor
    {
      Tensor a = placeholder("A", INT32, 4, 15);
      c.add(
          op(
              "int_floordivmod_negative",
              compute(
                  "IntDM",
                  a.shape(),
                  (i, j) ->
                      a.at(i, j)
                          .floordiv(3)
                          .add(a.at(i, j).floormod(-4))
                          .add(a.at(i, j).sub(j).floordiv(-5).mul(7)))));
    }
    // integer floormod and floordiv of data by symbolic divisors
    {
      Var n = var("n");
      Tensor a = placeholder("A", INT32, n, 6);
      c.add(
          new Op(
              "int_floormod_symbolic",
              List.of(
                  compute(
                      "IntModS",
                      a.shape(),
                      (i, j) -> a.at(i, j).mul(i).floormod(n).add(a.at(i, j).floordiv(n.sub(10))))),
              Map.of(n, 13L)));
    }
    // comparisons producing selects (int)
    {
      Tensor a = placeholder("A", INT32, 6, 7);
      Tensor b = placeholder("B", INT32, 6, 7);
      c.add(
          op(
              "int_compare_select",
              compute(
                  "Cmp",
                  a.shape(),
                  (i, j) ->
                      select(
                          a.at(i, j).gt(b.at(i, j)).or(a.at(i, j).eq(0)),
                          a.at(i, j).mul(2),
                          b.at(i, j).sub(a.at(i, j))))));
    }
    // cast chain f64 -> f32 -> i64 -> f64
    {
      Tensor a = placeholder("A", FLOAT64, 5, 9);
      c.add(
          op(
              "cast_chain",
              compute(
                  "CastChain",
                  a.shape(),
                  (i, j) ->
                      cast(FLOAT64, cast(INT64, cast(FLOAT32, a.at(i, j).mul(100.0))))
                          .add(a.at(i, j)))));
    }
    // softplus with pow epilogue
    {
      Tensor a = placeholder("A", FLOAT32, 3, 47);
      c.add(
          op(
              "softplus_pow",
              compute(
                  "Softplus",
                  a.shape(),
                  (i, j) -> pow(log(exp(a.at(i, j)).add(1.0)), new FloatImm(FLOAT32, 1.5)))));
    }
    // valid 1d correlation, symbolic length
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 2, n);
      Tensor w = placeholder("W", FLOAT32, 5);
      IterVar k = reduceAxis(5, "k");
      c.add(
          new Op(
              "correlate1d_valid_symbolic",
              List.of(
                  compute(
                      "Corr",
                      shape(2, n.sub(4)),
                      (b, t) -> sum(x.at(b, t.add(k.var())).mul(w.at(k.var())), k))),
              Map.of(n, 37L)));
    }
    // two-pass normalisation: x / max|x| per row then minus row mean of that
    {
      Tensor x = placeholder("X", FLOAT32, 8, 27);
      IterVar k = reduceAxis(27, "k");
      IterVar k2 = reduceAxis(27, "k2");
      Tensor amax = compute("AbsMax", shape(8), i -> max(abs(x.at(i, k.var())), k));
      Tensor scaled = compute("Scaled", x.shape(), (i, j) -> x.at(i, j).div(amax.at(i)));
      Tensor mean = compute("SMean", shape(8), i -> sum(scaled.at(i, k2.var()), k2).div(27.0));
      c.add(
          op(
              "two_pass_normalize",
              compute("Centered2", x.shape(), (i, j) -> scaled.at(i, j).sub(mean.at(i)))));
    }
    // masked mean over a triangle, symbolic (reduceWhere j<=i), divided by count
    {
      Var n = var("n");
      Tensor a = placeholder("A", FLOAT32, 2, n, n);
      IterVar j = reduceAxis(n, "j");
      c.add(
          new Op(
              "tril_row_mean_symbolic",
              List.of(
                  compute(
                      "TrilMean",
                      shape(2, n),
                      (b, i) ->
                          reduceWhere(Reducer.sum(FLOAT32), a.at(b, i, j.var()), j.var().le(i), j)
                              .div(cast(FLOAT32, i.add(1))))),
              Map.of(n, 13L)));
    }
    // int64 elementwise min/max with broadcast
    {
      Tensor a = placeholder("A", INT64, 4, 6);
      Tensor b = placeholder("B", INT64, 6);
      c.add(
          op(
              "i64_minmax_broadcast",
              compute(
                  "MinMax64",
                  a.shape(),
                  (i, j) -> minimum(a.at(i, j), b.at(j)).mul(maximum(a.at(i, j), 2L)))));
    }
    // sum over a gathered index (embedding bag)
    {
      Tensor table = placeholder("Table", FLOAT32, 10, 6);
      Tensor idx = placeholder("Idx", INT32, 4, 5);
      IterVar k = reduceAxis(5, "k");
      c.add(
          op(
              "embedding_bag",
              compute(
                  "Bag",
                  shape(4, 6),
                  (b, j) -> sum(table.at(idx.at(b, k.var()).add(8).floormod(10), j), k))));
    }
    // iota-like float from symbolic indices
    {
      Var n = var("n");
      Tensor a = placeholder("A", FLOAT32, 3, n);
      c.add(
          new Op(
              "index_as_float_symbolic",
              List.of(
                  compute(
                      "Iota",
                      shape(3, n),
                      (i, j) -> cast(FLOAT32, i.mul(n).add(j)).mul(0.01).add(a.at(i, j)))),
              Map.of(n, 37L)));
    }
    // int32 output of index arithmetic with symbolic dims (store of index into int32)
    {
      Var n = var("n");
      Tensor a = placeholder("A", INT32, 4, n);
      c.add(
          new Op(
              "index_store_i32_symbolic",
              List.of(
                  compute(
                      "IdxStore", shape(4, n), (i, j) -> select(a.at(i, j).gt(0), j, a.at(i, j)))),
              Map.of(n, 13L)));
    }
    // bool output of a comparison
    {
      Tensor a = placeholder("A", FLOAT32, 7, 9);
      Tensor b = placeholder("B", FLOAT32, 9);
      c.add(op("bool_compare_out", compute("Gt", a.shape(), (i, j) -> a.at(i, j).gt(b.at(j)))));
    }
    // symmetric part x + x^T (two layouts of one input), ragged
    {
      Tensor x = placeholder("X", FLOAT32, 67, 67);
      c.add(
          op(
              "symmetric_part",
              compute("Sym", x.shape(), (i, j) -> x.at(i, j).add(x.at(j, i)).mul(0.5))));
    }
    // 3-point stencil over an exp intermediate
    {
      Tensor x = placeholder("X", FLOAT32, 5, 41);
      Tensor e = compute("EStencil", x.shape(), (i, j) -> exp(x.at(i, j)));
      c.add(
          op(
              "stencil_over_intermediate",
              compute(
                  "Blur",
                  shape(5, 39),
                  (i, j) -> e.at(i, j).add(e.at(i, j.add(1))).add(e.at(i, j.add(2))).div(3.0))));
    }
    // bool ops: not, select of bools, cast bool to float
    {
      Tensor a = placeholder("A", FLOAT32, 6, 7);
      Tensor m = placeholder("M", BOOL, 6, 7);
      c.add(
          op(
              "bool_logic_to_float",
              compute(
                  "BoolF",
                  a.shape(),
                  (i, j) ->
                      cast(
                              FLOAT32,
                              select(
                                  m.at(i, j),
                                  a.at(i, j).gt(new FloatImm(FLOAT32, 0)),
                                  a.at(i, j).lt(new FloatImm(FLOAT32, 0.2)).not()))
                          .add(a.at(i, j)))));
    }
    // float64 intrinsics (tanh, floor, ceil, pow, sqrt, log)
    {
      Tensor a = placeholder("A", FLOAT64, 4, 9);
      c.add(
          op(
              "f64_intrinsics",
              compute(
                  "F64Math",
                  a.shape(),
                  (i, j) -> {
                    Expr v = a.at(i, j);
                    return tanh(v)
                        .add(floor(v.mul(3.0)))
                        .add(ceil(v.mul(2.0)))
                        .add(pow(abs(v).add(1.0), new FloatImm(FLOAT64, 0.3)))
                        .add(sqrt(abs(v)))
                        .add(log(abs(v).add(1.0)));
                  })));
    }
    // int64 abs and floordiv by negative constant
    {
      Tensor a = placeholder("A", INT64, 5, 6);
      c.add(
          op(
              "i64_abs_floordiv",
              compute(
                  "AbsI64", a.shape(), (i, j) -> abs(a.at(i, j)).add(a.at(i, j).floordiv(-3L)))));
    }
    // floordiv / floormod by data (nonzero, possibly negative), int32 and int64
    {
      Tensor a = placeholder("A", INT32, 5, 7);
      Tensor d = placeholder("D", INT32, 5, 7);
      c.add(
          op(
              "int_divmod_by_data",
              compute(
                  "DivData",
                  a.shape(),
                  (i, j) -> {
                    Expr dd = select(d.at(i, j).eq(0), IntImm.of(3), d.at(i, j));
                    return a.at(i, j).floordiv(dd).mul(100).add(a.at(i, j).floormod(dd));
                  })));
      Tensor a64 = placeholder("A64", INT64, 5, 7);
      Tensor d64 = placeholder("D64", INT64, 5, 7);
      c.add(
          op(
              "i64_divmod_by_data",
              compute(
                  "DivData64",
                  a64.shape(),
                  (i, j) -> {
                    Expr dd = select(d64.at(i, j).eq(0L), IntImm.of(INT64, -3), d64.at(i, j));
                    return a64.at(i, j).floordiv(dd).mul(100L).add(a64.at(i, j).floormod(dd));
                  })));
    }
    return c.stream();
  }
}
