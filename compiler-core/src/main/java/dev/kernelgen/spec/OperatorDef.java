package dev.kernelgen.spec;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.PlaceholderOp;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorGraph;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * An operator as a spec declares it: its input placeholders and its output tensors. The launcher
 * method takes the inputs, then the outputs, in this order and with these names; the symbolic dims
 * of their shapes are bound from the actual tensors at launch time.
 */
public final class OperatorDef {
  private final List<Tensor> inputs;
  private final List<Tensor> outputs;

  private OperatorDef(List<Tensor> inputs, List<Tensor> outputs) {
    this.inputs = List.copyOf(inputs);
    this.outputs = List.copyOf(outputs);
    UserError.check(!outputs.isEmpty(), "an operator needs at least one output");
    Set<String> names = new HashSet<>();
    for (Tensor t : this.inputs) {
      UserError.check(
          t.op() instanceof PlaceholderOp,
          "input '%s' is computed, not a placeholder: declare inputs with placeholder(...)",
          t.name());
      UserError.check(names.add(t.name()), "two arguments are named '%s'", t.name());
    }
    for (Tensor t : this.outputs) {
      UserError.check(
          !(t.op() instanceof PlaceholderOp),
          "output '%s' is a placeholder: an operator must compute its outputs",
          t.name());
      UserError.check(names.add(t.name()), "two arguments are named '%s'", t.name());
    }
    List<Tensor> reached = TensorGraph.producersFirst(this.outputs);
    for (Tensor t : reached) {
      UserError.check(
          !(t.op() instanceof PlaceholderOp) || this.inputs.contains(t),
          "the outputs read placeholder '%s', which is not among the inputs %s",
          t.name(),
          this.inputs);
    }
    for (Tensor t : this.inputs) {
      UserError.check(
          reached.contains(t), "input '%s' is not read by any output %s", t.name(), this.outputs);
    }
  }

  /** An operator of {@code inputs} computing {@code outputs}. */
  public static OperatorDef of(List<Tensor> inputs, Tensor... outputs) {
    return new OperatorDef(inputs, Arrays.asList(outputs));
  }

  /** An operator of {@code inputs} computing {@code outputs}. */
  public static OperatorDef of(List<Tensor> inputs, List<Tensor> outputs) {
    return new OperatorDef(inputs, outputs);
  }

  public List<Tensor> inputs() {
    return inputs;
  }

  public List<Tensor> outputs() {
    return outputs;
  }

  /** The only output; a user error when there are several. */
  public Tensor output() {
    UserError.check(
        outputs.size() == 1, "the operator has %d outputs %s, not one", outputs.size(), outputs);
    return outputs.get(0);
  }

  /** The inputs, then the outputs: the launcher's parameters and the kernels' buffers. */
  public List<Tensor> args() {
    List<Tensor> a = new ArrayList<>(inputs);
    a.addAll(outputs);
    return a;
  }

  /** The input named {@code name}. */
  public Tensor input(String name) {
    for (Tensor t : inputs) {
      if (t.name().equals(name)) {
        return t;
      }
    }
    throw new UserError("the operator has no input '" + name + "' (inputs: " + inputs + ")");
  }

  /** Any tensor of the operator's graph (input, intermediate stage, output) by name. */
  public Tensor tensor(String name) {
    List<Tensor> found = new ArrayList<>();
    for (Tensor t : graph()) {
      if (t.name().equals(name)) {
        found.add(t);
      }
    }
    UserError.check(
        !found.isEmpty(), "the operator has no tensor '%s' (tensors: %s)", name, graph());
    UserError.check(
        found.size() == 1, "the operator has %d tensors named '%s'", found.size(), name);
    return found.get(0);
  }

  /** Every tensor of the graph, producers before consumers. */
  public List<Tensor> graph() {
    return TensorGraph.producersFirst(outputs);
  }

  /** The symbolic dims of the arguments' shapes, in order of first appearance. */
  public List<Var> dims() {
    Set<Var> vars = new LinkedHashSet<>();
    for (Tensor t : args()) {
      for (Expr d : t.shape()) {
        vars.addAll(FreeVars.of(d));
      }
    }
    return List.copyOf(vars);
  }

  @Override
  public String toString() {
    return "OperatorDef" + inputs + " -> " + outputs;
  }
}
