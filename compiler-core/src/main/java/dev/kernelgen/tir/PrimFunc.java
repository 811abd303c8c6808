package dev.kernelgen.tir;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Var;
import java.util.List;

/**
 * A lowered function: buffer parameters (the operator's input tensors, then its outputs), the
 * symbolic dims as scalar parameters, and the body.
 */
public record PrimFunc(String name, List<Buffer> params, List<Var> scalars, Stmt body) {
  public PrimFunc {
    params = List.copyOf(params);
    scalars = List.copyOf(scalars);
  }

  public PrimFunc withBody(Stmt newBody) {
    return newBody == body ? this : new PrimFunc(name, params, scalars, newBody);
  }

  @Override
  public String toString() {
    return IRPrinter.print(this);
  }
}
