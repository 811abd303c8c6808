package it;

import static dev.kernelgen.te.TE.*;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.ScheduleFor;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.List;

@KernelLibrary(name = "IncKernels", targets = {Target.JAVA})
public final class IncSpec {
  @Operator(specialize = "n=16")
  public static OperatorDef scaleAdd() {
    Var n = var("n");
    Tensor x = placeholder("x", FLOAT32, n);
    Tensor y = placeholder("y", FLOAT32, n);
    return OperatorDef.of(List.of(x, y), compute("z", shape(n), i -> x.at(i).mul(2f).add(y.at(i))));
  }
}
