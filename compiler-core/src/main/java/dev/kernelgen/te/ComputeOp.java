package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A tensor defined elementwise by an expression over its axes; the body may be a {@link Reduce}
 * over reduce axes, and only at its top.
 */
public final class ComputeOp implements Operation {
  private final String name;
  private final List<IterVar> axis;
  private final Expr body;
  private final String tag;
  private final Tensor output;
  private final List<Tensor> inputs;

  public ComputeOp(String name, List<IterVar> axis, Expr body, String tag) {
    this.name = name;
    this.axis = List.copyOf(axis);
    this.body = body;
    this.tag = tag == null ? "" : tag;
    for (IterVar iv : axis) {
      UserError.check(
          !iv.isReduce(), "compute '%s': axis %s is a reduce axis, not an output axis", name, iv);
    }
    checkReduceOnlyAtTop(name, body);
    checkReduceAxesBound(name, axis, body);
    this.inputs = collectInputs(body);
    this.output = new Tensor(this);
  }

  private static void checkReduceOnlyAtTop(String name, Expr body) {
    Expr inner = body instanceof Reduce r ? r.source() : body;
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        if (e instanceof Reduce) {
          throw new UserError(
              String.format(
                  "compute '%s': a reduction inside another reduction (or reading another's"
                      + " reduce axis) has no stage of its own to be computed in; write it as a"
                      + " compute of its own: %s",
                  name, e.show()));
        }
        super.visit(e);
      }
    }.visit(inner);
  }

  /**
   * A reduce axis may only be read inside the reduction that lists it: elsewhere it has no value
   * (lowering would find it outside the loop that binds it).
   */
  private static void checkReduceAxesBound(String name, List<IterVar> axis, Expr body) {
    Set<Var> bound = new HashSet<>();
    axis.forEach(iv -> bound.add(iv.var()));
    if (body instanceof Reduce r) {
      r.axes().forEach(iv -> bound.add(iv.var()));
    }
    for (Var v : FreeVars.of(body)) {
      UserError.check(
          !v.isReduceAxis() || bound.contains(v),
          "compute '%s' uses reduce axis '%s' outside a reduction over it: a reduce axis may only"
              + " be read inside the sum/max/min that lists it, as in sum(x.at(i, %s), %s)",
          name,
          v.name(),
          v.name(),
          v.name());
    }
  }

  private static List<Tensor> collectInputs(Expr body) {
    Set<Tensor> seen = new LinkedHashSet<>();
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        if (e instanceof TensorRead r) {
          seen.add(r.tensor());
        }
        super.visit(e);
      }
    }.visit(body);
    return new ArrayList<>(seen);
  }

  @Override
  public String name() {
    return name;
  }

  public List<IterVar> axis() {
    return axis;
  }

  /** The reduce axes of the body, empty when it is no reduction. */
  public List<IterVar> reduceAxis() {
    return body instanceof Reduce r ? r.axes() : List.of();
  }

  public Expr body() {
    return body;
  }

  public String tag() {
    return tag;
  }

  /**
   * The body's reads that nothing in it guards: outside every select (which may test a read's
   * bounds), none where a reduction's condition may guard them (padding written as a condition).
   * What may leave its tensor unless the dims allow it.
   */
  public List<TensorRead> unguardedReads() {
    List<TensorRead> out = new ArrayList<>();
    if (body instanceof Reduce r && !(r.condition() instanceof IntImm)) {
      return out;
    }
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        if (e instanceof Select) {
          return;
        }
        if (e instanceof TensorRead r) {
          out.add(r);
        }
        super.visit(e);
      }
    }.visit(body);
    return out;
  }

  @Override
  public Tensor output() {
    return output;
  }

  @Override
  public List<Expr> shape() {
    List<Expr> shape = new ArrayList<>();
    for (IterVar iv : axis) {
      shape.add(iv.dom().extent());
    }
    return shape;
  }

  @Override
  public DType dtype() {
    return body.dtype();
  }

  @Override
  public List<Tensor> inputs() {
    return inputs;
  }

  @Override
  public String toString() {
    return name;
  }
}
