package it;

import static dev.kernelgen.te.TE.*;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.Schedule;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
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

  @Schedule(operator = "scaleAdd", targets = {Target.C})
  public static void cpu(dev.kernelgen.schedule.Schedule s, OperatorDef op, Knobs knobs) {
    var st = s.stage(op.output());
    int v = knobs.knob("vector", 4, 8, 16);
    var sp = st.split(st.axis(0), v);
    st.vectorize(sp.inner());
  }
}
