package dev.kernelgen.lower;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Double buffering of shared tiles ({@code double_buffer}; TVM's pass of the same name, with the
 * next tile staged in registers as hand-written GEMMs do). A loop marked {@link #PRAGMA} whose
 * body, after its shared allocations, is {@code fetch; barrier; compute; barrier} (what the GPU
 * tiling's reduction steps lower to) becomes:
 *
 * <pre>
 * allocate tile[2 * size] shared; allocate staged[...] local
 * fetch(k = 0) into tile half 0; barrier
 * for k: if (k + 1 < n) staged = loads of fetch(k + 1)
 *        compute(k) from half k % 2
 *        if (k + 1 < n) half (k + 1) % 2 = staged
 *        barrier
 * </pre>
 *
 * The next tile's global loads are issued before the multiply-adds of this one and their latency
 * hides behind them; one barrier per step instead of two (the half being written was last read
 * before the previous step's barrier). A marked loop of any other shape, or outside the kernel's
 * thread loops, is left as it is, and the mark is dropped either way (on CPUs there is nothing to
 * overlap).
 */
final class InjectDoubleBuffer extends StmtMutator {
  /** The loop pragma that asks for double buffering of the shared tiles fetched in it. */
  static final String PRAGMA = "double_buffer";

  private final boolean gpu;

  private InjectDoubleBuffer(boolean gpu) {
    this.gpu = gpu;
  }

  static Stmt run(Stmt s, boolean gpu) {
    return new InjectDoubleBuffer(gpu).mutate(s);
  }

  private int threadLoops; // the threadIdx loops around the statement being rewritten

  @Override
  public Stmt mutate(Stmt s) {
    boolean thread =
        s instanceof For t
            && t.kind() == ForKind.THREAD_BINDING
            && t.threadTag().startsWith("threadIdx.");
    threadLoops += thread ? 1 : 0;
    Stmt m = mutateStmtChildren(s);
    threadLoops -= thread ? 1 : 0;
    if (!(m instanceof For f) || !f.pragmas().contains(PRAGMA)) {
      return m;
    }
    List<String> rest = new ArrayList<>(f.pragmas());
    rest.remove(PRAGMA);
    For plain = new For(f.loopVar(), f.min(), f.extent(), f.kind(), f.threadTag(), rest, f.body());
    // The staged registers belong to a thread: the loop must run inside the kernel's threads
    // (where they are loops of their own around the fetch and the compute, a buffer between them
    // would be the block's).
    if (!gpu || f.kind() != ForKind.SERIAL || threadLoops == 0) {
      return plain;
    }
    Stmt out = pipeline(plain);
    return out == null ? plain : out;
  }

  /** The double-buffered loop, or null where the body is not of the expected shape. */
  private static Stmt pipeline(For f) {
    List<Allocate> allocs = new ArrayList<>();
    List<Stmt> stmts = new ArrayList<>();
    flatten(f.body(), allocs, stmts);
    int first = -1;
    for (int k = 0; k < stmts.size() && first < 0; k++) {
      if (stmts.get(k) instanceof Barrier b && !b.isWarp()) {
        first = k;
      }
    }
    int last = stmts.size() - 1;
    if (first <= 0 || first == last || !(stmts.get(last) instanceof Barrier lb) || lb.isWarp()) {
      return null;
    }
    List<Stmt> fetch = stmts.subList(0, first);
    List<Stmt> compute = stmts.subList(first + 1, last);
    Access fa = Access.of(fetch);
    Access ca = Access.of(compute);
    Map<Buffer, Long> tiles = new LinkedHashMap<>(); // the doubled buffers and their sizes
    List<Allocate> others = new ArrayList<>();
    for (Allocate a : allocs) {
      if (fa.stored.contains(a.buffer())) {
        if (a.buffer().scope() != MemoryScope.SHARED || !(a.size() instanceof IntImm size)) {
          return null;
        }
        tiles.put(a.buffer(), size.value());
      } else {
        others.add(a);
      }
    }
    // The fetch writes the tiles only and reads none of them; the compute writes none.
    if (tiles.isEmpty() || !tiles.keySet().containsAll(fa.stored)) {
      return null;
    }
    for (Buffer b : tiles.keySet()) {
      if (fa.loaded.contains(b) || ca.stored.contains(b)) {
        return null;
      }
    }
    for (Allocate a : others) {
      if (fa.loaded.contains(a.buffer())) {
        return null; // the prologue's fetch, outside the loop, could not read it
      }
    }
    Var k = f.loopVar();
    Expr step = Simplifier.simplify(k.sub(f.min()));
    Expr next = Simplifier.simplify(k.add(IntImm.like(k, 1)));
    Expr hasNext = Simplifier.simplify(next.lt(f.min().add(f.extent())));
    Expr two = IntImm.like(k, 2);
    Expr curHalf = Simplifier.simplify(step.floormod(two));
    Expr nextHalf = Simplifier.simplify(step.add(IntImm.like(k, 1)).floormod(two));

    Staging staging = new Staging(tiles.keySet());
    Stmt loads = staging.loads(Seq.of(fetch));
    if (loads == null) {
      return null;
    }
    Stmt stores = staging.stores(Seq.of(fetch));
    Map<Var, Expr> atNext = Map.of(k, next);
    Stmt prologue =
        new UnrollLoops.Renamer(Map.of(k, f.min()))
            .mutate(new Offset(tiles, null).mutate(Seq.of(fetch)));
    Stmt steady =
        Seq.of(
            IfThenElse.of(hasNext, new UnrollLoops.Renamer(atNext).mutate(loads)),
            new Offset(tiles, curHalf).mutate(Seq.of(compute)),
            IfThenElse.of(
                hasNext,
                // k + 1 in the guards (the stores' values are the staged registers), then the half
                // of the next step, written in terms of this k.
                new Offset(tiles, nextHalf).mutate(new UnrollLoops.Renamer(atNext).mutate(stores))),
            stmts.get(last));
    for (int a = others.size() - 1; a >= 0; a--) {
      steady = new Allocate(others.get(a).buffer(), others.get(a).size(), steady);
    }
    Stmt loop =
        new For(f.loopVar(), f.min(), f.extent(), f.kind(), f.threadTag(), f.pragmas(), steady);
    Stmt out = Seq.of(prologue, stmts.get(first), loop);
    for (var e : staging.registers.entrySet()) {
      out = new Allocate(e.getValue(), IntImm.of(DType.INT32, staging.slots.get(e.getKey())), out);
    }
    List<Buffer> doubled = new ArrayList<>(tiles.keySet());
    for (int a = doubled.size() - 1; a >= 0; a--) {
      Buffer b = doubled.get(a);
      out = new Allocate(b, IntImm.of(DType.INT32, 2 * tiles.get(b)), out);
    }
    return Simplifier.simplify(out);
  }

  /**
   * The statements of a loop body in order, with the allocations among them hoisted in front: each
   * stage attached at the loop realizes its buffer around the rest of the body ({@code allocate a {
   * fetch a; allocate b { fetch b; ... } }}), and a buffer allocated after a statement is not used
   * by it, so allocating it earlier changes nothing.
   */
  private static void flatten(Stmt s, List<Allocate> allocs, List<Stmt> out) {
    switch (s) {
      case Allocate a -> {
        allocs.add(a);
        flatten(a.body(), allocs, out);
      }
      case Seq q -> {
        for (Stmt x : q.stmts()) {
          flatten(x, allocs, out);
        }
      }
      default -> out.add(s);
    }
  }

  /** The buffers a list of statements stores into and loads from. */
  private static final class Access extends StmtVisitor {
    final java.util.Set<Buffer> stored = new java.util.HashSet<>();
    final java.util.Set<Buffer> loaded = new java.util.HashSet<>();

    static Access of(List<Stmt> stmts) {
      Access a = new Access();
      stmts.forEach(a::visit);
      return a;
    }

    @Override
    public void visit(Stmt s) {
      if (s instanceof Store st) {
        stored.add(st.buffer());
      }
      super.visit(s);
    }

    @Override
    public void visit(Expr e) {
      if (e instanceof Load l) {
        loaded.add(l.buffer());
      }
      super.visit(e);
    }
  }

  /** Accesses of the doubled tiles moved to one half: {@code index + half * size}. */
  private static final class Offset extends StmtMutator {
    private final Map<Buffer, Long> tiles;
    private final Expr half; // null: half 0

    Offset(Map<Buffer, Long> tiles, Expr half) {
      this.tiles = tiles;
      this.half = half;
    }

    private Expr moved(Buffer b, Expr index) {
      return half == null ? index : index.add(half.mul(IntImm.like(index, tiles.get(b))));
    }

    @Override
    public Expr mutate(Expr e) {
      Expr m = mutateChildren(e);
      if (m instanceof Load l && tiles.containsKey(l.buffer())) {
        return new Load(l.dtype(), l.buffer(), moved(l.buffer(), l.index()));
      }
      return m;
    }

    @Override
    public Stmt mutate(Stmt s) {
      Stmt m = mutateStmtChildren(s);
      if (m instanceof Store st && tiles.containsKey(st.buffer())) {
        return new Store(st.buffer(), moved(st.buffer(), st.index()), st.value());
      }
      return m;
    }
  }

  /**
   * The fetch split in two at its stores: the loads into registers ({@code staged[slot] = value},
   * under the same loops and guards) and the stores from them ({@code tile[index] = staged[slot]}).
   * A store under loops gets one slot per iteration (loops of constant extent only, unrolled); each
   * store its own slots.
   */
  private static final class Staging {
    final java.util.Set<Buffer> tiles;
    final Map<Buffer, Buffer> registers = new LinkedHashMap<>();
    final Map<Buffer, Long> slots = new LinkedHashMap<>();
    private boolean ok = true;

    Staging(java.util.Set<Buffer> tiles) {
      this.tiles = tiles;
      for (Buffer b : tiles) {
        registers.put(b, new Buffer(b.name() + ".staged", b.dtype(), MemoryScope.LOCAL, b.shape()));
        slots.put(b, 0L);
      }
    }

    Stmt loads(Stmt fetch) {
      Stmt s = split(fetch, true, new ArrayList<>());
      return ok ? s : null;
    }

    Stmt stores(Stmt fetch) {
      slots.replaceAll((b, n) -> 0L);
      return split(fetch, false, new ArrayList<>());
    }

    private Stmt split(Stmt s, boolean load, List<For> loops) {
      switch (s) {
        case Seq q -> {
          List<Stmt> out = new ArrayList<>();
          for (Stmt x : q.stmts()) {
            out.add(split(x, load, loops));
          }
          return Seq.of(out);
        }
        case For f -> {
          boolean thread = f.kind() == ForKind.THREAD_BINDING;
          if (!thread && !(f.extent() instanceof IntImm && f.min() instanceof IntImm)) {
            ok = false;
            return f;
          }
          if (!thread) {
            loops.add(f);
          }
          Stmt body = split(f.body(), load, loops);
          if (!thread) {
            loops.remove(loops.size() - 1);
          }
          ForKind kind = thread ? f.kind() : ForKind.UNROLLED;
          return new For(f.loopVar(), f.min(), f.extent(), kind, f.threadTag(), f.pragmas(), body);
        }
        case IfThenElse i when i.elseCase() == null -> {
          return IfThenElse.of(i.condition(), split(i.thenCase(), load, loops));
        }
        case Store st when tiles.contains(st.buffer()) -> {
          long count = 1;
          Expr slot = IntImm.of(DType.INT32, 0);
          for (int d = loops.size() - 1; d >= 0; d--) {
            For l = loops.get(d);
            Expr it = l.loopVar().sub(l.min());
            if (it.dtype() != DType.INT32) {
              it = dev.kernelgen.te.Cast.of(DType.INT32, it);
            }
            slot = slot.add(it.mul(IntImm.of(DType.INT32, count)));
            count *= ((IntImm) l.extent()).value();
          }
          long base = slots.get(st.buffer());
          slots.put(st.buffer(), base + count);
          slot = Simplifier.simplify(slot.add(IntImm.of(DType.INT32, base)));
          Buffer reg = registers.get(st.buffer());
          return load
              ? new Store(reg, slot, st.value())
              : new Store(st.buffer(), st.index(), Load.of(reg, slot));
        }
        default -> {
          // A let, an allocation or anything else in the fetch: not the shape this pass knows.
          ok = false;
          return s;
        }
      }
    }
  }
}
