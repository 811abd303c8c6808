package dev.kernelgen.lower;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Replaces unrolled loops of constant extent (up to {@link #MAX_EXTENT}) by copies of their body,
 * one per iteration. Variables and buffers defined inside are renamed in each copy, so every
 * definition stays unique (as Halide's unroll_loops does). Longer loops keep the unroll annotation,
 * which the code generators print as a pragma.
 */
final class UnrollLoops extends StmtMutator {
  static final int MAX_EXTENT = 16;

  static Stmt run(Stmt s) {
    return new UnrollLoops().mutate(s);
  }

  @Override
  public Stmt mutate(Stmt s) {
    Stmt m = mutateStmtChildren(s);
    if (m instanceof For f
        && f.kind() == ForKind.UNROLLED
        && f.min() instanceof IntImm min
        && f.extent() instanceof IntImm ext
        && ext.value() <= MAX_EXTENT) {
      List<Stmt> copies = new ArrayList<>();
      for (long k = 0; k < ext.value(); k++) {
        Map<Var, Expr> vars = new HashMap<>();
        vars.put(f.loopVar(), IntImm.like(f.loopVar(), min.value() + k));
        copies.add(new Renamer(vars).mutate(f.body()));
      }
      return Seq.of(copies);
    }
    return m;
  }

  /** Substitutes variables and gives fresh names to what the copied body defines. */
  static final class Renamer extends StmtMutator {
    private final Map<Var, Expr> vars;
    private final Map<Buffer, Buffer> buffers = new HashMap<>();

    Renamer(Map<Var, Expr> vars) {
      this.vars = new HashMap<>(vars);
    }

    @Override
    public Expr mutate(Expr e) {
      if (e instanceof Var v) {
        Expr r = vars.get(v);
        return r == null ? v : r;
      }
      Expr m = mutateChildren(e);
      if (m instanceof dev.kernelgen.te.Load l && buffers.containsKey(l.buffer())) {
        return new dev.kernelgen.te.Load(l.dtype(), buffers.get(l.buffer()), l.index());
      }
      return m;
    }

    @Override
    public Stmt mutate(Stmt s) {
      switch (s) {
        case LetStmt l -> {
          Var fresh = new Var(l.var().name(), l.var().dtype());
          Expr value = mutate(l.value());
          vars.put(l.var(), fresh);
          return new LetStmt(fresh, value, mutate(l.body()));
        }
        case For f -> {
          Var fresh = new Var(f.loopVar().name(), f.loopVar().dtype());
          vars.put(f.loopVar(), fresh);
          return new For(
              fresh,
              mutate(f.min()),
              mutate(f.extent()),
              f.kind(),
              f.threadTag(),
              f.pragmas(),
              mutate(f.body()));
        }
        case Allocate a -> {
          Buffer b = a.buffer();
          Buffer fresh = new Buffer(b.name(), b.dtype(), b.scope(), b.shape());
          buffers.put(b, fresh);
          return new Allocate(fresh, mutate(a.size()), mutate(a.body()));
        }
        case Store st -> {
          Buffer b = buffers.getOrDefault(st.buffer(), st.buffer());
          return new Store(b, mutate(st.index()), mutate(st.value()));
        }
        default -> {
          return mutateStmtChildren(s);
        }
      }
    }
  }
}
