package com.example.kernels;

import static dev.kernelgen.te.TE.*;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.topi.Topi;
import java.util.List;

/** A user's operators, with the short annotation names and the library's one entry class. */
@KernelLibrary(name = "LayerKernels", targets = {Target.C, Target.JAVA})
public final class LayerSpec {
  /** y = relu6(x W^T) + bias: the last stage is called Bias, beside the input bias. */
  @Operator
  public static OperatorDef denseBias() {
    Var n = var("n"), units = var("units"); // 16 features in, any number of units out
    Tensor x = placeholder("x", FLOAT32, n, 16);
    Tensor w = placeholder("w", FLOAT32, units, 16);
    Tensor bias = placeholder("bias", FLOAT32, units);
    Tensor act = Topi.relu6(Topi.dense(x, w));
    return OperatorDef.of(
        List.of(x, w, bias), compute("Bias", shape(n, units), (i, j) -> act.at(i, j).add(bias.at(j))));
  }

  /** Row sums: one reduce axis, read inside its reduction. */
  @Operator(specialize = "cols=8")
  public static OperatorDef rowSum() {
    Var rows = var("rows"), cols = var("cols");
    Tensor x = placeholder("x", FLOAT32, rows, cols);
    IterVar k = reduceAxis(cols, "k");
    return OperatorDef.of(List.of(x), compute("sums", shape(rows), i -> sum(x.at(i, k.var()), k)));
  }
}
