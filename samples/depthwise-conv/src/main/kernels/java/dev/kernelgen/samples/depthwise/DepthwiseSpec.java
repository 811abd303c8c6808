package dev.kernelgen.samples.depthwise;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.ScheduleFor;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.topi.DepthwiseSchedules;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import java.util.List;

/**
 * The seed article's operators: a 3x3 depthwise convolution (stride 1, SAME padding) over an NCHW
 * batch of one, alone and fused with a per-channel scale_shift and relu. Any channel count and
 * image size run; the seed's 256 channels of 96x96, 32x32 and 21x21 also get kernels compiled for
 * exactly those shapes.
 */
@KernelLibrary(
    name = "DepthwiseKernels",
    targets = {Target.CUDA, Target.OPENCL, Target.C, Target.JAVA})
public final class DepthwiseSpec {
  private DepthwiseSpec() {}

  /** The seed's shape: 256 channels of 96x96. */
  static final String SEED = "c=256,h=96,w=96";

  /** The seed's small shapes, where a call's time is the host's (launcher, JCuda, driver). */
  static final String SEED_32 = "c=256,h=32,w=32";

  static final String SEED_21 = "c=256,h=21,w=21";

  @Operator(specialize = {SEED, SEED_32, SEED_21})
  public static OperatorDef depthwise() {
    Var c = var("c");
    Var h = var("h");
    Var w = var("w");
    Tensor input = placeholder("input", FLOAT32, 1, c, h, w);
    Tensor filter = placeholder("filter", FLOAT32, c, 1, 3, 3);
    Tensor output = Nn.depthwiseConv2dNchw(input, filter, 1, 1, new Padding(1, 1, 1, 1), 1);
    return OperatorDef.of(List.of(input, filter), output);
  }

  @Operator(specialize = {SEED, SEED_32, SEED_21})
  public static OperatorDef depthwiseScaleShiftRelu() {
    Var c = var("c");
    Var h = var("h");
    Var w = var("w");
    Tensor input = placeholder("input", FLOAT32, 1, c, h, w);
    Tensor filter = placeholder("filter", FLOAT32, c, 1, 3, 3);
    Tensor scale = placeholder("scale", FLOAT32, c);
    Tensor shift = placeholder("shift", FLOAT32, c);
    Tensor conv = Nn.depthwiseConv2dNchw(input, filter, 1, 1, new Padding(1, 1, 1, 1), 1);
    Tensor output = Nn.relu(Nn.scaleShift(conv, scale, shift));
    return OperatorDef.of(List.of(input, filter, scale, shift), output);
  }

  /**
   * The seed's GPU schedule: output tiles per block, input and filter tiles in shared memory. The
   * default threads per block (16x16) are what the search in bench/gpu.sh picks most often on an
   * H200; the article's 8x8 is among the choices.
   */
  @ScheduleFor(
      operator = "depthwise",
      targets = {Target.CUDA, Target.OPENCL})
  public static Schedule gpu(OperatorDef op, Knobs knobs) {
    return gpuSchedule(op, op.output(), knobs);
  }

  @ScheduleFor(
      operator = "depthwiseScaleShiftRelu",
      targets = {Target.CUDA, Target.OPENCL})
  public static Schedule gpuFused(OperatorDef op, Knobs knobs) {
    return gpuSchedule(op, op.tensor("DepthwiseConv2d"), knobs);
  }

  /**
   * The seed article's thread-pair search: its [1, 256, 32, 32] depthwise convolution with 32x32
   * output blocks, and the threads per block (y, x) as the only two knobs, each 1 to 32. {@code
   * kernels:tune} measures the 36 pairs on the GPU present and prints them as the article's table.
   */
  @Operator
  public static OperatorDef depthwiseThreadPairs() {
    Tensor input = placeholder("input", FLOAT32, 1, 256, 32, 32);
    Tensor filter = placeholder("filter", FLOAT32, 256, 1, 3, 3);
    Tensor output = Nn.depthwiseConv2dNchw(input, filter, 1, 1, new Padding(1, 1, 1, 1), 1);
    return OperatorDef.of(List.of(input, filter), output);
  }

  @ScheduleFor(
      operator = "depthwiseThreadPairs",
      targets = {Target.CUDA, Target.OPENCL})
  public static Schedule threadPairs(OperatorDef op, Knobs knobs) {
    return DepthwiseSchedules.gpu(
        op.output(),
        op.output(),
        new DepthwiseSchedules.GpuConfig(
            32,
            32,
            knobs.knob("threads_y", 8, 1, 2, 4, 16, 32),
            knobs.knob("threads_x", 8, 1, 2, 4, 16, 32),
            1,
            1));
  }

  /**
   * Plane-parallel CPU schedule with vectorized rows, each filter row a pass over the row (C); the
   * Java target runs the same loops with the whole window in one pass (its parallel loop becomes a
   * parallel stream).
   */
  @ScheduleFor(operator = "depthwise", targets = Target.C)
  public static Schedule cpu(OperatorDef op, Knobs knobs) {
    return DepthwiseSchedules.cpu(
        op.output(), op.output(), knobs.knob("vector", 0, 8, 16), Target.C);
  }

  @ScheduleFor(operator = "depthwise", targets = Target.JAVA)
  public static Schedule java(OperatorDef op, Knobs knobs) {
    return DepthwiseSchedules.cpu(
        op.output(), op.output(), knobs.knob("vector", 0, 8, 16), Target.JAVA);
  }

  @ScheduleFor(operator = "depthwiseScaleShiftRelu", targets = Target.C)
  public static Schedule cpuFused(OperatorDef op, Knobs knobs) {
    return DepthwiseSchedules.cpu(
        op.tensor("DepthwiseConv2d"), op.output(), knobs.knob("vector", 0, 8, 16), Target.C);
  }

  @ScheduleFor(operator = "depthwiseScaleShiftRelu", targets = Target.JAVA)
  public static Schedule javaFused(OperatorDef op, Knobs knobs) {
    return DepthwiseSchedules.cpu(
        op.tensor("DepthwiseConv2d"), op.output(), knobs.knob("vector", 0, 8, 16), Target.JAVA);
  }

  private static Schedule gpuSchedule(OperatorDef op, Tensor conv, Knobs knobs) {
    // Shared-memory tiles need constant sizes: the tiled schedule is for the specialized shape;
    // the generic kernels (any c, h, w) take the direct schedule, whose registers per thread
    // depend only on the rows per thread and the filter.
    if (!(op.input("input").shape().get(2) instanceof IntImm)) {
      return DepthwiseSchedules.gpuDirect(
          conv,
          op.output(),
          new DepthwiseSchedules.DirectConfig(
              knobs.knob("rows", 4, 2, 8), 4, knobs.knob("threads_x", 32, 64), true));
    }
    DepthwiseSchedules.GpuConfig cfg =
        new DepthwiseSchedules.GpuConfig(
            knobs.knob("block_h", 32, 16, 8),
            knobs.knob("block_w", 32, 16, 64),
            knobs.knob("threads_y", 16, 8, 4, 32),
            knobs.knob("threads_x", 16, 8, 4, 32),
            knobs.knob("vthreads_y", 1, 2),
            knobs.knob("vthreads_x", 1, 2));
    return DepthwiseSchedules.gpu(conv, op.output(), cfg);
  }
}
