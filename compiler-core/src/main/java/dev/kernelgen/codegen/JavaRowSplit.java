package dev.kernelgen.codegen;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A row of sums split so that C2 vectorizes it: a loop whose body sums terms into one element of a
 * local row ({@code row[j] = init; row[j] += a[base + j + c0] * w0; ...}, the unrolled taps of a
 * convolution) reads the run of {@code a} it needs into a window array first (then every index is
 * the loop variable plus a constant, which C2 can compare with the row's), and sums the terms in
 * several loops of at most {@link #MAX_TERMS} terms each, the loads of one loop at least {@link
 * #MIN_DISTANCE} elements apart (C2 did not vectorize a loop of nine taps, nor of six neighbouring
 * ones; of three taps a row apart it did: 1.6x on the seed depthwise plane, single-threaded; five
 * taps a row apart, a 5x5 filter's column, ran 18% faster than the same in loops of three and two,
 * flat rows of a 96x96 plane).
 *
 * <p>Each iteration updates only its own element (the row's index is the loop variable plus an
 * invariant) and nothing else is stored, so the loop can be split. The sum is reassociated, as
 * reordering the reduce axes in the schedule would: the result differs in rounding only.
 */
final class JavaRowSplit {
  static final int MAX_TERMS = 5;

  /** A row of at most this many terms stays one loop. */
  static final int MIN_TERMS_TO_SPLIT = 4;

  static final long MIN_DISTANCE = 16;

  /**
   * The split of a loop: the element summed into, the initial value, the terms of each loop (their
   * loads of {@code source} rewritten to read {@code window}), and what to copy into the window:
   * {@code length} elements of {@code source} from {@code sourceFirst}. The window is null when the
   * source is a local array read at the loop variable plus constants: the terms read it as they
   * are.
   */
  record Plan(
      JavaLoopForms.Access acc,
      Expr init,
      List<List<Expr>> groups,
      Buffer source,
      Buffer window,
      Expr sourceFirst,
      long length) {}

  private JavaRowSplit() {}

  /** The plan for {@code f}, or null when it is not such a loop; arrays are the local buffers. */
  static Plan plan(For f, Predicate<Buffer> isLocalArray) {
    if (!(f.extent() instanceof IntImm ext)
        || ext.value() <= 0
        || f.loopVar().dtype() != DType.INT32) {
      return null;
    }
    JavaLoopForms.Access acc = JavaLoopForms.rowAccumulator(f);
    if (acc == null
        || !isLocalArray.test(acc.buffer())
        || offset(acc.index(), f.loopVar()) == null) {
      return null;
    }
    List<Store> stores = Store.sequence(f.body());
    Expr init = stores.get(0).value();
    if (JavaLoopForms.readsElement(init, acc)) {
      return null;
    }
    List<Expr> terms = new ArrayList<>();
    for (Store st : stores.subList(1, stores.size())) {
      if (!(st.value() instanceof Binary b) || b.op() != BinOp.ADD) {
        return null;
      }
      Expr term = isElement(b.a(), acc) ? b.b() : isElement(b.b(), acc) ? b.a() : null;
      if (term == null || JavaLoopForms.readsElement(term, acc)) {
        return null;
      }
      terms.add(term);
    }
    if (terms.size() < MIN_TERMS_TO_SPLIT || terms.stream().anyMatch(JavaRowSplit::conditional)) {
      return null;
    }
    // Every load that moves with the loop reads one local array at invariant + j + constant.
    Var j = f.loopVar();
    List<Load> moving = new ArrayList<>();
    for (Expr t : terms) {
      new ExprVisitor() {
        @Override
        public void visit(Expr x) {
          if (x instanceof Load l && FreeVars.uses(l.index(), j)) {
            moving.add(l);
            return;
          }
          super.visit(x);
        }
      }.visit(t);
    }
    if (moving.isEmpty()) {
      return null;
    }
    Buffer source = moving.get(0).buffer();
    Offset first = offset(moving.get(0).index(), j);
    if (first == null || source.dtype() == DType.BOOL) {
      return null;
    }
    long cmin = Long.MAX_VALUE;
    long cmax = Long.MIN_VALUE;
    for (Load l : moving) {
      Offset o = offset(l.index(), j);
      if (l.buffer() != source || o == null || !o.invariant().equals(first.invariant())) {
        return null;
      }
      cmin = Math.min(cmin, o.constant());
      cmax = Math.max(cmax, o.constant());
    }
    List<List<Expr>> groups = group(terms, j);
    if (groups.size() < 2) {
      return null;
    }
    Expr sourceFirst = Simplifier.simplify(first.invariant().add(f.min()).add(cmin));
    if (isLocalArray.test(source) && Simplifier.simplify(first.invariant()) instanceof IntImm) {
      // Already an array read at the loop variable plus a constant: no window to copy.
      return new Plan(acc, init, groups, source, null, sourceFirst, 0);
    }
    Buffer window = new Buffer("window", source.dtype(), MemoryScope.LOCAL, List.of());
    long shift = cmin;
    ExprMutator toWindow =
        new ExprMutator() {
          @Override
          public Expr mutate(Expr x) {
            if (x instanceof Load l && l.buffer() == source && FreeVars.uses(l.index(), j)) {
              long c = offset(l.index(), j).constant();
              Expr index = Simplifier.simplify(j.sub(f.min()).add(c - shift));
              return Load.of(window, index);
            }
            return mutateChildren(x);
          }
        };
    List<List<Expr>> rewritten = new ArrayList<>();
    for (List<Expr> g : groups) {
      rewritten.add(g.stream().map(toWindow::mutate).toList());
    }
    return new Plan(acc, init, rewritten, source, window, sourceFirst, ext.value() + cmax - cmin);
  }

  /** Terms in groups of at most MAX_TERMS whose moving loads are MIN_DISTANCE apart, in order. */
  private static List<List<Expr>> group(List<Expr> terms, Var j) {
    List<List<Expr>> groups = new ArrayList<>();
    List<List<Long>> offsets = new ArrayList<>();
    for (Expr t : terms) {
      List<Long> mine = new ArrayList<>();
      new ExprVisitor() {
        @Override
        public void visit(Expr x) {
          if (x instanceof Load l && FreeVars.uses(l.index(), j)) {
            mine.add(offset(l.index(), j).constant());
            return;
          }
          super.visit(x);
        }
      }.visit(t);
      int at = -1;
      for (int g = 0; g < groups.size() && at < 0; g++) {
        if (groups.get(g).size() < MAX_TERMS && apart(offsets.get(g), mine)) {
          at = g;
        }
      }
      if (at < 0) {
        groups.add(new ArrayList<>());
        offsets.add(new ArrayList<>());
        at = groups.size() - 1;
      }
      groups.get(at).add(t);
      offsets.get(at).addAll(mine);
    }
    return groups;
  }

  private static boolean apart(List<Long> a, List<Long> b) {
    for (long x : a) {
      for (long y : b) {
        if (Math.abs(x - y) < MIN_DISTANCE) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether {@code e} evaluates some part only under a condition (a select, && or ||). */
  private static boolean conditional(Expr e) {
    boolean[] found = {false};
    new ExprVisitor() {
      @Override
      public void visit(Expr x) {
        found[0] |=
            x instanceof dev.kernelgen.te.Select
                || x instanceof Binary b && (b.op() == BinOp.AND || b.op() == BinOp.OR);
        super.visit(x);
      }
    }.visit(e);
    return found[0];
  }

  private static boolean isElement(Expr e, JavaLoopForms.Access acc) {
    return e instanceof Load l && JavaLoopForms.Access.of(l).equals(acc);
  }

  /** An index as {@code invariant + j + constant}. */
  record Offset(Expr invariant, long constant) {}

  /** {@code index} as {@code invariant + j + constant} (j once, with coefficient 1), or null. */
  static Offset offset(Expr index, Var j) {
    List<Expr> invariant = new ArrayList<>();
    List<Boolean> signs = new ArrayList<>();
    long[] constant = {0};
    int[] js = {0};
    if (!flatten(index, j, true, invariant, signs, constant, js) || js[0] != 1) {
      return null;
    }
    Expr inv = IntImm.of(index.dtype(), 0);
    for (int i = 0; i < invariant.size(); i++) {
      inv = signs.get(i) ? inv.add(invariant.get(i)) : inv.sub(invariant.get(i));
    }
    return new Offset(inv, constant[0]);
  }

  private static boolean flatten(
      Expr e,
      Var j,
      boolean plus,
      List<Expr> invariant,
      List<Boolean> signs,
      long[] constant,
      int[] js) {
    if (e == j) {
      js[0] += plus ? 1 : 100; // a subtracted j is no unit stride
      return true;
    }
    if (e instanceof IntImm i) {
      constant[0] += plus ? i.value() : -i.value();
      return true;
    }
    if (e instanceof Binary b && (b.op() == BinOp.ADD || b.op() == BinOp.SUB)) {
      return flatten(b.a(), j, plus, invariant, signs, constant, js)
          && flatten(b.b(), j, b.op() == BinOp.ADD ? plus : !plus, invariant, signs, constant, js);
    }
    if (FreeVars.uses(e, j)) {
      return false;
    }
    invariant.add(e);
    signs.add(plus);
    return true;
  }
}
