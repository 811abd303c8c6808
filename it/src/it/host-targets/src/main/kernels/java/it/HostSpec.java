package it;

import static dev.kernelgen.te.TE.*;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.ScheduleFor;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.List;

@KernelLibrary(name = "HostKernels", targets = {Target.C, Target.JAVA})
public final class HostSpec {
  @Operator(specialize = "n=16")
  public static OperatorDef scaleAdd() {
    Var n = var("n");
    Tensor x = placeholder("x", FLOAT32, n);
    Tensor y = placeholder("y", FLOAT32, n);
    return OperatorDef.of(List.of(x, y), compute("z", shape(n), i -> x.at(i).mul(2f).add(y.at(i))));
  }

  @Operator
  public static OperatorDef rowSum() {
    Var m = var("m");
    Var n = var("n");
    Tensor x = placeholder("x", FLOAT32, m, n);
    IterVar k = reduceAxis(n, "k");
    return OperatorDef.of(List.of(x), compute("s", shape(m), i -> sum(x.at(i, k.var()), k)));
  }

  @ScheduleFor(operator = "rowSum", targets = {Target.C})
  public static void cpu(Schedule s, OperatorDef op, Knobs knobs) {
    var st = s.stage(op.output());
    st.parallel(st.axis(0));
  }
}
