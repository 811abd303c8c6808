package dev.kernelgen.lower;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.StmtVisitor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Loop partitioning (TVM's LoopPartition): a loop whose body tests its own variable against bounds
 * — padding's {@code select(i >= 1 && i < 97, A[i - 1], 0)}, a guard inside a deeper loop — is
 * split into a prologue, a middle where those tests are known true, and an epilogue. The middle,
 * which is most of the iterations, has no branch on the loop variable, so the C compiler can
 * vectorize it; the prologue and epilogue keep the original body. Loops bound to GPU threads and
 * parallel loops are not split.
 */
final class PartitionLoops extends StmtMutator {
  /**
   * gcc's limit for unrolling a loop of constant trip count whole at -O3 (its complete peeling).
   */
  static final int SHORT_LOOP = 16;

  static Stmt run(Stmt s) {
    return new PartitionLoops().mutate(s);
  }

  @Override
  public Stmt mutate(Stmt s) {
    Stmt m = mutateStmtChildren(s);
    if (!(m instanceof For f) || !(f.kind() == ForKind.SERIAL || f.kind() == ForKind.VECTORIZED)) {
      return m;
    }
    Var v = f.loopVar();
    Set<Var> inner = definedInside(f.body());
    // A test with a coefficient above 1 (a row's loop split with its inner part outside) is
    // partitioned on innermost loops only, and not on loops of at most
    // SHORT_LOOP constant iterations: the middle copy is what gets vectorized; outer loops would
    // copy whole nests (the symbolic convolution's packed tiles outgrew the untuned pick's
    // statement budget), and a short loop gcc unrolls whole, its select cheaper than the parts'
    // variable trip counts (max pool 3x3/2's serial 8-column loops: 131 -> 454 us partitioned).
    boolean scaled =
        inner.isEmpty() && !(f.extent() instanceof IntImm e && e.value() <= SHORT_LOOP);
    Set<Expr> used = new HashSet<>();
    Expr lower = null;
    Expr upper = null;
    for (Expr c : conditionTerms(f.body())) {
      TightenLoopBounds.Bound b = TightenLoopBounds.bound(c, v, scaled);
      // The bound must be known before the loop starts: no variable of the body in it.
      if (b == null || FreeVars.of(b.value()).stream().anyMatch(inner::contains)) {
        continue;
      }
      used.add(c);
      if (b.upper()) {
        upper = upper == null ? b.value() : upper.min(b.value());
      } else {
        lower = lower == null ? b.value() : lower.max(b.value());
      }
    }
    if (used.isEmpty()) {
      return m;
    }
    Expr lo = f.min();
    Expr hi = Simplifier.simplify(f.min().add(f.extent()));
    Expr m0 = lower == null ? lo : Simplifier.simplify(lower.max(lo).min(hi));
    Expr m1 = upper == null ? hi : Simplifier.simplify(upper.min(hi).max(m0));
    Stmt middle = Simplifier.simplify(new AssumeTrue(used).mutate(f.body()));
    List<Stmt> parts = new ArrayList<>();
    addLoop(parts, f, lo, m0, f.body());
    addLoop(parts, f, m0, m1, middle);
    addLoop(parts, f, m1, hi, f.body());
    return Seq.of(parts);
  }

  /** Adds {@code for v in [from, to)} over a renamed copy of {@code body}, unless empty. */
  private static void addLoop(List<Stmt> out, For f, Expr from, Expr to, Stmt body) {
    Expr extent = Simplifier.simplify(to.sub(from).max(IntImm.like(to, 0)));
    if (extent instanceof IntImm e && e.value() == 0) {
      return;
    }
    Var fresh = new Var(f.loopVar().name(), f.loopVar().dtype());
    Stmt renamed = new UnrollLoops.Renamer(Map.of(f.loopVar(), fresh)).mutate(body);
    out.add(
        Simplifier.simplify(new For(fresh, from, extent, f.kind(), null, f.pragmas(), renamed)));
  }

  /** The variables that loops and lets inside {@code s} define. */
  static Set<Var> definedInside(Stmt s) {
    Set<Var> out = new HashSet<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt st) {
        if (st instanceof For f) {
          out.add(f.loopVar());
        } else if (st instanceof dev.kernelgen.tir.LetStmt l) {
          out.add(l.var());
        }
        super.visit(st);
      }
    }.visit(s);
    return out;
  }

  /** The conjuncts of every select and if condition in {@code s}. */
  private static List<Expr> conditionTerms(Stmt s) {
    List<Expr> out = new ArrayList<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt st) {
        if (st instanceof IfThenElse i) {
          out.addAll(dev.kernelgen.te.TE.conjuncts(i.condition()));
        }
        super.visit(st);
      }

      @Override
      public void visit(Expr e) {
        if (e instanceof Select sel) {
          out.addAll(dev.kernelgen.te.TE.conjuncts(sel.cond()));
        }
        super.visit(e);
      }
    }.visit(s);
    return out;
  }

  /** Replaces the given conditions by {@code true} wherever they appear. */
  private static final class AssumeTrue extends StmtMutator {
    private final Set<Expr> facts;

    AssumeTrue(Set<Expr> facts) {
      this.facts = facts;
    }

    @Override
    public Expr mutate(Expr e) {
      if (facts.contains(e)) {
        return IntImm.ofBool(true);
      }
      return mutateChildren(e);
    }
  }
}
