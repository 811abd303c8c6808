package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Reduction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Cross-thread reductions in generated OpenCL, run by the OpenCL driver (PoCL here) against the
 * oracle: the auto-scheduler's row reductions with a block per row at several thread counts, rows
 * staged in shared memory or not, on rows that the thread count does not divide (37 x 1000, 3 x 5,
 * 1 x 4097), for softmax, layer norm and a normalisation written as a user would; and a chain of
 * reductions in kernels of their own.
 */
class CrossThreadOpenClTest {
  private static OpenClDevice device;

  @BeforeAll
  static void open() {
    device = OpenClTests.deviceOrSkip();
  }

  static Tensor op(String name, long rows, long cols) {
    Tensor x = placeholder("X", FLOAT32, rows, cols);
    return switch (name) {
      case "softmax" -> Reduction.softmax(x, 1);
      case "layer_norm" ->
          Nn.layerNorm(
              x, placeholder("G", FLOAT32, cols), placeholder("B", FLOAT32, cols), 1, 1e-5);
      default -> {
        IterVar k = TE.reduceAxis(cols, "k");
        Tensor ss =
            TE.compute(
                "SumSquares",
                TE.shape(rows),
                i -> TE.sum(x.at(i, k.var()).mul(x.at(i, k.var())), k));
        yield TE.compute(
            "L2Normalize",
            TE.shape(rows, cols),
            (i, j) -> x.at(i, j).div(TE.sqrt(ss.at(i).add(TE.f32(1e-6)))));
      }
    };
  }

  /**
   * The rules' schedule with {@code threads} threads per row, rows staged in shared memory or not
   * ({@code stage}), the other knobs at defaults.
   */
  static Schedule withThreads(Target target, Tensor out, int threads, int stage) {
    Map<String, Integer> v =
        new TreeMap<>(AutoScheduler.space(target, List.of(out)).defaults().values());
    v.put(AutoScheduler.SKETCH, AutoScheduler.RULES);
    String knob =
        v.keySet().stream().filter(n -> n.endsWith(".threads_per_row")).findFirst().orElseThrow();
    v.put(knob, threads);
    v.put(knob.replace("threads_per_row", "stage_rows"), stage);
    return AutoScheduler.generate(target, List.of(out), Knobs.configured(v));
  }

  static Stream<Arguments> cases() {
    return cases(Target.OPENCL);
  }

  /** The cases, scheduled for {@code target} (CUDA: {@link CrossThreadCudaTest}). */
  static Stream<Arguments> cases(Target target) {
    List<Arguments> out = new ArrayList<>();
    long[][] shapes = {{37, 1000}, {3, 5}, {1, 4097}};
    int[] threads = {32, 128, 256};
    for (String name : List.of("softmax", "layer_norm", "l2")) {
      for (int s = 0; s < shapes.length; s++) {
        int t = threads[(s + name.length()) % threads.length];
        out.add(
            Arguments.of(
                name + "_" + shapes[s][0] + "x" + shapes[s][1] + "_t" + t + "_stage" + s % 2,
                withThreads(target, op(name, shapes[s][0], shapes[s][1]), t, s % 2)));
      }
    }
    out.add(
        Arguments.of(
            "softmax_37x1000_pick",
            AutoScheduler.untuned(target, List.of(op("softmax", 37, 1000)))));
    out.add(Arguments.of("reduction_chain_pick", AutoScheduler.untuned(target, List.of(chain()))));
    return out.stream();
  }

  /** {@code y = sum_k x[i, k]; z = max_i y[i]; w = sum z}: three kernels, two temporaries. */
  static Tensor chain() {
    Tensor x = placeholder("X", FLOAT32, 37, 100);
    IterVar k = TE.reduceAxis(100, "k");
    Tensor y = TE.compute("Y", TE.shape(37), i -> TE.sum(x.at(i, k.var()), k));
    IterVar r = TE.reduceAxis(37, "r");
    Tensor z = TE.compute("Z", TE.shape(1), i -> TE.max(y.at(r.var()), r));
    IterVar r2 = TE.reduceAxis(1, "r2");
    return TE.compute("W", TE.shape(1), i -> TE.sum(z.at(r2.var()), r2));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void matchesTheOracle(String name, Schedule s) {
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    assertThat(OracleCheck.check(device, s, args, "ct_" + name)).isNull();
  }
}
