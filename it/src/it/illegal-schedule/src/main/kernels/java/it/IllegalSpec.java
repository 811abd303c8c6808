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

@KernelLibrary(name = "IllegalKernels", targets = {Target.C})
public final class IllegalSpec {
  @Operator
  public static OperatorDef total() {
    Var n = var("n");
    Tensor a = placeholder("a", FLOAT32, n, 4);
    IterVar k = reduceAxis(4, "k");
    return OperatorDef.of(List.of(a), compute("t", shape(n), i -> sum(a.at(i, k.var()), k)));
  }

  @ScheduleFor(operator = "total", targets = {Target.C})
  public static void cpu(Schedule s, OperatorDef op, Knobs knobs) {
    var st = s.stage(op.output());
    st.parallel(st.reduceAxis(0));
  }
}
