package dev.kernelgen.fusion;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.Fusion;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Reduction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fusion rules in kernel counts: how many GPU kernels an operator built from several library
 * operators becomes, and that the fused CPU schedule of the same graph still equals the oracle.
 */
class FusionKernelCountTest {
  private static int kernels(Target t, Tensor out) {
    Schedule s = Fusion.schedule(t, List.of(out));
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.add(out);
    return Fusion.kernelCount(s, args, t);
  }

  private static void checkCpu(Tensor out) {
    Check.check(Fusion.schedule(Target.C, List.of(out)), Map.of());
  }

  @ParameterizedTest
  @EnumSource(
      value = Target.class,
      names = {"CUDA", "OPENCL"})
  void depthwiseScaleShiftReluIsOneKernel(Target t) {
    Tensor in = placeholder("Input", FLOAT32, 1, 4, 13, 11);
    Tensor f = placeholder("Filter", FLOAT32, 4, 1, 3, 3);
    Tensor scale = placeholder("Scale", FLOAT32, 4);
    Tensor shift = placeholder("Shift", FLOAT32, 4);
    Tensor conv = Nn.depthwiseConv2dNchw(in, f, 1, 1, Padding.same(13, 11, 3, 3, 1, 1, 1), 1);
    Tensor out = Elementwise.relu(Elementwise.scaleShift(conv, scale, shift, 1));
    assertThat(kernels(t, out)).isEqualTo(1);
    checkCpu(out);
  }

  @ParameterizedTest
  @EnumSource(
      value = Target.class,
      names = {"CUDA", "OPENCL"})
  void conv2dBiasReluIsOneKernel(Target t) {
    Tensor in = placeholder("Input", FLOAT32, 2, 3, 9, 7);
    Tensor f = placeholder("Filter", FLOAT32, 5, 3, 3, 3);
    Tensor bias = placeholder("Bias", FLOAT32, 5, 1, 1);
    Tensor conv = Conv.conv2dNchw(in, f, 1, 1, Padding.same(9, 7, 3, 3, 1, 1, 1), 1);
    Tensor out = Elementwise.relu(Elementwise.add(conv, bias));
    assertThat(kernels(t, out)).isEqualTo(1);
    checkCpu(out);
  }

  @ParameterizedTest
  @EnumSource(
      value = Target.class,
      names = {"CUDA", "OPENCL"})
  void fiveElementwiseOpsAreOneKernel(Target t) {
    Tensor x = placeholder("X", FLOAT32, 3, 17, 5);
    Tensor y = placeholder("Y", FLOAT32, 17, 5);
    Tensor out =
        Elementwise.tanh(
            Elementwise.sigmoid(Elementwise.relu6(Elementwise.mul(Elementwise.add(x, y), y))));
    assertThat(kernels(t, out)).isEqualTo(1);
    checkCpu(out);
  }

  /**
   * Softmax has two reductions (the row maximum and the sum of exponentials); both are read only by
   * the output, at the row's index, so both are computed in local memory per row by the output's
   * thread: one kernel.
   */
  @ParameterizedTest
  @EnumSource(
      value = Target.class,
      names = {"CUDA", "OPENCL"})
  void softmaxIsOneKernel(Target t) {
    Tensor x = placeholder("X", FLOAT32, 9, 37);
    assertThat(kernels(t, Reduction.softmax(x, 1))).isEqualTo(1);
    assertThat(kernels(t, Reduction.logSoftmax(x, 1))).isEqualTo(1);
    checkCpu(Reduction.softmax(x, 1));
  }

  /** The lane-split softmax with its block-per-row schedule: four reductions, one kernel. */
  @ParameterizedTest
  @EnumSource(
      value = Target.class,
      names = {"CUDA", "OPENCL"})
  void softmaxLanesIsOneKernel(Target t) {
    Tensor x = placeholder("X", FLOAT32, 9, 37);
    Tensor out = Reduction.softmaxLanes(x, 16);
    Schedule s = dev.kernelgen.topi.OpSchedules.softmaxLanesGpu(out);
    assertThat(Fusion.kernelCount(s, List.of(x, out), t)).isEqualTo(1);
  }

  /**
   * A reduction over everything read by an elementwise stage cannot be computed per thread of the
   * consumer (no loop of the consumer fixes its index): two kernels.
   */
  @ParameterizedTest
  @EnumSource(
      value = Target.class,
      names = {"CUDA", "OPENCL"})
  void globalSumThenScaleIsTwoKernels(Target t) {
    Tensor x = placeholder("X", FLOAT32, 9, 37);
    Tensor s = Reduction.sum(x, true);
    Tensor out = Elementwise.div(x, s);
    assertThat(kernels(t, out)).isEqualTo(2);
    checkCpu(out);
    // Beside a row reduction that fuses, the global sum still gets its own kernel rather than
    // being recomputed for every row.
    Tensor rowMax = Reduction.max(x, true, 1);
    Tensor both = Elementwise.sub(Elementwise.div(x, s), rowMax);
    assertThat(kernels(t, both)).isEqualTo(2);
    checkCpu(both);
  }
}
