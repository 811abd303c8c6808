package dev.kernelgen.maven.launcher;

import static dev.kernelgen.maven.launcher.RuntimeTypes.DATA_TYPE;
import static dev.kernelgen.maven.launcher.RuntimeTypes.LAUNCHERS;

import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.driver.LibraryModel.Argument;
import dev.kernelgen.driver.LibraryModel.Build;
import dev.kernelgen.driver.LibraryModel.Kernel;
import dev.kernelgen.driver.LibraryModel.Operator;
import dev.kernelgen.driver.LibraryModel.Param;
import dev.kernelgen.driver.LibraryModel.Requirement;
import dev.kernelgen.driver.LibraryModel.Variant;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprPrinter;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.lang.model.element.Modifier;

/**
 * An operator's shape checks: {@code <op>Dims} checks the inputs' dtypes and ranks, binds each dim
 * to the first input axis it is the extent of (a 32-bit dim must fit an {@code int}), checks the
 * other axes against the dims and the conditions its reads need of them (a broadcast over dims
 * written apart: {@code LibraryModel.Requirement}) and returns them; {@code <op>CheckOutputs}
 * checks the outputs against the shapes the dims imply.
 */
final class ShapeChecks {
  private final Operator op;
  private final OperatorNames names;

  /** For each dim: where it is bound (argument index, axis). */
  private final Map<String, int[]> binding = new LinkedHashMap<>();

  /**
   * @throws UserError when a dim is no input's extent, so that no launch could infer it
   */
  ShapeChecks(Operator op, OperatorNames names) {
    this.op = op;
    this.names = names;
    for (int k = 0; k < op.inputs().size(); k++) {
      List<Expr> shape = op.inputs().get(k).shape();
      for (int ax = 0; ax < shape.size(); ax++) {
        if (shape.get(ax) instanceof Var v) {
          binding.putIfAbsent(v.name(), new int[] {k, ax});
        }
      }
    }
    for (String d : op.dims()) {
      if (!binding.containsKey(d)) {
        throw new UserError(
            "operator '"
                + op.name()
                + "': dim '"
                + d
                + "' is not the extent of any input's axis, so the launcher cannot infer it"
                + " from the inputs; make it one");
      }
    }
  }

  /** The call of {@code <op>Dims} on the inputs' dtypes and shapes. */
  CodeBlock dimsCall() {
    return CodeBlock.of(
        "$N($L)",
        names.dimsMethod,
        names.inputs.stream()
            .map(n -> n + ".dtype(), " + n + ".shape()")
            .collect(Collectors.joining(", ")));
  }

  /** The call of {@code <op>CheckOutputs} on the dims and the outputs' dtypes and shapes. */
  CodeBlock checkOutputsCall() {
    return CodeBlock.of(
        "$N($N, $L)",
        names.checkOutputsMethod,
        names.dims,
        names.outputs.stream()
            .map(n -> n + ".dtype(), " + n + ".shape()")
            .collect(Collectors.joining(", ")));
  }

  /** Declares the dims the expressions use, from the dims array. */
  void bindDims(MethodSpec.Builder m, List<Expr> exprs) {
    Set<String> used = new LinkedHashSet<>();
    for (Expr e : exprs) {
      for (Var v : FreeVars.of(e)) {
        used.add(v.name());
      }
    }
    for (int i = 0; i < op.dims().size(); i++) {
      String d = op.dims().get(i);
      if (used.contains(d)) {
        m.addStatement("long $N = $N[$L]", names.dimLocals.get(d), names.dims, i);
      }
    }
  }

