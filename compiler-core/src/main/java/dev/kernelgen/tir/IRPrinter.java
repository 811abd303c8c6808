package dev.kernelgen.tir;

import dev.kernelgen.te.Expr;
import java.util.stream.Collectors;

/** Prints the loop IR as indented text, stable enough to test against. */
public final class IRPrinter {
  private final StringBuilder out = new StringBuilder();

  private IRPrinter() {}

  public static String print(Stmt s) {
    IRPrinter p = new IRPrinter();
    p.stmt(s, 0);
    return p.out.toString();
  }

  public static String print(PrimFunc f) {
    IRPrinter p = new IRPrinter();
    p.out.append("func ").append(f.name()).append('(');
    p.out.append(
        f.params().stream()
            .map(
                b ->
                    b.name()
                        + ": "
                        + b.dtype()
                        + b.shape().stream()
                            .map(Expr::show)
                            .collect(Collectors.joining(", ", "[", "]")))
            .collect(Collectors.joining(", ")));
    for (var v : f.scalars()) {
      p.out.append(", ").append(v.name()).append(": ").append(v.dtype());
    }
    p.out.append(") {\n");
    p.stmt(f.body(), 1);
    p.out.append("}\n");
    return p.out.toString();
  }

  private void indent(int depth) {
    out.append("  ".repeat(depth));
  }

  private void stmt(Stmt s, int d) {
    switch (s) {
      case For f -> {
        indent(d);
        out.append(f.kind().keyword()).append(' ');
        if (f.threadTag() != null) {
          out.append(f.threadTag()).append(' ');
        }
        out.append(f.loopVar().name())
            .append(" in [")
            .append(f.min().show())
            .append(", ")
            .append(f.extent().show())
            .append(')');
        for (String p : f.pragmas()) {
          out.append(" pragma(").append(p).append(')');
        }
        out.append(" {\n");
        stmt(f.body(), d + 1);
        indent(d);
        out.append("}\n");
      }
      case LetStmt l -> {
        indent(d);
        out.append("let ")
            .append(l.var().name())
            .append(" = ")
            .append(l.value().show())
            .append('\n');
        stmt(l.body(), d);
      }
      case IfThenElse i -> {
        indent(d);
        out.append("if ").append(i.condition().show()).append(" {\n");
        stmt(i.thenCase(), d + 1);
        if (i.elseCase() != null) {
          indent(d);
          out.append("} else {\n");
          stmt(i.elseCase(), d + 1);
        }
        indent(d);
        out.append("}\n");
      }
      case Seq q -> q.stmts().forEach(x -> stmt(x, d));
      case Store st -> {
        indent(d);
        out.append(st.buffer().name())
            .append('[')
            .append(st.index().show())
            .append("] = ")
            .append(st.value().show())
            .append('\n');
      }
      case Allocate a -> {
        indent(d);
        out.append("allocate ")
            .append(a.buffer().name())
            .append(": ")
            .append(a.buffer().dtype())
            .append('[')
            .append(a.size().show())
            .append("] ")
            .append(a.buffer().scope())
            .append('\n');
        stmt(a.body(), d);
      }
      case Evaluate e -> {
        indent(d);
        out.append(e.value().show()).append('\n');
      }
      case Barrier b -> {
        indent(d);
        out.append("barrier(").append(b.scope()).append(")\n");
      }
      case ProducerRealize r -> {
        indent(d);
        out.append("realize ")
            .append(r.tensor().name())
            .append(
                r.bounds().stream()
                    .map(rg -> rg.min().show() + ":" + rg.extent().show())
                    .collect(Collectors.joining(", ", "[", "]")))
            .append(' ')
            .append(r.scope())
            .append(" {\n");
        stmt(r.body(), d + 1);
        indent(d);
        out.append("}\n");
      }
      case ProducerStore p -> {
        indent(d);
        out.append(p.tensor().name())
            .append(
                p.indices().stream().map(Expr::show).collect(Collectors.joining(", ", "[", "]")))
            .append(" = ")
            .append(p.value().show())
            .append('\n');
      }
    }
  }
}
