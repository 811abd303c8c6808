package dev.kernelgen.tir;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.Range;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Rebuilds statements bottom-up, mutating every expression with {@link #mutate(Expr)}; returns the
 * same node when nothing below it changed. Override {@link #mutate(Stmt)} to rewrite statements.
 */
public class StmtMutator extends ExprMutator {
  /** {@code s} with the variables of {@code map} replaced by their expressions, everywhere. */
  public static Stmt substituteVars(Stmt s, Map<Var, ? extends Expr> map) {
    return new StmtMutator() {
      @Override
      public Expr mutate(Expr e) {
        return Substitute.apply(e, map);
      }
    }.mutate(s);
  }

  public Stmt mutate(Stmt s) {
    return mutateStmtChildren(s);
  }

  protected final Stmt mutateStmtChildren(Stmt s) {
    return switch (s) {
      case For f -> {
        Expr min = mutate(f.min());
        Expr ext = mutate(f.extent());
        Stmt body = mutate(f.body());
        yield min == f.min() && ext == f.extent() && body == f.body()
            ? f
            : new For(f.loopVar(), min, ext, f.kind(), f.threadTag(), f.pragmas(), body);
      }
      case LetStmt l -> {
        Expr v = mutate(l.value());
        Stmt body = mutate(l.body());
        yield v == l.value() && body == l.body() ? l : new LetStmt(l.var(), v, body);
      }
      case IfThenElse i -> {
        Expr c = mutate(i.condition());
        Stmt t = mutate(i.thenCase());
        Stmt e = i.elseCase() == null ? null : mutate(i.elseCase());
        yield c == i.condition() && t == i.thenCase() && e == i.elseCase()
            ? i
            : new IfThenElse(c, t, e);
      }
      case Seq q -> {
        List<Stmt> out = null;
        for (int k = 0; k < q.stmts().size(); k++) {
          Stmt m = mutate(q.stmts().get(k));
          if (m != q.stmts().get(k) && out == null) {
            out = new ArrayList<>(q.stmts().subList(0, k));
          }
          if (out != null) {
            out.add(m);
          }
        }
        yield out == null ? q : Seq.of(out);
      }
      case Store st -> {
        Expr idx = mutate(st.index());
        Expr v = mutate(st.value());
        yield idx == st.index() && v == st.value() ? st : new Store(st.buffer(), idx, v);
      }
      case Allocate a -> {
        Expr size = mutate(a.size());
        Stmt body = mutate(a.body());
        yield size == a.size() && body == a.body() ? a : new Allocate(a.buffer(), size, body);
      }
      case Evaluate e -> {
        Expr v = mutate(e.value());
        yield v == e.value() ? e : new Evaluate(v);
      }
      case Barrier b -> b;
      case ProducerRealize r -> {
        List<Range> bounds = new ArrayList<>();
        boolean changed = false;
        for (Range rg : r.bounds()) {
          Expr mn = mutate(rg.min());
          Expr ex = mutate(rg.extent());
          changed |= mn != rg.min() || ex != rg.extent();
          bounds.add(changed ? new Range(mn, ex) : rg);
        }
        Stmt body = mutate(r.body());
        yield !changed && body == r.body()
            ? r
            : new ProducerRealize(r.tensor(), bounds, r.scope(), body);
      }
      case ProducerStore p -> {
        List<Expr> idx = mutateAll(p.indices());
        Expr v = mutate(p.value());
        yield idx == p.indices() && v == p.value() ? p : new ProducerStore(p.tensor(), idx, v);
      }
    };
  }
}
