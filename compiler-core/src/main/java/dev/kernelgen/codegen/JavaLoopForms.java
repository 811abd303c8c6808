package dev.kernelgen.codegen;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Accumulations;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the Java printer moves out of loops, so that HotSpot's C2 compiles an inner loop to a tight
 * body: C2 cannot do it itself, since every {@code float[]} (and every native segment) may alias
 * every other, so a load or store between two others is never assumed to be the same element. C's
 * {@code restrict} parameters say what these forms say here:
 *
 * <ul>
 *   <li>an element that a loop body updates several times (the unrolled taps of a convolution)
 *       lives in a local variable for the iteration: one store instead of one per update;
 *   <li>an element that a loop accumulates into at an index that does not depend on the loop (a
 *       reduce axis: matmul's k) lives in a local variable for the whole loop;
 *   <li>a load whose index does not depend on the loop, from a buffer the loop does not store, read
 *       in every iteration (a filter tap in a row loop), is read once before the loop;
 *   <li>a local array of constant size allocated inside serial loops is allocated once per function
 *       or parallel task: the IR never reads an element it has not written in the same allocation's
 *       scope (C's stack arrays are not zeroed either).
 * </ul>
 */
final class JavaLoopForms {
  private JavaLoopForms() {}

  /** One element of a buffer, as a key for the printer's substitutions. */
  record Access(Buffer buffer, Expr index) {
    static Access of(Load l) {
      return new Access(l.buffer(), l.index());
    }
  }

  /**
   * The constant-size allocations inside serial loops of {@code region} (a function body or a
   * parallel loop's body), not those inside a parallel loop nested in it (each of its tasks needs
   * its own), in printing order; with {@code outsideLoops} also those outside its loops.
   */
  static List<Allocate> hoistableAllocations(Stmt region, boolean outsideLoops) {
    List<Allocate> out = new ArrayList<>();
    collectAllocations(region, outsideLoops, out);
    return out;
  }

  private static void collectAllocations(Stmt s, boolean inLoop, List<Allocate> out) {
    switch (s) {
      case For f -> {
        if (f.kind() != ForKind.PARALLEL) {
          collectAllocations(f.body(), true, out);
        }
      }
      case LetStmt l -> collectAllocations(l.body(), inLoop, out);
      case IfThenElse i -> {
        collectAllocations(i.thenCase(), inLoop, out);
        if (i.elseCase() != null) {
          collectAllocations(i.elseCase(), inLoop, out);
        }
      }
      case Seq q -> q.stmts().forEach(x -> collectAllocations(x, inLoop, out));
      case Allocate a -> {
        if (inLoop && a.size() instanceof IntImm) {
          out.add(a);
        }
        collectAllocations(a.body(), inLoop, out);
      }
      default -> {}
    }
  }

  /**
   * The element that {@code f}'s body updates in every statement: the body is two or more stores,
   * all to one element, and no load of that buffer reads another element; else null.
   */
  static Access rowAccumulator(For f) {
    List<Store> stores = Store.sequence(f.body());
    if (stores == null || stores.size() < 2) {
      return null;
    }
    Access acc = new Access(stores.get(0).buffer(), stores.get(0).index());
    for (Store st : stores) {
      if (!new Access(st.buffer(), st.index()).equals(acc)
          || !onlyReads(st.value(), acc)
          || Accumulations.reads(st.index(), acc.buffer())) {
        return null;
      }
    }
    return acc;
  }

  /**
   * The element that {@code f} accumulates into: the body is one store to an element whose index
   * does not depend on the loop variable, and the value reads no other element of that buffer; else
   * null.
   */
  static Access loopAccumulator(For f) {
    if (!(f.body() instanceof Store st)
        || FreeVars.uses(st.index(), f.loopVar())
        || Accumulations.reads(st.index(), st.buffer())) {
      return null;
    }
    Access acc = new Access(st.buffer(), st.index());
    return onlyReads(st.value(), acc) && readsElement(st.value(), acc) ? acc : null;
  }

  /**
   * The store of a loop that copies a contiguous run: the body is {@code dst[a + v] = src[b + v]}
   * with {@code v} the loop's 32-bit variable, {@code a} and {@code b} free of it, two different
   * buffers of one numeric type; else null.
   */
  static Store contiguousCopy(For f) {
    if (!(f.body() instanceof Store st)
        || !(st.value() instanceof Load src)
        || src.buffer() == st.buffer()
        || f.loopVar().dtype() != DType.INT32
        || src.buffer().dtype() != st.buffer().dtype()
        || st.buffer().dtype() == DType.BOOL
        || !unitStride(st.index(), f.loopVar())
        || !unitStride(src.index(), f.loopVar())) {
      return null;
    }
    return st;
  }

  /** The longest run a staging array holds; longer rows are stored element by element. */
  static final long MAX_STAGED = 4096;

  /**
   * Whether {@code f} is a loop to stage: its body is one store of a contiguous run of one of
   * {@code params}, with a constant extent up to {@link #MAX_STAGED}, its value not reading that
   * parameter, and it is not a plain copy ({@link #contiguousCopy}).
   */
  static boolean staged(For f, List<Buffer> params) {
    return f.body() instanceof Store st
        && f.kind() != ForKind.PARALLEL
        && params.stream().anyMatch(p -> p == st.buffer())
        && st.buffer().dtype() != DType.BOOL
        && f.loopVar().dtype() == DType.INT32
        && f.extent() instanceof IntImm e
        && e.value() > 0
        && e.value() <= MAX_STAGED
        && unitStride(st.index(), f.loopVar())
        && !Accumulations.reads(st.value(), st.buffer())
        && contiguousCopy(f) == null;
  }

  /**
   * The loops to stage in {@code region} (a function body or a parallel loop's body), not those
   * inside a parallel loop nested in it, in printing order.
   */
  static List<For> stagedLoops(Stmt region, List<Buffer> params) {
    List<For> out = new ArrayList<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        if (s instanceof For f && f.kind() == ForKind.PARALLEL) {
          return; // its tasks run at once: each stages in its own array
        }
        if (s instanceof For f && staged(f, params)) {
          out.add(f);
        }
        super.visit(s);
      }
    }.visit(region);
    return out;
  }

  /** The index of the loop's first iteration: {@code index} with the loop variable at its min. */
  static Expr first(Expr index, For f) {
    return Simplifier.simplify(Substitute.apply(index, Map.of(f.loopVar(), f.min())));
  }

  /** Whether {@code index} is {@code v} plus terms free of {@code v}. */
  private static boolean unitStride(Expr index, Var v) {
    if (index == v) {
      return true;
    }
    if (index instanceof Binary b && (b.op() == BinOp.ADD || b.op() == BinOp.SUB)) {
      if (!FreeVars.uses(b.b(), v)) {
        return unitStride(b.a(), v);
      }
      return b.op() == BinOp.ADD && !FreeVars.uses(b.a(), v) && unitStride(b.b(), v);
    }
    return false;
  }

  /**
   * The loads in {@code f}'s body that can be read once before the loop: evaluated in every
   * iteration (not under a condition, a short-circuit operand or an inner loop), with an index that
   * uses no variable bound by the loop or inside it, from a buffer the body does not store to and
   * did not allocate. In order of first appearance, without repeats.
   */
  static List<Load> invariantLoads(For f) {
    Set<Buffer> stored = Collections.newSetFromMap(new IdentityHashMap<>());
    stored.addAll(StmtVisitor.storedBuffers(f.body()));
    Set<Var> inner = Collections.newSetFromMap(new IdentityHashMap<>());
    inner.add(f.loopVar());
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        switch (s) {
          case For x -> inner.add(x.loopVar());
          case LetStmt l -> inner.add(l.var());
          case Allocate a -> stored.add(a.buffer());
          default -> {}
        }
        super.visit(s);
      }
    }.visit(f.body());
    Set<Access> seen = new LinkedHashSet<>();
    List<Load> out = new ArrayList<>();
    ExprVisitor loads =
        new ExprVisitor() {
          @Override
          public void visit(Expr e) {
            switch (e) {
              case Load l
                  when !stored.contains(l.buffer())
                      && Collections.disjoint(FreeVars.of(l.index()), inner) -> {
                if (seen.add(Access.of(l))) {
                  out.add(l);
                }
              }
              // Only what is evaluated in every iteration may be read before the loop.
              case Select s -> visit(s.cond());
              case Binary b when b.op() == BinOp.AND || b.op() == BinOp.OR -> visit(b.a());
              default -> super.visit(e);
            }
          }
        };
    everyIteration(f.body(), loads);
    return out;
  }

  /** Visits the expressions that every execution of {@code s} evaluates. */
  private static void everyIteration(Stmt s, ExprVisitor v) {
    switch (s) {
      case Store st -> {
        v.visit(st.index());
        v.visit(st.value());
      }
      case LetStmt l -> {
        v.visit(l.value());
        everyIteration(l.body(), v);
      }
      case Seq q -> q.stmts().forEach(x -> everyIteration(x, v));
      case IfThenElse i -> v.visit(i.condition());
      case For x -> {
        v.visit(x.min());
        v.visit(x.extent());
      }
      case Allocate a -> {
        v.visit(a.size());
        everyIteration(a.body(), v);
      }
      default -> {}
    }
  }

  /** Whether every load of {@code acc}'s buffer in {@code e} reads exactly {@code acc}. */
  private static boolean onlyReads(Expr e, Access acc) {
    boolean[] ok = {true};
    new ExprVisitor() {
      @Override
      public void visit(Expr x) {
        if (x instanceof Load l && l.buffer() == acc.buffer() && !Access.of(l).equals(acc)) {
          ok[0] = false;
        }
        super.visit(x);
      }
    }.visit(e);
    return ok[0];
  }

  /** Whether {@code e} reads the element {@code acc}. */
  static boolean readsElement(Expr e, Access acc) {
    boolean[] found = {false};
    new ExprVisitor() {
      @Override
      public void visit(Expr x) {
        found[0] |= x instanceof Load l && Access.of(l).equals(acc);
        super.visit(x);
      }
    }.visit(e);
    return found[0];
  }
}
