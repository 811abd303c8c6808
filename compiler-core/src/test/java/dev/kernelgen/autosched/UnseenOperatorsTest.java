package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sqrt;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.tanh;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Reduction;
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
 * broadcast sum; one with symbolic dims), reductions inside expressions as users write them ({@code
 * sum(...).div(n)}): the rules' untuned pick for every target against the oracle (C on the IR
 * interpreter and cc, Java, CUDA's and OpenCL's schedules on the GPU interpreter).
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
    Var ch = var("ch");
    Var w = var("w");
    Tensor xs = placeholder("Xs", FLOAT32, 2, ch, 3, w);
    c.add(new Op("l2_normalize_symbolic", List.of(l2Normalize(xs)), Map.of(ch, 5L, w, 19L)));
    return c.stream();
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
