package dev.kernelgen.lower;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.StmtVisitor;
import java.util.List;
import java.util.Map;

/**
 * Splits a vectorized loop {@code l} over a flattened index into the two loops the index came from
 * (C): where the body reads {@code l / d} and {@code l % d} for a constant {@code d} below the
 * loop's constant extent, {@code for l} becomes {@code for lo} (serial) around {@code for li < d}
 * (vectorized), with {@code l = lo * d + li}, so the division and the remainder fold to the two
 * loop variables (where {@code d} does not divide the extent, the last row tests {@code l <
 * extent}). A Winograd input transform packs the tiles of a whole plane, {@code l = th * 28 + tw}:
 * its loads, {@code (l / 28) * 112 + (l % 28) * 2}, were vector divisions and gathers, and become
 * loads of stride 2.
 */
final class SplitDivModLoops extends StmtMutator {
  static Stmt run(Stmt s) {
    return new SplitDivModLoops().mutate(s);
  }

  @Override
  public Stmt mutate(Stmt s) {
    Stmt m = mutateStmtChildren(s);
    if (!(m instanceof For f)
        || f.kind() != ForKind.VECTORIZED
        || !(f.min() instanceof IntImm min && min.value() == 0)
        || !(f.extent() instanceof IntImm ext)) {
      return m;
    }
    long d = divisor(f, ext.value());
    if (d == 0) {
      return m;
    }
    Var lo = new Var(f.loopVar().name() + "_o", f.loopVar().dtype());
    Var li = new Var(f.loopVar().name() + "_i", f.loopVar().dtype());
    Expr l = lo.mul(IntImm.like(lo, d)).add(li);
    Stmt body = substituteVars(f.body(), Map.of(f.loopVar(), l));
    long extent = ext.value();
    if (extent % d != 0) {
      // The last row is partial: its lanes past the extent do nothing.
      body = IfThenElse.of(l.lt(IntImm.like(l, extent)), body);
    }
    For inner =
        new For(li, IntImm.like(li, 0), IntImm.like(li, d), f.kind(), null, f.pragmas(), body);
    For outer =
        new For(
            lo,
            IntImm.like(lo, 0),
            IntImm.like(lo, (extent + d - 1) / d),
            ForKind.SERIAL,
            null,
            List.of(),
            inner);
    return Simplifier.simplify(outer);
  }

  /**
   * The largest constant {@code d} with {@code 1 < d < extent} by which the body both divides and
   * takes the remainder of the loop variable; 0 where there is none.
   */
  private static long divisor(For f, long extent) {
    java.util.Set<Long> divs = new java.util.HashSet<>();
    java.util.Set<Long> mods = new java.util.HashSet<>();
    new StmtVisitor() {
      @Override
      public void visit(Expr e) {
        if (e instanceof Binary b
            && b.a().equals(f.loopVar())
            && b.b() instanceof IntImm k
            && k.value() > 1
            && k.value() < extent) {
          if (b.op() == BinOp.FLOOR_DIV) {
            divs.add(k.value());
          } else if (b.op() == BinOp.FLOOR_MOD) {
            mods.add(k.value());
          }
        }
        super.visit(e);
      }
    }.visit(f.body());
    divs.retainAll(mods);
    return divs.stream().mapToLong(Long::longValue).max().orElse(0);
  }
}
