package dev.kernelgen.algo;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Topi;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ConvRewrite}: which convolutions it finds, however written, which it leaves, and the
 * rewritten DAG equal to the definition in the oracle (ragged tiles, an epilogue, two convolutions
 * in a row).
 */
class ConvRewriteTest {
  private static final Padding SAME = new Padding(1, 1, 1, 1);

  /** A user's own valid 3x3 convolution: the filter read first, the reduce axes out of order. */
  private static Tensor userConv(Tensor x, Tensor w) {
    IterVar c = reduceAxis(x.shape().get(1), "c");
    IterVar di = reduceAxis(3, "ky");
    IterVar dj = reduceAxis(3, "kx");
    return compute(
        "MyConv",
        shape(x.shape().get(0), w.shape().get(0), x.shape().get(2).sub(2), x.shape().get(3).sub(2)),
        (n, f, i, j) ->
            sum(
                w.at(f, c.var(), di.var(), dj.var())
                    .mul(x.at(n, c.var(), i.add(di.var()), j.add(dj.var()))),
                dj,
                c,
                di));
  }

  @Test
  void findsDirectConvolutionsHoweverWritten() {
    Tensor x = placeholder("X", FLOAT32, 2, 3, 7, 9);
    Tensor w = placeholder("W", FLOAT32, 5, 3, 3, 3);
    Tensor lib = Conv.conv2dNchw(x, w, 1, 1, SAME, 1);
    ConvRewrite.Match m = ConvRewrite.match(lib);
    assertThat(m).isNotNull();
    assertThat(m.filter()).isSameAs(w);
    assertThat(m.input().name()).isEqualTo("PaddedInput");
    ConvRewrite.Match u = ConvRewrite.match(userConv(x, w));
    assertThat(u).isNotNull();
    assertThat(u.input()).isSameAs(x);
    assertThat(u.rc().var().name()).isEqualTo("c");
  }

  @Test
  void leavesOtherConvolutions() {
    Tensor x = placeholder("X", FLOAT32, 1, 4, 12, 12);
    Tensor w = placeholder("W", FLOAT32, 4, 4, 3, 3);
    Tensor w5 = placeholder("W5", FLOAT32, 4, 4, 5, 5);
    Tensor dw = placeholder("DW", FLOAT32, 4, 1, 3, 3);
    Tensor xi = placeholder("XI", DType.INT32, 1, 4, 12, 12);
    Tensor wi = placeholder("WI", DType.INT32, 4, 4, 3, 3);
    IterVar di = reduceAxis(3, "di");
    IterVar dj = reduceAxis(3, "dj");
    IterVar c = reduceAxis(4, "c");
    // A max over the window is not a convolution; neither is one whose channel is not the filter's.
    Tensor maxed =
        compute(
            "MaxConv",
            shape(1, 4, 10, 10),
            (n, f, i, j) ->
                dev.kernelgen.te.TE.max(
                    x.at(n, c.var(), i.add(di.var()), j.add(dj.var()))
                        .mul(w.at(f, c.var(), di.var(), dj.var())),
                    c,
                    di,
                    dj));
    IterVar di2 = reduceAxis(3, "di");
    IterVar dj2 = reduceAxis(3, "dj");
    Tensor grouped =
        compute(
            "Grouped",
            shape(1, 4, 10, 10),
            (n, f, i, j) ->
                sum(
                    x.at(n, f, i.add(di2.var()), j.add(dj2.var()))
                        .mul(w.at(f, dev.kernelgen.te.IntImm.of(0), di2.var(), dj2.var())),
                    di2,
                    dj2));
    for (Tensor t :
        List.of(
            Conv.conv2dNchw(x, w, 2, 2, SAME, 1),
            Conv.conv2dNchw(x, w, 1, 1, new Padding(2, 2, 2, 2), 2),
            Conv.conv2dNchw(x, w5, 1, 1, SAME, 1),
            Nn.depthwiseConv2dNchw(x, dw, 1, 1, SAME, 1),
            Conv.conv2dNchw(xi, wi, 1, 1, SAME, 1),
            maxed,
            grouped)) {
      assertThat(ConvRewrite.winograd(List.of(t), 2)).as(t.name()).isNull();
    }
  }

  @Test
  void rewriteEqualsTheDefinition() {
    // 7 x 9 leaves ragged last tiles for both tile sizes; the epilogue adds a bias and clamps.
    Tensor x = placeholder("X", FLOAT32, 2, 3, 7, 9);
    Tensor w = placeholder("W", FLOAT32, 5, 3, 3, 3);
    Tensor w2 = placeholder("W2", FLOAT32, 4, 5, 3, 3);
    Tensor bias = placeholder("Bias", FLOAT32, 5);
    for (int m : new int[] {2, 4}) {
      Tensor conv = Conv.conv2dNchw(x, w, 1, 1, SAME, 1);
      Tensor act =
          compute(
              "Act",
              conv.shape(),
              (n, f, i, j) -> conv.at(n, f, i, j).add(bias.at(f)).max(new FloatImm(FLOAT32, 0)));
      Tensor second = userConv(act, w2);
      for (List<Tensor> outputs : List.of(List.of(act), List.of(second), List.of(act, second))) {
        List<Tensor> rewritten = ConvRewrite.winograd(outputs, m);
        assertThat(rewritten).hasSameSizeAs(outputs);
        Map<Tensor, NDArray> in =
            Map.of(
                x, NDArray.random(FLOAT32, 1, 2, 3, 7, 9),
                w, NDArray.random(FLOAT32, 2, 5, 3, 3, 3),
                w2, NDArray.random(FLOAT32, 3, 4, 5, 3, 3),
                bias, NDArray.random(FLOAT32, 4, 5));
        Map<Tensor, NDArray> want = TensorInterpreter.evaluate(outputs, in, Map.of());
        Map<Tensor, NDArray> got = TensorInterpreter.evaluate(rewritten, in, Map.of());
        for (int k = 0; k < outputs.size(); k++) {
          Tensor o = outputs.get(k);
          Tensor r = rewritten.get(k);
          assertThat(r).isNotSameAs(o);
          assertThat(r.name()).isEqualTo(o.name());
          assertThat(r.shape()).isEqualTo(o.shape());
          assertThat(NDArray.compare(want.get(o), got.get(r), 1e-4, 1e-4))
              .as("F(%dx%d) of %s", m, m, outputs)
              .isNull();
        }
      }
    }
  }

  @Test
  void twoConvolutionsGetStagesOfTheirOwn() {
    Tensor x = placeholder("X", FLOAT32, 1, 3, 8, 8);
    Tensor w = placeholder("W", FLOAT32, 3, 3, 3, 3);
    Tensor first = Topi.relu(Conv.conv2dNchw(x, w, 1, 1, SAME, 1));
    Tensor second = Conv.conv2dNchw(first, w, 1, 1, SAME, 1);
    List<Tensor> out = ConvRewrite.winograd(List.of(second), 2);
    List<String> names =
        dev.kernelgen.schedule.Schedule.create(out).stages().stream()
            .map(dev.kernelgen.schedule.Stage::name)
            .toList();
    // (topi names both convolutions' own stages alike: PaddedInput, Conv2d.)
    assertThat(names.stream().filter(n -> n.matches("(Kernel|Input)Transform.*|Winograd.*")))
        .containsExactlyInAnyOrder(
            "KernelTransform",
            "KernelTransform_1",
            "WinogradPadded",
            "WinogradPadded_1",
            "InputTransform",
            "InputTransform_1",
            "WinogradProduct",
            "WinogradProduct_1");
  }
}
