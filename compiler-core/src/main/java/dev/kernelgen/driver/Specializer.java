package dev.kernelgen.driver;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.PlaceholderOp;
import dev.kernelgen.te.Range;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rebuilds an operator's graph with some symbolic dims replaced by constants: the specialized
 * kernels of {@code @Operator(specialize = ...)}. Every operation is rebuilt, producers first, with
 * fresh axes whose extents are substituted and simplified, so that bound inference and the
 * simplifier see the constants (and drop the guards they make provably true).
 */
final class Specializer {
  private final Map<Var, Expr> dims = new HashMap<>();
  private final Map<Tensor, Tensor> tensors = new IdentityHashMap<>();

  private Specializer(Map<Var, Long> values) {
    for (var e : values.entrySet()) {
      dims.put(e.getKey(), IntImm.of(e.getKey().dtype(), e.getValue()));
    }
  }

  /** {@code op} with the given dims replaced by their values. */
  static OperatorDef specialize(OperatorDef op, Map<Var, Long> values) {
    Specializer s = new Specializer(values);
    for (Tensor t : op.graph()) {
      s.rebuild(t);
    }
    List<Tensor> in = new ArrayList<>();
    for (Tensor t : op.inputs()) {
      in.add(s.tensors.get(t));
    }
    List<Tensor> out = new ArrayList<>();
    for (Tensor t : op.outputs()) {
      out.add(s.tensors.get(t));
    }
    return OperatorDef.of(in, out);
  }

  private void rebuild(Tensor t) {
    switch (t.op()) {
      case PlaceholderOp p -> tensors.put(t, TE.placeholder(p.name(), p.dtype(), subst(p.shape())));
      case ComputeOp c -> {
        Map<Var, Expr> local = new HashMap<>(dims);
        List<IterVar> axis = new ArrayList<>();
        for (IterVar iv : c.axis()) {
          IterVar n = fresh(iv);
          local.put(iv.var(), n.var());
          axis.add(n);
        }
        Map<IterVar, IterVar> reduceAxes = new IdentityHashMap<>();
        for (IterVar iv : c.reduceAxis()) {
          IterVar n = fresh(iv);
          local.put(iv.var(), n.var());
          reduceAxes.put(iv, n);
        }
        Expr body = new Rewriter(local, reduceAxes).mutate(c.body());
        tensors.put(t, new ComputeOp(c.name(), axis, body, c.tag()).output());
      }
    }
  }

  private IterVar fresh(IterVar iv) {
    Range r = iv.dom();
    Range n = new Range(subst(r.min()), subst(r.extent()));
    return new IterVar(new Var(iv.var().name(), iv.var().dtype()), n, iv.kind());
  }

  private Expr subst(Expr e) {
    return Simplifier.simplify(dev.kernelgen.te.Substitute.apply(e, dims));
  }

  private List<Expr> subst(List<Expr> shape) {
    List<Expr> out = new ArrayList<>();
    for (Expr e : shape) {
      out.add(subst(e));
    }
    return out;
  }

  /** Substitutes variables and redirects reads to the rebuilt tensors. */
  private final class Rewriter extends ExprMutator {
    private final Map<Var, Expr> vars;
    private final Map<IterVar, IterVar> reduceAxes;

    Rewriter(Map<Var, Expr> vars, Map<IterVar, IterVar> reduceAxes) {
      this.vars = vars;
      this.reduceAxes = reduceAxes;
    }

    @Override
    public Expr mutate(Expr e) {
      return switch (e) {
        case Var v -> vars.getOrDefault(v, v);
        case TensorRead r -> {
          Tensor t = tensors.get(r.tensor());
          CompilerBug.check(t != null, "specialize: %s read before it was rebuilt", r.tensor());
          yield TensorRead.of(t, mutateAll(r.indices()));
        }
        case Reduce r -> {
          List<IterVar> axes = new ArrayList<>();
          for (IterVar iv : r.axes()) {
            IterVar n = reduceAxes.get(iv);
            CompilerBug.check(n != null, "specialize: reduce axis %s is not the op's", iv);
            axes.add(n);
          }
          yield new Reduce(r.combiner(), mutate(r.source()), axes, mutate(r.condition()));
        }
        default -> mutateChildren(e);
      };
    }
  }
}
