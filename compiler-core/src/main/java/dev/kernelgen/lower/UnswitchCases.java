package dev.kernelgen.lower;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.StmtVisitor;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Loop unswitching of case selects in C: a select on {@code x == k} whose {@code x} does not change
 * within a loop is decided once, before the loop, which is copied for each outcome (as LLVM's loop
 * unswitching, for these conditions only). A Winograd transform picks its constant matrix's row by
 * such a chain of selects, over an axis that an outer loop fixes (the packed tile of one of the
 * (m+2)^2 products): evaluated per element, and under {@code #pragma omp simd} every case is
 * computed and blended, the chain cost 16 times the row's few additions.
 *
 * <p>Only equality tests of integer expressions free of loads: boundary tests ({@code <}, {@code
 * >=}) are {@link PartitionLoops}'s. A loop is unswitched at the outermost level where the
 * condition is invariant, into at most {@link #MAX_COPIES} copies of at most {@link #MAX_NODES}
 * statements and expressions each, and a function into at most {@link #MAX_SPLITS} tests in all.
 * Not in Java: HotSpot's C2 unswitches loops itself, and copies would grow a method past the size
 * C2 compiles (8000 bytes of bytecode) or the class file's limit (64 KB).
 */
final class UnswitchCases extends StmtMutator {
  static final int MAX_COPIES = 64;
  static final int MAX_NODES = 20_000;

  /** The most splits in one function, over all its loops (copies inside copies included). */
  static final int MAX_SPLITS = 256;

  private int splitsLeft = MAX_SPLITS;
  private final Set<IfThenElse> made = java.util.Collections.newSetFromMap(new IdentityHashMap<>());

  static Stmt run(Stmt s) {
    return new UnswitchCases().mutate(s);
  }

  @Override
  public Stmt mutate(Stmt s) {
    Expr c =
        s instanceof For f && f.threadTag() == null && f.kind() != ForKind.VTHREAD
            ? invariantCase(f)
            : null;
    if (c != null && size(s) <= MAX_NODES) {
      int[] budget = {Math.min(MAX_COPIES - 1, splitsLeft)};
      int before = budget[0];
      Stmt split = split(s, c, budget);
      if (split != null) {
        splitsLeft -= before - budget[0];
        return descend(split);
      }
    }
    return mutateStmtChildren(s);
  }

  /**
   * {@code s} with its invariant case {@code c} (none: null) and those of its copies decided before
   * it: a tree of tests whose leaves are copies without them, spending one of {@code budget} per
   * test; null where it runs out.
   */
  private Stmt split(Stmt s, Expr c, int[] budget) {
    if (c == null) {
      return s;
    }
    if (budget[0] < 1) {
      return null;
    }
    budget[0]--;
    Stmt yes = Simplifier.simplify(decide(s, c, true));
    Stmt a = split(yes, invariantCase(yes), budget);
    Stmt no = a == null ? null : Simplifier.simplify(decide(s, c, false));
    Stmt b = a == null ? null : split(no, invariantCase(no), budget);
    if (b == null) {
      return null;
    }
    IfThenElse test = new IfThenElse(c, a, b);
    made.add(test);
    return test;
  }

  /** The copies' own bodies, unswitched in turn (their loops may hold cases of their own). */
  private Stmt descend(Stmt s) {
    if (s instanceof IfThenElse i && made.contains(i)) {
      return new IfThenElse(i.condition(), descend(i.thenCase()), descend(i.elseCase()));
    }
    return mutateStmtChildren(s);
  }

  /**
   * The first case test in loop {@code s}'s body that no variable bound inside the loop changes;
   * null for none or for a statement that is not a loop.
   */
  private static Expr invariantCase(Stmt s) {
    if (!(s instanceof For f)) {
      return null;
    }
    Set<Var> inner = PartitionLoops.definedInside(f.body());
    inner.add(f.loopVar());
    Expr[] found = {null};
    new StmtVisitor() {
      @Override
      public void visit(Expr e) {
        if (found[0] != null) {
          return;
        }
        if (e instanceof Select sel && isCase(sel.cond(), inner)) {
          found[0] = sel.cond();
          return;
        }
        super.visit(e);
      }
    }.visit(f.body());
    return found[0];
  }

  private static boolean isCase(Expr cond, Set<Var> inner) {
    if (!(cond instanceof Binary b && b.op() == BinOp.EQ && b.a().dtype().isInt())) {
      return false;
    }
    if (b.a() instanceof IntImm && b.b() instanceof IntImm) {
      return false;
    }
    for (Var v : FreeVars.of(cond)) {
      if (inner.contains(v)) {
        return false;
      }
    }
    boolean[] loads = {false};
    new ExprVisitor() {
      @Override
      public void visit(Expr x) {
        loads[0] |= x instanceof Load;
        super.visit(x);
      }
    }.visit(cond);
    return !loads[0];
  }

  /** {@code s} with every select on {@code cond} replaced by its branch for {@code value}. */
  private static Stmt decide(Stmt s, Expr cond, boolean value) {
    return new StmtMutator() {
      @Override
      public Expr mutate(Expr e) {
        if (e instanceof Select sel && sel.cond().equals(cond)) {
          return mutate(value ? sel.trueValue() : sel.falseValue());
        }
        return mutateChildren(e);
      }
    }.mutate(s);
  }

  private static int size(Stmt s) {
    int[] n = {0};
    new StmtVisitor() {
      @Override
      public void visit(Stmt x) {
        n[0]++;
        super.visit(x);
      }

      @Override
      public void visit(Expr x) {
        n[0]++;
        super.visit(x);
      }
    }.visit(s);
    return n[0];
  }
}
