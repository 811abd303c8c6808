package dev.kernelgen.samples.convbnswish;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.all;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.exp;
import static dev.kernelgen.te.TE.f32;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sqrt;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.List;

/**
 * A ResNet / EfficientNet block's inference step, written with the DSL alone: a 3x3 convolution
 * (stride 1, zero padding 1) of an NCHW batch, batch normalisation with the running statistics,
 * then swish ({@code y * sigmoid(y)}). No schedule method: every target runs what the
 * auto-scheduler generates from this compute (tuned where the committed log has records).
 */
@KernelLibrary(
    name = "ConvBnSwishKernels",
    targets = {Target.CUDA, Target.OPENCL, Target.C, Target.JAVA})
public final class ConvBnSwishSpec {
  private ConvBnSwishSpec() {}

  /** A ResNet-like layer: 64 channels of 56x56 to 64, one image. */
  static final String RESNET = "n=1,c=64,h=56,w=56,k=64";

  /** A batch of eight smaller maps: 32 channels of 28x28 to 32. */
  static final String BATCH8 = "n=8,c=32,h=28,w=28,k=32";

  /** Batch norm's epsilon, as PyTorch's and ONNX's default. */
  static final double EPS = 1e-5;

  @Operator(specialize = {RESNET, BATCH8})
  public static OperatorDef convBnSwish() {
    Var n = var("n");
    Var c = var("c");
    Var h = var("h");
    Var w = var("w");
    Var k = var("k");
    Tensor x = placeholder("x", FLOAT32, n, c, h, w);
    Tensor weight = placeholder("weight", FLOAT32, k, c, 3, 3);
    Tensor gamma = placeholder("gamma", FLOAT32, k);
    Tensor beta = placeholder("beta", FLOAT32, k);
    Tensor mean = placeholder("mean", FLOAT32, k);
    Tensor variance = placeholder("variance", FLOAT32, k);

    Tensor padded =
        compute(
            "Padded",
            shape(n, c, h.add(2), w.add(2)),
            (b, ci, i, j) ->
                select(
                    all(i.ge(1), i.le(h), j.ge(1), j.le(w)),
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
            (b, f, i, j) ->
                conv.at(b, f, i, j)
                    .sub(mean.at(f))
                    .mul(gamma.at(f))
                    .div(sqrt(variance.at(f).add(EPS)))
                    .add(beta.at(f)));
    Tensor swish =
        compute(
            "Swish",
            shape(n, k, h, w),
            (b, f, i, j) -> {
              Expr y = bn.at(b, f, i, j);
              return y.div(f32(1).add(exp(f32(0).sub(y))));
            });
    return OperatorDef.of(List.of(x, weight, gamma, beta, mean, variance), swish);
  }
}
