package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.exp;
import static dev.kernelgen.te.TE.f32;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Pooling;
import dev.kernelgen.topi.Reduction;
import dev.kernelgen.topi.Transform;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Operators on ragged shapes (no extent divides the tiles) for the generated-schedule tests. */
record Workloads(String name, List<Tensor> outputs, Map<Var, Long> dims) {
  @Override
  public String toString() {
    return name;
  }

  static Workloads of(String name, Tensor out) {
    return new Workloads(name, List.of(out), Map.of());
  }

  static List<Workloads> all() {
    List<Workloads> c = new ArrayList<>();
    Tensor x = placeholder("X", FLOAT32, 13, 19);
    Tensor w = placeholder("W", FLOAT32, 11, 19);
    Tensor bias = placeholder("Bias", FLOAT32, 11);
    c.add(of("dense_bias_relu", Elementwise.relu(Elementwise.add(Linalg.dense(x, w), bias))));
    Tensor mb = placeholder("MB", FLOAT32, 19, 23);
    c.add(of("matmul", Linalg.matmul(x, mb)));
    Tensor in = placeholder("Input", FLOAT32, 2, 5, 11, 9);
    Tensor f = placeholder("Filter", FLOAT32, 6, 5, 3, 3);
    Tensor cb = placeholder("ConvBias", FLOAT32, 6, 1, 1);
    Tensor conv = Conv.conv2dNchw(in, f, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 1), 1);
    c.add(of("conv2d_bias_relu", Elementwise.relu(Elementwise.add(conv, cb))));
    Tensor fd = placeholder("FilterDw", FLOAT32, 5, 1, 3, 3);
    Tensor dw = Nn.depthwiseConv2dNchw(in, fd, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 1), 1);
    c.add(of("depthwise", dw));
    c.add(of("depthwise_pointwise", pointwise(dw, placeholder("FilterPw", FLOAT32, 7, 5))));
    Tensor a = placeholder("A", FLOAT32, 7, 37);
    c.add(of("softmax", Reduction.softmax(a, 1)));
    Tensor gamma = placeholder("Gamma", FLOAT32, 37);
    Tensor beta = placeholder("Beta", FLOAT32, 37);
    c.add(of("layer_norm", Nn.layerNorm(a, gamma, beta, 1, 1e-5)));
    c.add(of("max_pool", Pooling.maxPool2d(in, 3, 3, 2, 2, Padding.same(11, 9, 3, 3, 2, 2, 1))));
    c.add(
        of(
            "elementwise_chain",
            Elementwise.sigmoid(Elementwise.mul(Elementwise.add(a, gamma), Elementwise.tanh(a)))));
    Tensor tall = placeholder("Tall", FLOAT32, 3, 301);
    c.add(of("sum_small_output", Reduction.sum(tall, false, 1)));
    Tensor cube = placeholder("Cube", FLOAT32, 3, 37, 45);
    c.add(of("transpose_relu", Elementwise.relu(Transform.transpose(cube, 0, 2, 1))));
    return c;
  }

  /** {@code out[b, f, i, j] = relu(sum_c x[b, c, i, j] * w[f, c])}: a pointwise convolution. */
  static Tensor pointwise(Tensor x, Tensor w) {
    IterVar c = reduceAxis(x.shape().get(1), "c");
    Tensor pw =
        compute(
            "Pointwise",
            shape(x.shape().get(0), w.shape().get(0), x.shape().get(2), x.shape().get(3)),
            (b, o, i, j) -> sum(x.at(b, c.var(), i, j).mul(w.at(o, c.var())), c));
    return Elementwise.relu(pw);
  }

  /** A dense layer with bias and relu whose reduction extent is symbolic. */
  static Workloads symbolicDense() {
    Var k = new Var("kd", DType.INT32);
    Tensor x = placeholder("X", FLOAT32, 9, k);
    Tensor w = placeholder("W", FLOAT32, 21, k);
    Tensor bias = placeholder("Bias", FLOAT32, 21);
    return new Workloads(
        "dense_symbolic_k",
        List.of(Elementwise.relu(Elementwise.add(Linalg.dense(x, w), bias))),
        Map.of(k, 29L));
  }

  /** Depthwise 3x3, then pointwise with relu, over a symbolic channel count. */
  static Workloads symbolicBlock() {
    Var ch = new Var("ch", DType.INT32);
    Tensor in = placeholder("Input", FLOAT32, 1, ch, 10, 7);
    Tensor fd = placeholder("FilterDw", FLOAT32, ch, 1, 3, 3);
    Tensor dw = Nn.depthwiseConv2dNchw(in, fd, 1, 1, Padding.same(10, 7, 3, 3, 1, 1, 1), 1);
    Tensor out = pointwise(dw, placeholder("FilterPw", FLOAT32, 6, ch));
    return new Workloads("block_symbolic_c", List.of(out), Map.of(ch, 5L));
  }

  /** A user's conv + batch norm + swish over symbolic dims, as the conv-bn-swish sample's. */
  static Workloads symbolicConvBnSwish() {
    Var n = var("n");
    Var c = var("c");
    Var h = var("h");
    Var w = var("w");
    Var k = var("k");
    Tensor x = placeholder("x", FLOAT32, n, c, h, w);
    Tensor weight = placeholder("weight", FLOAT32, k, c, 3, 3);
    Tensor gamma = placeholder("gamma", FLOAT32, k);
    Tensor beta = placeholder("beta", FLOAT32, k);
    Tensor padded =
        compute(
            "Padded",
            shape(n, c, h.add(2), w.add(2)),
            (b, ci, i, j) ->
                select(
                    TE.all(i.ge(1), i.le(h), j.ge(1), j.le(w)),
                    x.at(b, ci, i.sub(1), j.sub(1)),
                    f32(0)));
    IterVar rc = reduceAxis(c, "rc");
    IterVar ry = reduceAxis(3, "ry");
    IterVar rx = reduceAxis(3, "rx");
    Tensor conv =
        compute(
            "Conv",
            shape(n, k, h, w),
            (b, f, i, j) ->
                sum(
                    padded
                        .at(b, rc.var(), i.add(ry.var()), j.add(rx.var()))
                        .mul(weight.at(f, rc.var(), ry.var(), rx.var())),
                    rc,
                    ry,
                    rx));
    Tensor bn =
        compute(
            "BatchNorm",
            shape(n, k, h, w),
            (b, f, i, j) -> conv.at(b, f, i, j).mul(gamma.at(f)).add(beta.at(f)));
    Tensor swish =
        compute(
            "Swish",
            shape(n, k, h, w),
            (b, f, i, j) -> {
              Expr y = bn.at(b, f, i, j);
              return y.div(f32(1).add(exp(f32(0).sub(y))));
            });
    return new Workloads(
        "conv_bn_swish_symbolic", List.of(swish), Map.of(n, 2L, c, 3L, h, 5L, w, 7L, k, 4L));
  }
}
