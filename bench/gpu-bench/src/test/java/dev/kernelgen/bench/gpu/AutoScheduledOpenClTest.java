package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Pooling;
import dev.kernelgen.topi.Reduction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Schedules generated from the compute DAG ({@link AutoScheduler}) for OpenCL, at their untuned
 * pick and at the naive floor, run by the OpenCL driver (PoCL here) against the oracle on ragged
 * shapes.
 */
class AutoScheduledOpenClTest {
  private static OpenClDevice device;

  @BeforeAll
  static void open() {
    device = OpenClTests.deviceOrSkip();
  }

  static Stream<Arguments> schedules() {
    return schedules(Target.OPENCL);
  }

  /** The untuned picks and naive floors of the generated schedules for {@code target}. */
  static Stream<Arguments> schedules(Target target) {
    Map<String, List<Tensor>> ops = new LinkedHashMap<>();
    Tensor x = placeholder("X", FLOAT32, 13, 19);
    Tensor w = placeholder("W", FLOAT32, 11, 19);
    Tensor bias = placeholder("Bias", FLOAT32, 11);
    ops.put(
        "dense_bias_relu", List.of(Elementwise.relu(Elementwise.add(Linalg.dense(x, w), bias))));
    Tensor in = placeholder("Input", FLOAT32, 2, 5, 11, 9);
    Tensor f = placeholder("Filter", FLOAT32, 6, 5, 3, 3);
    Tensor cb = placeholder("ConvBias", FLOAT32, 6, 1, 1);
    Tensor conv = Conv.conv2dNchw(in, f, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 1), 1);
    ops.put("conv2d_bias_relu", List.of(Elementwise.relu(Elementwise.add(conv, cb))));
    Tensor fd = placeholder("FilterDw", FLOAT32, 5, 1, 3, 3);
    Tensor dw = Nn.depthwiseConv2dNchw(in, fd, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 1), 1);
    Tensor fp = placeholder("FilterPw", FLOAT32, 7, 5);
    IterVar c = reduceAxis(5, "c");
    Tensor pw =
        compute(
            "Pointwise",
            shape(2, 7, 11, 9),
            (b, o, i, j) -> sum(dw.at(b, c.var(), i, j).mul(fp.at(o, c.var())), c));
    ops.put("depthwise_pointwise", List.of(Elementwise.relu(pw)));
    Tensor a = placeholder("A", FLOAT32, 7, 37);
    ops.put("softmax", List.of(Reduction.softmax(a, 1)));
    Tensor g = placeholder("Gamma", FLOAT32, 37);
    Tensor be = placeholder("Beta", FLOAT32, 37);
    ops.put("layer_norm", List.of(Nn.layerNorm(a, g, be, 1, 1e-5)));
    // Reductions of several steps: a ragged one, and one whose tiles load 4 words per thread
    // (and, on CUDA, are double-buffered).
    ops.put(
        "matmul_ragged",
        List.of(
            Linalg.matmul(
                placeholder("Ma", FLOAT32, 70, 67), placeholder("Mb", FLOAT32, 67, 132))));
    ops.put(
        "matmul_aligned",
        List.of(
            Linalg.matmul(
                placeholder("Na", FLOAT32, 64, 96), placeholder("Nb", FLOAT32, 96, 128))));
    // A long reduction into 3 outputs (the rfactor rule: three kernels), its length ragged.
    Tensor v = placeholder("V", FLOAT32, 3, 9001);
    IterVar kv = reduceAxis(9001, "kv");
    ops.put(
        "sum_of_squares",
        List.of(
            compute("SumSq", shape(3), i -> sum(v.at(i, kv.var()).mul(v.at(i, kv.var())), kv))));
    // Few outputs of long reductions (a block per output, then a thread per output): global
    // average pooling with its division fused, 37 partial results each.
    ops.put(
        "global_avg_pool", List.of(Pooling.globalAvgPool(placeholder("P", FLOAT32, 2, 3, 23, 37))));
    // One head of attention (two reductions, a softmax between), its length ragged.
    Tensor q = placeholder("Q", FLOAT32, 45, 64);
    Tensor k = placeholder("K", FLOAT32, 45, 64);
    Tensor vv = placeholder("Vv", FLOAT32, 45, 64);
    ops.put(
        "attention",
        List.of(
            Linalg.matmul(Reduction.softmax(Elementwise.scale(Linalg.dense(q, k), 0.125), 1), vv)));
    List<Arguments> out = new ArrayList<>();
    for (var e : ops.entrySet()) {
      out.add(Arguments.of(e.getKey() + "_pick", AutoScheduler.untuned(target, e.getValue())));
      Knobs naive = Knobs.configured(Map.of(AutoScheduler.SKETCH, AutoScheduler.NAIVE));
      out.add(
          Arguments.of(
              e.getKey() + "_floor",
              AutoScheduler.generate(
                  target,
                  e.getValue(),
                  naive,
                  dev.kernelgen.autosched.SketchRules.defaults(),
                  Map.of())));
    }
    // A thread's sliding window in registers (knob window), over tiles no extent divides: the
    // seed's fused depthwise (3x3 + scale_shift + relu) and a stride-2 max pool, 4 rows and 2
    // channels a thread.
    Tensor sd =
        Nn.depthwiseConv2dNchw(
            placeholder("Sin", FLOAT32, 2, 5, 13, 11),
            placeholder("Sf", FLOAT32, 5, 1, 3, 3),
            1,
            1,
            new Padding(1, 1, 1, 1),
            1);
    Tensor fused =
        Nn.relu(Nn.scaleShift(sd, placeholder("Ss", FLOAT32, 5), placeholder("Sh", FLOAT32, 5)));
    Tensor pool =
        Pooling.maxPool2d(
            placeholder("Pi", FLOAT32, 1, 3, 15, 9),
            3,
            3,
            2,
            2,
            Padding.same(15, 9, 3, 3, 2, 2, 1));
    for (Tensor t : List.of(fused, pool)) {
      out.add(Arguments.of(t.name() + "_window", windowed(target, t)));
    }
    return out.stream();
  }

  /**
   * {@code out}'s generated tiling with a window of 4 rows and 2 channels a thread in registers.
   */
  private static Schedule windowed(Target target, Tensor out) {
    var space = AutoScheduler.space(target, List.of(out));
    String stage =
        space.knobs().keySet().stream()
            .filter(n -> n.endsWith(".window"))
            .map(n -> n.substring(0, n.indexOf('.')))
            .findFirst()
            .orElseThrow();
    Map<String, Integer> k = new java.util.TreeMap<>(space.defaults().values());
    k.put(AutoScheduler.SKETCH, AutoScheduler.RULES);
    k.putAll(
        Map.of(
            stage + ".reg1", 2,
            stage + ".reg2", 4,
            stage + ".reg3", 1,
            stage + ".threads2", 2,
            stage + ".threads3", 4,
            stage + ".window", 1));
    Schedule s = AutoScheduler.generate(target, List.of(out), Knobs.configured(k));
    assertThat(s.trace().toString()).contains("cache_read(local");
    return s;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schedules")
  void matchesTheOracle(String name, Schedule s) {
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    assertThat(OracleCheck.check(device, s, args, "auto_" + name)).isNull();
  }
}
