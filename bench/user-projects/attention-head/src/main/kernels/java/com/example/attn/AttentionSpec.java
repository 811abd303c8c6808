package com.example.attn;

import static dev.kernelgen.te.TE.*;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.topi.Topi;
import java.util.List;

/** One head of self-attention, written with the operator library and no schedule. */
@KernelLibrary(
    name = "AttentionKernels",
    targets = {Target.CUDA, Target.OPENCL, Target.C, Target.JAVA})
public final class AttentionSpec {
  static final int HEAD = 64;

  /** softmax(q k^T / sqrt(64)) v over a sequence of any length; tuned at 256. */
  @Operator(specialize = "seq=256")
  public static OperatorDef attention() {
    Var seq = var("seq");
    Tensor q = placeholder("q", FLOAT32, seq, HEAD);
    Tensor k = placeholder("k", FLOAT32, seq, HEAD);
    Tensor v = placeholder("v", FLOAT32, seq, HEAD);
    Tensor scores = Topi.scale(Topi.dense(q, k), 1.0 / Math.sqrt(HEAD));
    Tensor weights = Topi.softmax(scores, 1);
    return OperatorDef.of(List.of(q, k, v), Topi.matmul(weights, v));
  }
}
