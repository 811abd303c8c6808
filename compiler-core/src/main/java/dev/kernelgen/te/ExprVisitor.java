package dev.kernelgen.te;

/** Walks an expression tree, children first-to-last; override {@link #visit} to look at nodes. */
public class ExprVisitor {
  /** Visits {@code e}'s children; an override calls {@code super.visit(e)} to keep descending. */
  public void visit(Expr e) {
    switch (e) {
      case IntImm i -> {}
      case FloatImm f -> {}
      case Var v -> {}
      case Binary b -> {
        visit(b.a());
        visit(b.b());
      }
      case Not n -> visit(n.a());
      case Select s -> {
        visit(s.cond());
        visit(s.trueValue());
        visit(s.falseValue());
      }
      case Cast c -> visit(c.value());
      case Call c -> c.args().forEach(this::visit);
      case TensorRead r -> r.indices().forEach(this::visit);
      case Reduce r -> {
        visit(r.source());
        visit(r.condition());
      }
      case Load l -> visit(l.index());
    }
  }
}
