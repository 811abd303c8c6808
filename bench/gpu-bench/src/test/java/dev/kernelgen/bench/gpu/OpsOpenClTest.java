package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.Fusion;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Pooling;
import dev.kernelgen.topi.Reduction;
import dev.kernelgen.topi.Transform;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The operator library's GPU schedules (the fused defaults and the matmul / conv2d / softmax
 * schedules) generated as OpenCL C and run by the OpenCL driver (PoCL in CI), against the oracle,
 * on ragged shapes.
 */
class OpsOpenClTest {
  private static OpenClDevice device;

  @BeforeAll
  static void open() {
    Optional<OpenClDevice> d = Devices.openCl();
    assumeTrue(
        d.isPresent(),
        "no OpenCL device found ("
            + Devices.probe(Target.OPENCL).detail()
            + "); install pocl-opencl-icd and ocl-icd-opencl-dev");
    device = d.get();
  }

  // The device is the process-wide one that Devices probed and caches: closing it here would leave
  // the next OpenCL test class with a released context (a crash inside the driver), so it stays
  // open until the JVM exits.

  static Stream<Arguments> schedules() {
    return schedules(Target.OPENCL);
  }

  /** Every library operator's GPU schedule for {@code target}, on small ragged shapes. */
  static Stream<Arguments> schedules(Target target) {
    Map<String, Schedule> m = new LinkedHashMap<>(OpSchedules.gpuSamples());
    Tensor in = placeholder("Input", FLOAT32, 2, 3, 11, 9);
    Tensor fd = placeholder("Filter", FLOAT32, 3, 2, 3, 3);
    Tensor scale = placeholder("Scale", FLOAT32, 6);
    Tensor shift = placeholder("Shift", FLOAT32, 6);
    Tensor dw = Nn.depthwiseConv2dNchw(in, fd, 2, 2, Padding.same(11, 9, 3, 3, 2, 2, 1), 1);
    m.put(
        "depthwise_scale_shift_relu",
        fused(target, Elementwise.relu(Elementwise.scaleShift(dw, scale, shift, 1))));
    Tensor nhwc = placeholder("InputNhwc", FLOAT32, 2, 11, 9, 3);
    Tensor fh = placeholder("FilterHwcm", FLOAT32, 3, 3, 3, 1);
    m.put(
        "depthwise_nhwc_dilated",
        fused(
            target,
            Conv.depthwiseConv2dNhwc(nhwc, fh, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 2), 2)));
    Tensor x = placeholder("X", FLOAT32, 3, 17, 5);
    Tensor y = placeholder("Y", FLOAT32, 17, 5);
    m.put(
        "five_elementwise",
        fused(
            target,
            Elementwise.tanh(
                Elementwise.sigmoid(
                    Elementwise.relu6(Elementwise.mul(Elementwise.add(x, y), y))))));
    m.put("softmax_fused", fused(target, Reduction.softmax(x, 1)));
    m.put("log_softmax_fused", fused(target, Reduction.logSoftmax(x, 2)));
    m.put("mean_then_div_two_kernels", fused(target, Elementwise.div(x, Reduction.sum(x, true))));
    m.put("max_pool", fused(target, Pooling.maxPool2d(in, 3, 3, 2, 2, new Padding(1, 1, 1, 1))));
    m.put(
        "avg_pool",
        fused(target, Pooling.avgPool2d(in, 3, 3, 1, 1, new Padding(1, 1, 1, 1), false)));
    m.put("global_avg_pool", fused(target, Pooling.globalAvgPool(in)));
    m.put("transpose_relu", fused(target, Elementwise.relu(Transform.nchwToNhwc(in))));
    Tensor ba = placeholder("BA", FLOAT32, 3, 9, 5);
    Tensor bb = placeholder("BB", FLOAT32, 3, 5, 7);
    m.put("batch_matmul", fused(target, Linalg.batchMatmul(ba, bb)));
    Tensor g = placeholder("Gamma", FLOAT32, 3);
    Tensor b = placeholder("Beta", FLOAT32, 3);
    Tensor mean = placeholder("Mean", FLOAT32, 3);
    Tensor var = placeholder("Var", FLOAT32, 3);
    m.put(
        "batch_norm",
        fused(
            target,
            Elementwise.batchNormInference(in, g, b, mean, Elementwise.mul(var, var), 1e-5, 1)));
    Tensor a = placeholder("A", FLOAT32, 37, 29);
    Tensor bm = placeholder("B", FLOAT32, 29, 45);
    Tensor mm = Linalg.matmul(a, bm);
    m.put(
        "matmul_default",
        DefaultSchedules.forTarget(target, OperatorDef.of(List.of(a, bm), mm), Knobs.defaults()));
    return m.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  private static Schedule fused(Target target, Tensor out) {
    return Fusion.schedule(target, List.of(out), 64);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schedules")
  void matchesTheOracle(String name, Schedule s) {
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    assertThat(OracleCheck.check(device, s, args, "op_" + name)).isNull();
  }
}
