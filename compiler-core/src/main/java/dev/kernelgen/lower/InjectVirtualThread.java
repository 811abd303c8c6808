package dev.kernelgen.lower;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Virtual threads: each GPU thread runs the iterations of a {@code vthread} loop one after the
 * other, interleaved by unrolling (constant extents), so that the native compiler schedules their
 * independent instructions together; their locals become separate registers.
 *
 * <p>Where the loop's body allocates no shared memory, the loop stays in place, around the real
 * thread loops, and is unrolled whole: every thread iterates the same number of times and barriers
 * inside remain uniform (the seed's depthwise schedules).
 *
 * <p>Where it does (shared tiles fetched inside the virtual threads, a tiling whose threads each
 * own several strided register tiles), it is injected as TVM's pass does: the statements that do
 * not depend on the virtual thread (the tile's fetch, its barriers, the loops around) run once, the
 * ones that do are repeated per virtual thread where they stand (inside the reduction loop), and a
 * buffer the virtual threads write differently is allocated once per virtual thread, side by side.
 * Unrolled whole, such a body would fetch each tile and pass each barrier once per virtual thread.
 */
final class InjectVirtualThread extends StmtMutator {
  static Stmt run(Stmt s) {
    return new InjectVirtualThread().mutate(s);
  }

  @Override
  public Stmt mutate(Stmt s) {
    Stmt m = mutateStmtChildren(s);
    if (m instanceof For f && f.kind() == ForKind.VTHREAD) {
      if (f.extent() instanceof IntImm n && f.min() instanceof IntImm && allocatesShared(f)) {
        return new Injector(f, (int) n.value()).inject();
      }
      ForKind kind = f.extent() instanceof IntImm ? ForKind.UNROLLED : ForKind.SERIAL;
      return new For(f.loopVar(), f.min(), f.extent(), kind, null, f.pragmas(), f.body());
    }
    return m;
  }

  private static boolean allocatesShared(For f) {
    boolean[] found = {false};
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        found[0] |= s instanceof Allocate a && a.buffer().scope() == MemoryScope.SHARED;
        super.visit(s);
      }
    }.visit(f.body());
    return found[0];
  }

  /** The injection of one virtual-thread loop into its body. */
  private static final class Injector {
    private final For loop;
    private final int n;
    private final Set<Var> vars = new HashSet<>(); // the loop variable and lets derived from it
    private final Set<Buffer> buffers = new HashSet<>(); // written with what depends on it
    private final Map<Buffer, Long> expanded = new HashMap<>(); // allocated here, one per thread

    Injector(For loop, int n) {
      this.loop = loop;
      this.n = n;
      vars.add(loop.loopVar());
    }

    Stmt inject() {
      touched();
      Stmt body = loop.body();
      collectExpanded(body);
      return inject(new Spread().mutate(body));
    }

    /** Finds the lets and buffers that depend on the loop variable, to a fixpoint. */
    private void touched() {
      boolean changed = true;
      while (changed) {
        int before = vars.size() + buffers.size();
        new StmtVisitor() {
          @Override
          public void visit(Stmt s) {
            if (s instanceof LetStmt l && uses(l.value())) {
              vars.add(l.var());
            }
            if (s instanceof Store st && (uses(st.index()) || uses(st.value()))) {
              buffers.add(st.buffer());
            }
            super.visit(s);
          }
        }.visit(loop.body());
        changed = vars.size() + buffers.size() != before;
      }
    }

    /** Whether {@code e} reads the loop variable, a let of it, or a buffer written from them. */
    private boolean uses(Expr e) {
      for (Var v : FreeVars.of(e)) {
        if (vars.contains(v)) {
          return true;
        }
      }
      boolean[] reads = {false};
      new StmtVisitor() {
        @Override
        public void visit(Expr x) {
          reads[0] |= x instanceof Load l && buffers.contains(l.buffer());
          super.visit(x);
        }
      }.visit(e);
      return reads[0];
    }

    /** Whether a statement depends on the loop variable anywhere in it. */
    private boolean touches(Stmt s) {
      boolean[] t = {false};
      new StmtVisitor() {
        @Override
        public void visit(Stmt x) {
          t[0] |= x instanceof Store st && buffers.contains(st.buffer());
          super.visit(x);
        }

        @Override
        public void visit(Expr x) {
          t[0] |= x instanceof Var v && vars.contains(v);
          t[0] |= x instanceof Load l && buffers.contains(l.buffer());
          super.visit(x);
        }
      }.visit(s);
      return t[0];
    }

    /** The buffers allocated in the body that the virtual threads write differently. */
    private void collectExpanded(Stmt body) {
      new StmtVisitor() {
        @Override
        public void visit(Stmt s) {
          if (s instanceof Allocate a && buffers.contains(a.buffer())) {
            if (!(a.size() instanceof IntImm size)) {
              throw new dev.kernelgen.diag.CompilerBug(
                  "virtual threads write " + a.buffer().name() + " of non-constant size");
            }
            expanded.put(a.buffer(), size.value());
          }
          super.visit(s);
        }
      }.visit(body);
    }

    /** Each expanded buffer n times its size, the accesses of thread v at v * size. */
    private final class Spread extends StmtMutator {
      private Expr at(Buffer b, Expr index) {
        Long size = expanded.get(b);
        if (size == null) {
          return index;
        }
        Expr v = loop.loopVar().sub(loop.min());
        return index.add(v.mul(IntImm.like(v, size)));
      }

      @Override
      public Expr mutate(Expr e) {
        Expr m = mutateChildren(e);
        return m instanceof Load l && expanded.containsKey(l.buffer())
            ? new Load(l.dtype(), l.buffer(), at(l.buffer(), l.index()))
            : m;
      }

      @Override
      public Stmt mutate(Stmt s) {
        Stmt m = mutateStmtChildren(s);
        return switch (m) {
          case Store st when expanded.containsKey(st.buffer()) ->
              new Store(st.buffer(), at(st.buffer(), st.index()), st.value());
          case Allocate a when expanded.containsKey(a.buffer()) ->
              new Allocate(
                  a.buffer(), IntImm.like(a.size(), n * expanded.get(a.buffer())), a.body());
          default -> m;
        };
      }
    }

    /** The statement run once where it does not depend on the virtual thread, else per thread. */
    private Stmt inject(Stmt s) {
      if (!touches(s)) {
        return s;
      }
      return switch (s) {
        case Seq q -> {
          List<Stmt> out = new ArrayList<>();
          for (Stmt x : q.stmts()) {
            out.add(inject(x));
          }
          yield Seq.of(out);
        }
        case For f when !uses(f.min()) && !uses(f.extent()) ->
            new For(
                f.loopVar(),
                f.min(),
                f.extent(),
                f.kind(),
                f.threadTag(),
                f.pragmas(),
                inject(f.body()));
        case Allocate a when !uses(a.size()) ->
            new Allocate(a.buffer(), a.size(), inject(a.body()));
        case IfThenElse i when !uses(i.condition()) ->
            new IfThenElse(
                i.condition(),
                inject(i.thenCase()),
                i.elseCase() == null ? null : inject(i.elseCase()));
        case LetStmt l when !uses(l.value()) -> new LetStmt(l.var(), l.value(), inject(l.body()));
        default -> {
          List<Stmt> copies = new ArrayList<>();
          long min = ((IntImm) loop.min()).value();
          for (int k = 0; k < n; k++) {
            Map<Var, Expr> at = Map.of(loop.loopVar(), IntImm.like(loop.loopVar(), min + k));
            copies.add(new UnrollLoops.Renamer(at).mutate(s));
          }
          yield Seq.of(copies);
        }
      };
    }
  }
}