  MethodSpec dimsMethod() {
    MethodSpec.Builder m =
        MethodSpec.methodBuilder(names.dimsMethod)
            .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
            .returns(long[].class);
    for (int k = 0; k < op.inputs().size(); k++) {
      m.addParameter(DATA_TYPE, names.inputTypes.get(k));
      m.addParameter(long[].class, names.inputs.get(k));
    }
    for (int k = 0; k < op.inputs().size(); k++) {
      check(m, op.inputs().get(k), names.inputs.get(k), names.inputTypes.get(k));
    }
    for (var e : binding.entrySet()) {
      String local = names.dimLocals.get(e.getKey());
      String src = names.inputs.get(e.getValue()[0]) + "[" + e.getValue()[1] + "]";
      if (dimType(e.getKey()) == DType.INT64) {
        m.addStatement("long $N = $L", local, src);
      } else {
        m.addStatement(
            "long $N = $T.int32Dim($S, $S, $L)", local, LAUNCHERS, op.name(), e.getKey(), src);
      }
    }
    for (int k = 0; k < op.inputs().size(); k++) {
      List<Expr> shape = op.inputs().get(k).shape();
      for (int ax = 0; ax < shape.size(); ax++) {
        Expr d = shape.get(ax);
        if (d instanceof Var v && binding.get(v.name())[0] == k && binding.get(v.name())[1] == ax) {
          continue;
        }
        checkDim(m, names.inputs.get(k), ax, d);
      }
    }
    for (Requirement q : op.requirements()) {
      StringBuilder values = new StringBuilder();
      for (Var v : FreeVars.of(q.holds())) {
        values.append(", \"").append(v.name()).append("\", ").append(names.dimLocals.get(v.name()));
      }
      m.addStatement(
          "$T.require($S, $L, $S$L)",
          LAUNCHERS,
          op.name(),
          JavaExpr.print(q.holds(), names.dimLocals),
          q.what(),
          values);
    }
    m.addStatement(
        "return new long[] {$L}",
        op.dims().stream().map(names.dimLocals::get).collect(Collectors.joining(", ")));
    return m.build();
  }

  MethodSpec checkOutputsMethod() {
    MethodSpec.Builder m =
        MethodSpec.methodBuilder(names.checkOutputsMethod)
            .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
            .addParameter(long[].class, names.dims);
    for (int k = 0; k < op.outputs().size(); k++) {
      m.addParameter(DATA_TYPE, names.outputTypes.get(k));
      m.addParameter(long[].class, names.outputs.get(k));
    }
    List<Expr> all = new ArrayList<>();
    op.outputs().forEach(a -> all.addAll(a.shape()));
    bindDims(m, all);
    for (int k = 0; k < op.outputs().size(); k++) {
      Argument a = op.outputs().get(k);
      String n = names.outputs.get(k);
      check(m, a, n, names.outputTypes.get(k));
      for (int ax = 0; ax < a.shape().size(); ax++) {
        checkDim(m, n, ax, a.shape().get(ax));
      }
    }
    return m.build();
  }

  /** Checks an argument's dtype and rank. */
  private void check(MethodSpec.Builder m, Argument a, String name, String type) {
    m.addStatement(
        "$T.check($S, $S, $N, $N, $T.$L, $L)",
        LAUNCHERS,
        op.name(),
        name,
        type,
        name,
        DATA_TYPE,
        a.dtype().name(),
        a.shape().size());
  }

  private void checkDim(MethodSpec.Builder m, String arg, int ax, Expr d) {
    m.addStatement(
        "$T.checkDim($S, $S, $N, $L, $L, $S)",
        LAUNCHERS,
        op.name(),
        arg,
        arg,
        ax,
        JavaExpr.print(d, names.dimLocals),
        ExprPrinter.print(d));
  }

  /** A dim's dtype as the first kernel taking it declares it; 32-bit where none takes it. */
  private DType dimType(String dim) {
    for (Variant v : op.variants()) {
      for (Build b : v.builds().values()) {
        for (Kernel k : b.kernels()) {
          for (Param p : k.params()) {
            if (p instanceof Param.Dim && p.name().equals(dim)) {
              return p.dtype();
            }
          }
        }
      }
    }
    return DType.INT32;
  }
}
