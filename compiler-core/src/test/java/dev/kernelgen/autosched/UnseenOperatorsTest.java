package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.FLOAT64;
import static dev.kernelgen.te.TE.INT32;
import static dev.kernelgen.te.TE.cast;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.computeN;
import static dev.kernelgen.te.TE.exp;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.min;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.reduceWhere;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sqrt;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.tanh;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Reducer;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Reduction;
import dev.kernelgen.topi.Topi;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Operators written as a new user would, with the DSL alone and shapes no extent of which divides a
 * tile, that no other test builds (a strided 1-d convolution with GELU, a grouped convolution, one
 * head of attention over a batch, channel-wise L2 normalisation, column centring, a max over a
 * broadcast sum; one with symbolic dims; and {@link #otherKinds}), reductions inside expressions as
 * users write them ({@code sum(...).div(n)}): the rules' untuned pick for every target against the
 * oracle (C on the IR interpreter and cc, Java, CUDA's and OpenCL's schedules on the GPU
 * interpreter).
 */
@Execution(ExecutionMode.CONCURRENT) // its operators are independent
class UnseenOperatorsTest {
  record Op(String name, List<Tensor> outputs, Map<Var, Long> dims) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Op> cases() {
    List<Op> c = new ArrayList<>();
    c.add(new Op("conv1d_stride2_gelu", List.of(conv1dGelu()), Map.of()));
    c.add(new Op("grouped_conv2d", List.of(groupedConv()), Map.of()));
    c.add(new Op("attention_batch", List.of(attention()), Map.of()));
    Tensor x = placeholder("X", FLOAT32, 2, 6, 5, 7);
    c.add(new Op("l2_normalize_channels", List.of(l2Normalize(x)), Map.of()));
    c.add(new Op("l2_normalize_inline", List.of(l2NormalizeInline(x)), Map.of()));
    c.add(new Op("center_columns", List.of(centerColumns()), Map.of()));
    c.add(new Op("max_of_broadcast_sum", List.of(maxOfBroadcastSum()), Map.of()));
    c.add(new Op("stereo_cost_volume", List.of(costVolume(37, 5, 19, 6)), Map.of()));
    Var ch = var("ch");
    Var w = var("w");
    Tensor xs = placeholder("Xs", FLOAT32, 2, ch, 3, w);
    c.add(new Op("l2_normalize_symbolic", List.of(l2Normalize(xs)), Map.of(ch, 5L, w, 19L)));
    c.addAll(otherKinds());
    return c.stream();
  }

  /**
   * Other dtypes, ranks and forms: a conditional sum, float64 and int32 reductions, a rank-5
   * broadcast, a transposed matmul, extent-1 dims, a mean and a softmax over symbolic rows, two
   * outputs of one producer, a gather through an index tensor.
   */
  static List<Op> otherKinds() {
    List<Op> c = new ArrayList<>();
    Tensor a = placeholder("A", FLOAT32, 9, 41);
    IterVar k = reduceAxis(41, "k");
    Tensor positive =
        compute(
            "PositiveSum",
            shape(9),
            i ->
                reduceWhere(
                    Reducer.sum(FLOAT32),
                    a.at(i, k.var()),
                    a.at(i, k.var()).gt(new FloatImm(FLOAT32, 0)),
                    k));
    c.add(new Op("sum_where_positive", List.of(positive), Map.of()));
    Tensor d1 = placeholder("D1", FLOAT64, 7, 13);
    Tensor d2 = placeholder("D2", FLOAT64, 13, 5);
    IterVar kk = reduceAxis(13, "kk");
    c.add(
        new Op(
            "matmul_f64",
            List.of(
                compute(
                    "MatmulF64",
                    shape(7, 5),
                    (i, j) -> sum(d1.at(i, kk.var()).mul(d2.at(kk.var(), j)), kk))),
            Map.of()));
    Tensor ia = placeholder("IA", INT32, 6, 10);
    IterVar ik = reduceAxis(10, "ik");
    c.add(
        new Op(
            "row_max_i32",
            List.of(compute("RowMax", shape(6), i -> max(ia.at(i, ik.var()).mul(3).sub(1), ik))),
            Map.of()));
    Tensor f5 = placeholder("F5", FLOAT32, 2, 3, 4, 5, 6);
    Tensor b1 = placeholder("B1", FLOAT32, 3);
    c.add(
        new Op(
            "rank5_broadcast",
            List.of(computeN("Rank5", f5.shape(), ix -> f5.at(ix).mul(b1.at(ix.get(1))).add(1.0))),
            Map.of()));
    Tensor t1 = placeholder("T1", FLOAT32, 11, 7);
    Tensor t2 = placeholder("T2", FLOAT32, 11, 9);
    c.add(new Op("transpose_matmul", List.of(Topi.matmul(Topi.transpose(t1, 1, 0), t2)), Map.of()));
    Tensor one = placeholder("One", FLOAT32, 1, 1, 17, 1);
    IterVar ok = reduceAxis(17, "ok");
    c.add(
        new Op(
            "unit_dims",
            List.of(
                compute(
                    "UnitSum",
                    shape(1, 1, 1, 1),
                    (p, q, r, s) -> sum(one.at(p, q, ok.var(), s), ok))),
            Map.of()));
    Var n = var("n");
    Tensor m = placeholder("M", FLOAT32, 3, n);
    IterVar mk = reduceAxis(n, "mk");
    c.add(
        new Op(
            "mean_symbolic_row",
            List.of(
                compute("Mean", shape(3), i -> sum(m.at(i, mk.var()), mk).div(cast(FLOAT32, n)))),
            Map.of(n, 1001L)));
    Var cols = var("cols");
    Tensor sx = placeholder("SX", FLOAT32, 4, cols);
    c.add(new Op("softmax_symbolic", List.of(Reduction.softmax(sx, 1)), Map.of(cols, 77L)));
    Tensor p = placeholder("P", FLOAT32, 8, 12);
    Tensor ex = compute("Ex", p.shape(), (i, j) -> exp(p.at(i, j)));
    Tensor o1 = compute("PlusOne", p.shape(), (i, j) -> ex.at(i, j).add(1.0));
    Tensor o2 = compute("Twice", p.shape(), (i, j) -> ex.at(i, j).mul(2.0));
    c.add(new Op("two_outputs", List.of(o1, o2), Map.of()));
    Tensor table = placeholder("Table", FLOAT32, 10, 6);
    Tensor idx = placeholder("Idx", INT32, 5);
    c.add(
        new Op(
            "gather",
            List.of(
                compute("Gathered", shape(5, 6), (i, j) -> table.at(idx.at(i).floormod(10), j))),
            Map.of()));
    // Argmax as a user writes it without an index reducer: the row's max, then the least index
    // that holds it (an int32 output).
    Tensor am = placeholder("Am", FLOAT32, 7, 23);
    IterVar ak = reduceAxis(23, "ak");
    IterVar ai = reduceAxis(23, "ai");
    Tensor rowMax = compute("AmMax", shape(7), i -> max(am.at(i, ak.var()), ak));
    c.add(
        new Op(
            "argmax_rows",
            List.of(
                compute(
                    "ArgMax",
                    shape(7),
                    i ->
                        min(
                            select(am.at(i, ai.var()).eq(rowMax.at(i)), ai.var(), IntImm.of(23)),
                            ai))),
            Map.of()));
    // A padded 3x3 average pool written with the padding inside the sum (a select of zero that
    // stays a select: TE.reduce).
    Tensor pi = placeholder("Pi", FLOAT32, 2, 3, 11, 9);
    IterVar py = reduceAxis(3, "py");
    IterVar px = reduceAxis(3, "px");
    c.add(
        new Op(
            "avg_pool_padded_inside",
            List.of(
                compute(
                    "AvgPadded",
                    pi.shape(),
                    (nn, cc, i, j) -> {
                      Expr iy = i.add(py.var()).sub(1);
                      Expr ix = j.add(px.var()).sub(1);
                      Expr in =
                          select(
                              iy.ge(0).and(iy.lt(11)).and(ix.ge(0)).and(ix.lt(9)),
                              pi.at(nn, cc, iy, ix),
                              0.0);
                      return sum(in, py, px).div(9.0);
                    })),
            Map.of()));
    c.addAll(masked());
    c.addAll(indexValues());
    return c;
  }

  /**
   * Axes read as values over symbolic dims, which the driver also builds with 64-bit loops: an
   * argmax's position, an integer sum weighted by its position, an index added to the data, a
   * quotient by the symbolic dim (their 64-bit kernels once failed to build: an int64 store into an
   * int32 buffer, a select of int64 and int32).
   */
  static List<Op> indexValues() {
    List<Op> c = new ArrayList<>();
    Var n = var("n");
    Tensor a = placeholder("Av", FLOAT32, 5, n);
    IterVar k = reduceAxis(n, "k");
    IterVar q = reduceAxis(n, "q");
    Tensor rowMax = compute("AvMax", shape(5), i -> max(a.at(i, k.var()), k));
    c.add(
        new Op(
            "argmax_symbolic_row",
            List.of(
                compute(
                    "ArgMaxN",
                    shape(5),
                    i -> min(select(a.at(i, q.var()).eq(rowMax.at(i)), q.var(), n), q))),
            Map.of(n, 29L)));
    Var m = var("m");
    Tensor ia = placeholder("Iv", INT32, 6, m);
    IterVar p = reduceAxis(m, "p");
    c.add(
        new Op(
            "position_weighted_sum_i32",
            List.of(compute("Weighted", shape(6), i -> sum(p.var().mul(ia.at(i, p.var())), p))),
            Map.of(m, 37L)));
    c.add(
        new Op(
            "index_plus_data_i32",
            List.of(
                compute(
                    "IndexPlus",
                    shape(6, m),
                    (i, j) ->
                        ia.at(i, j).add(j.mul(3)).add(i).add(ia.at(i, j).floordiv(m.sub(2))))),
            Map.of(m, 23L)));
    return c;
  }

  /**
   * Reductions masked by a select of the reducer's identity on indices alone (the loops then skip
   * the rest): a prefix sum, a causal row max as attention masks scores, a band of 4 behind.
   */
  static List<Op> masked() {
    List<Op> c = new ArrayList<>();
    Tensor x = placeholder("Xp", FLOAT32, 13, 37);
    IterVar k = reduceAxis(37, "k");
    c.add(
        new Op(
            "prefix_sum_masked",
            List.of(
                compute(
                    "Prefix",
                    shape(13, 37),
                    (i, j) -> sum(select(k.var().le(j), x.at(i, k.var()), 0.0), k))),
            Map.of()));
    Tensor s = placeholder("Scores", FLOAT32, 3, 19, 19);
    IterVar q = reduceAxis(19, "q");
    c.add(
        new Op(
            "causal_row_max",
            List.of(
                compute(
                    "CausalMax",
                    shape(3, 19),
                    (h, i) ->
                        max(
                            select(q.var().le(i), s.at(h, i, q.var()), Double.NEGATIVE_INFINITY),
                            q))),
            Map.of()));
    IterVar b = reduceAxis(37, "b");
    c.add(
        new Op(
            "band_sum",
            List.of(
                compute(
                    "Band",
                    shape(13, 37),
                    (i, j) ->
                        sum(
                            select(
                                b.var().le(j).and(b.var().gt(j.sub(4))),
                                x.at(i, b.var()).mul(2.0),
                                0.0),
                            b))),
            Map.of()));
    return c;
  }

  /** {@code gelu(bias[o] + sum_{c,k} x[b, c, 2t + k - 1] * w[o, c, k])}, zero outside x. */
  static Tensor conv1dGelu() {
    Tensor x = placeholder("X", FLOAT32, 2, 5, 33);
    Tensor w = placeholder("W", FLOAT32, 7, 5, 3);
    Tensor bias = placeholder("Bias", FLOAT32, 7);
    IterVar c = reduceAxis(5, "c");
    IterVar k = reduceAxis(3, "k");
    Tensor conv =
        compute(
            "Conv1d",
            shape(2, 7, 17),
            (b, o, t) -> {
              Expr at = t.mul(2).add(k.var()).sub(1);
              Expr in = select(at.ge(0).and(at.lt(33)), x.at(b, c.var(), at), 0.0);
              return sum(in.mul(w.at(o, c.var(), k.var())), c, k);
            });
    return compute(
        "Gelu",
        conv.shape(),
        (b, o, t) -> {
          Expr v = conv.at(b, o, t).add(bias.at(o));
          Expr inner = v.add(v.mul(v).mul(v).mul(0.044715)).mul(0.7978845608);
          return v.mul(0.5).mul(tanh(inner).add(1.0));
        });
  }

  /**
   * A stereo cost volume: {@code y[d, h, w] = sum_c l[c, h, w] * r[c, h, w - d] / C}, zero where
   * {@code w < d}. The right image is read by no two outputs at the same element of their tile.
   */
  static Tensor costVolume(int channels, int height, int width, int disparities) {
    Tensor l = placeholder("L", FLOAT32, channels, height, width);
    Tensor r = placeholder("R", FLOAT32, channels, height, width);
    IterVar c = reduceAxis(channels, "c");
    return compute(
        "CostVol",
        shape(disparities, height, width),
        (d, h, w) ->
            sum(select(w.sub(d).ge(0), l.at(c.var(), h, w).mul(r.at(c.var(), h, w.sub(d))), 0.0), c)
                .mul(1.0 / channels));
  }

  /** Two groups of a 3x3 convolution, SAME padding: output channel o reads group o / 3. */
  static Tensor groupedConv() {
    Tensor x = placeholder("X", FLOAT32, 1, 4, 9, 8);
    Tensor w = placeholder("W", FLOAT32, 6, 2, 3, 3);
    Tensor padded =
        compute(
            "Padded",
            shape(1, 4, 11, 10),
            (b, c, i, j) ->
                select(
                    i.ge(1).and(i.le(9)).and(j.ge(1)).and(j.le(8)),
                    x.at(b, c, i.sub(1), j.sub(1)),
                    0.0));
    IterVar c = reduceAxis(2, "c");
    IterVar kh = reduceAxis(3, "kh");
    IterVar kw = reduceAxis(3, "kw");
    return compute(
        "GroupedConv",
        shape(1, 6, 9, 8),
        (b, o, i, j) ->
            sum(
                padded
                    .at(b, o.floordiv(3).mul(2).add(c.var()), i.add(kh.var()), j.add(kw.var()))
                    .mul(w.at(o, c.var(), kh.var(), kw.var())),
                c,
                kh,
                kw));
  }

  /** {@code softmax(q k^T / 3) v} per batch element, over [2, 13, 9] x [2, 17, 9] x [2, 17, 11]. */
  static Tensor attention() {
    Tensor q = placeholder("Q", FLOAT32, 2, 13, 9);
    Tensor k = placeholder("K", FLOAT32, 2, 17, 9);
    Tensor v = placeholder("V", FLOAT32, 2, 17, 11);
    IterVar d = reduceAxis(9, "d");
    Tensor scores =
        compute(
            "Scores",
            shape(2, 13, 17),
            (b, i, j) -> sum(q.at(b, i, d.var()).mul(k.at(b, j, d.var())), d).div(3.0));
    Tensor p = Reduction.softmax(scores, 2);
    IterVar j = reduceAxis(17, "j");
    return compute(
        "Attention",
        shape(2, 13, 11),
        (b, i, e) -> sum(p.at(b, i, j.var()).mul(v.at(b, j.var(), e)), j));
  }

  /** {@code x / sqrt(sum_c x^2 + 1e-6)} over the channels (axis 1) of NCHW. */
  static Tensor l2Normalize(Tensor x) {
    IterVar c = reduceAxis(x.shape().get(1), "c");
    Tensor norm =
        compute(
            "SumSquares",
            shape(x.shape().get(0), x.shape().get(2), x.shape().get(3)),
            (b, i, j) -> sum(x.at(b, c.var(), i, j).mul(x.at(b, c.var(), i, j)), c));
    return compute(
        "L2Normalized",
        x.shape(),
        (b, ch, i, j) -> x.at(b, ch, i, j).div(sqrt(norm.at(b, i, j).add(1e-6))));
  }

  /** As {@link #l2Normalize}, in one compute: the sum inside the quotient, over (b, i, j) alone. */
  static Tensor l2NormalizeInline(Tensor x) {
    IterVar c = reduceAxis(x.shape().get(1), "c");
    return compute(
        "L2Inline",
        x.shape(),
        (b, ch, i, j) ->
            x.at(b, ch, i, j)
                .div(sqrt(sum(x.at(b, c.var(), i, j).mul(x.at(b, c.var(), i, j)), c).add(1e-6))));
  }

  /** Each column of [37, 23] minus its mean: a reduction over the first axis. */
  static Tensor centerColumns() {
    Tensor a = placeholder("A", FLOAT32, 37, 23);
    IterVar r = reduceAxis(37, "r");
    Tensor mean = compute("ColumnMean", shape(23), col -> sum(a.at(r.var(), col), r).div(37.0));
    return compute("Centered", a.shape(), (row, col) -> a.at(row, col).sub(mean.at(col)));
  }

  /** {@code y[i] = max_j (a[i] * b[j] + c[i, j])} over [29, 31]. */
  static Tensor maxOfBroadcastSum() {
    Tensor a = placeholder("A", FLOAT32, 29);
    Tensor b = placeholder("B", FLOAT32, 31);
    Tensor c = placeholder("C", FLOAT32, 29, 31);
    IterVar j = reduceAxis(31, "j");
    return compute(
        "MaxOfSum", shape(29), i -> max(a.at(i).mul(b.at(j.var())).add(c.at(i, j.var())), j));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void cPickMatchesTheOracle(Op op) {
    Schedule s = AutoScheduler.untuned(Target.C, op.outputs());
    Check.check(
        s,
        OpSchedules.args(s),
        op.dims(),
        EnumSet.of(Check.Backend.IR, Check.Backend.C),
        1e-4,
        1e-4);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void javaPickMatchesTheOracle(Op op) {
    Schedule s = AutoScheduler.untuned(Target.JAVA, op.outputs());
    Check.check(s, OpSchedules.args(s), op.dims(), EnumSet.of(Check.Backend.JAVA), 1e-4, 1e-4);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void gpuPickMatchesTheOracle(Op op) {
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      GpuCheck.check(AutoScheduler.untuned(t, op.outputs()), op.dims());
    }
  }
}
