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

@KernelLibrary(name = "ThrowingKernels", targets = {Target.JAVA})
public final class ThrowingSpec {
  @Operator
  public static OperatorDef broken() {
    Var n = var("n");
    Tensor x = placeholder("x", FLOAT32, n);
    Tensor m = placeholder("m", FLOAT32, n, n);
    // Reads a 2-d tensor with one index: the DSL rejects it.
    return OperatorDef.of(List.of(x, m), compute("y", shape(n), i -> x.at(i).add(m.at(i))));
  }
}
