package it;

import static dev.kernelgen.te.TE.*;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.ScheduleFor;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.topi.DepthwiseSchedules;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import java.util.List;

@KernelLibrary(name = "TunedKernels", targets = {Target.C, Target.OPENCL, Target.JAVA})
public final class TunedSpec {
  @Operator(specialize = "n=8192")
  public static OperatorDef scaleAdd() {
    Var n = var("n");
    Tensor x = placeholder("x", FLOAT32, n);
    Tensor y = placeholder("y", FLOAT32, n);
    return OperatorDef.of(List.of(x, y), compute("z", shape(n), i -> x.at(i).mul(2f).add(y.at(i))));
  }

  /** The seed article's thread-pair search, on a small [1, 8, 32, 32] depthwise convolution. */
  @Operator
  public static OperatorDef depthwise() {
    Tensor in = placeholder("Input", FLOAT32, 1, 8, 32, 32);
    Tensor filter = placeholder("Filter", FLOAT32, 8, 1, 3, 3);
    Tensor conv =
        Nn.depthwiseConv2dNchw(in, filter, 1, 1, new Padding(1, 1, 1, 1), 1);
    return OperatorDef.of(List.of(in, filter), conv);
  }

  @ScheduleFor(operator = "depthwise", targets = {Target.OPENCL})
  public static Schedule depthwiseGpu(OperatorDef op, Knobs knobs) {
    int ty = knobs.knob("threads_y", 8, 2, 4);
    int tx = knobs.knob("threads_x", 8, 2, 4);
    return DepthwiseSchedules.gpu(
        op.output(), op.output(), new DepthwiseSchedules.GpuConfig(32, 32, ty, tx, 1, 1));
  }

  @ScheduleFor(operator = "scaleAdd", targets = {Target.C})
  public static void cpu(Schedule s, OperatorDef op, Knobs knobs) {
    var st = s.stage(op.output());
    int v = knobs.knob("vector", 4, 8, 16);
    var sp = st.split(st.axis(0), v);
    st.vectorize(sp.inner());
  }
}
