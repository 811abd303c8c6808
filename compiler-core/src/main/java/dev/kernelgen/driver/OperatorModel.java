package dev.kernelgen.driver;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.driver.LibraryModel.Argument;
import dev.kernelgen.driver.LibraryModel.Param;
import dev.kernelgen.driver.LibraryModel.Temporary;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.ExprPrinter;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.PrimFunc;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * How an operator and its kernels appear in the {@link LibraryModel}: its arguments, its compute
 * expressions, each kernel's parameters, and the global temporaries of symbolic size that the host
 * functions (C, Java) allocate.
 */
final class OperatorModel {
  private OperatorModel() {}

  /**
   * The global buffers of symbolic size in the host functions (C, Java) named {@code fn}: sizes
   * over the operator's dims only, each once.
   */
  static List<Temporary> intermediates(
      Map<Target, List<PrimFunc>> funcs, String fn, List<Var> dims) {
    Map<String, Temporary> out = new LinkedHashMap<>();
    for (Target t : List.of(Target.C, Target.JAVA)) {
      for (PrimFunc f : funcs.getOrDefault(t, List.of())) {
        if (!f.name().equals(fn)) {
          continue;
        }
        new dev.kernelgen.tir.StmtVisitor() {
          @Override
          public void visit(dev.kernelgen.tir.Stmt s) {
            if (s instanceof dev.kernelgen.tir.Allocate a
                && a.buffer().scope() == dev.kernelgen.te.MemoryScope.GLOBAL
                && !(a.size() instanceof dev.kernelgen.te.IntImm)
                && dims.containsAll(dev.kernelgen.te.FreeVars.of(a.size()))) {
              out.putIfAbsent(
                  a.buffer().name() + " " + ExprPrinter.print(a.size()),
                  new Temporary(a.buffer().name(), a.buffer().dtype(), a.size()));
            }
            super.visit(s);
          }
        }.visit(f.body());
      }
    }
    return List.copyOf(out.values());
  }

  static List<Param> params(PrimFunc f) {
    List<Param> out = new ArrayList<>();
    for (Buffer b : f.params()) {
      out.add(new Param.Buffer(b.name(), b.dtype()));
    }
    for (Var v : f.scalars()) {
      out.add(new Param.Dim(v.name(), v.dtype()));
    }
    return out;
  }

  static List<Argument> arguments(List<Tensor> ts) {
    return ts.stream().map(t -> new Argument(t.name(), t.dtype(), t.shape())).toList();
  }

  static List<String> expressions(OperatorDef def) {
    List<String> out = new ArrayList<>();
    for (Tensor t : def.graph()) {
      if (t.op() instanceof ComputeOp c) {
        String axes = c.axis().stream().map(IterVar::name).collect(Collectors.joining(", "));
        out.add(t.name() + "[" + axes + "] = " + ExprPrinter.print(c.body()));
      }
    }
    return out;
  }
}
