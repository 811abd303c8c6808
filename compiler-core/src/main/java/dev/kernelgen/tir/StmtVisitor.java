package dev.kernelgen.tir;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.Range;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Walks statements and their expressions; override {@link #visit(Stmt)} or {@link #visit(Expr)}.
 */
public class StmtVisitor extends ExprVisitor {
  /** The buffers {@code body} stores to, by identity. */
  public static Set<Buffer> storedBuffers(Stmt body) {
    Set<Buffer> out = Collections.newSetFromMap(new IdentityHashMap<>());
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        if (s instanceof Store st) {
          out.add(st.buffer());
        }
        super.visit(s);
      }
    }.visit(body);
    return out;
  }

  public void visit(Stmt s) {
    switch (s) {
      case For f -> {
        visit(f.min());
        visit(f.extent());
        visit(f.body());
      }
      case LetStmt l -> {
        visit(l.value());
        visit(l.body());
      }
      case IfThenElse i -> {
        visit(i.condition());
        visit(i.thenCase());
        if (i.elseCase() != null) {
          visit(i.elseCase());
        }
      }
      case Seq q -> q.stmts().forEach(this::visit);
      case Store st -> {
        visit(st.index());
        visit(st.value());
      }
      case Allocate a -> {
        visit(a.size());
        visit(a.body());
      }
      case Evaluate e -> visit(e.value());
      case Barrier b -> {}
      case ProducerRealize r -> {
        for (Range rg : r.bounds()) {
          visit(rg.min());
          visit(rg.extent());
        }
        visit(r.body());
      }
      case ProducerStore p -> {
        p.indices().forEach(this::visit);
        visit(p.value());
      }
    }
  }
}
