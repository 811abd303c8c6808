package dev.kernelgen.autosched;

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

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The generated Java kernels stay under the JVM's 64 KB of bytecode per method. A user's 3x3
 * convolution (padding inlined, so each row's loop is partitioned at the borders) with a batch norm
 * and swish epilogue, at a register tile of 8 x 2 rows: with the filter taps unrolled around the
 * unrolled rows (16 rows x 9 taps x 3 border partitions), javac rejected the kernel's parallel body
 * ("code too large") and the conv + batch norm + swish sample did not build.
 */
class JavaMethodSizeTest {
  @Test
  void aConvWithAnEpilogueAtALargeRegisterTileCompilesAsJavaAndMatchesTheOracle() {
    int n = 8;
    int c = 3;
    int h = 5;
    int w = 20;
    int k = 2;
    Tensor x = placeholder("x", FLOAT32, n, c, h, w);
    Tensor weight = placeholder("weight", FLOAT32, k, c, 3, 3);
    Tensor gamma = placeholder("gamma", FLOAT32, k);
    Tensor beta = placeholder("beta", FLOAT32, k);
    Tensor padded =
        compute(
            "Padded",
            shape(n, c, h + 2, w + 2),
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
                    .mul(gamma.at(f))
                    .div(sqrt(gamma.at(f).add(1.0)))
                    .add(beta.at(f)));
    Tensor swish =
        compute(
            "Swish",
            shape(n, k, h, w),
            (b, f, i, j) -> {
              Expr y = bn.at(b, f, i, j);
              return y.div(f32(1).add(exp(f32(0).sub(y))));
            });
    // The register tile the untuned pick chose for the sample's [8,32,28,28]x32.
    Map<String, Integer> tile =
        Map.of(
            AutoScheduler.SKETCH,
            AutoScheduler.RULES,
            "Conv.layout",
            0,
            "Conv.tile0",
            8,
            "Conv.tile1",
            2,
            "Conv.tile2",
            1,
            "Conv.tile3",
            16);
    Schedule s = AutoScheduler.generate(Target.JAVA, List.of(swish), Knobs.configured(tile));
    List<Tensor> args = new ArrayList<>(List.of(x, weight, gamma, beta));
    args.add(swish);
    Check.check(s, args, Map.of(), EnumSet.of(Check.Backend.JAVA), 1e-4, 1e-4);
  }
}
