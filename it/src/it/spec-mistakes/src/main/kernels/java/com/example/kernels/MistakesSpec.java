package com.example.kernels;

import static dev.kernelgen.te.TE.*;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.List;

/** Three mistakes, one per operator, and an operator without any. */
@KernelLibrary(name = "MistakeKernels", targets = {Target.JAVA})
public final class MistakesSpec {
  /** Mistake 1: the reduce axis k2 is read outside the sum that binds k. */
  @Operator
  public static OperatorDef rowSum() {
    Var m = var("m"), n = var("n");
    Tensor x = placeholder("x", FLOAT32, m, n);
    IterVar k = reduceAxis(n, "k");
    IterVar k2 = reduceAxis(n, "k2");
    Tensor s = compute("s", shape(m), i -> sum(x.at(i, k.var()), k));
    return OperatorDef.of(List.of(x), compute("rowSum", shape(m), i -> s.at(i).add(x.at(i, k2.var()))));
  }

  /** Mistake 2: a dim that is not a lower-case identifier. */
  @Operator
  public static OperatorDef scale() {
    Var n = var("N");
    Tensor x = placeholder("x", FLOAT32, n);
    return OperatorDef.of(List.of(x), compute("y", shape(n), i -> x.at(i).mul(2f)));
  }

  /** Mistake 3: a 2-d tensor read with one index. */
  @Operator
  public static OperatorDef addRow() {
    Var n = var("n");
    Tensor a = placeholder("a", FLOAT32, n);
    Tensor b = placeholder("b", FLOAT32, n, n);
    return OperatorDef.of(List.of(a, b), compute("c", shape(n), i -> a.at(i).add(b.at(i))));
  }

  @Operator
  public static OperatorDef fine() {
    Var n = var("n");
    Tensor a = placeholder("a", FLOAT32, n);
    return OperatorDef.of(List.of(a), compute("b", shape(n), i -> a.at(i).add(1f)));
  }
}
