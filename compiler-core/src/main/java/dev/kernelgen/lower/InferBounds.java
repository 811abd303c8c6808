package dev.kernelgen.lower;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.IterVarRelation;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Range;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Bound inference: the range of every iteration variable of every stage. A stage at root covers its
 * whole output; a stage computed at a loop of a consumer covers the region its consumers read
 * during one iteration of that loop (a stencil's halo included), as an expression of the loops
 * outside. Derived loops get their extents from the relations (split: ceil division).
 */
final class InferBounds {
  /** Ranges of root and leaf iteration variables; loops derived by a schedule start at 0. */
  static final class Bounds {
    final Map<IterVar, Range> ranges = new HashMap<>();

    Range of(IterVar iv) {
      Range r = ranges.get(iv);
      if (r == null) {
        throw new dev.kernelgen.diag.CompilerBug("no bound inferred for " + iv.name());
      }
      return r;
    }

    Expr extent(IterVar iv) {
      return of(iv).extent();
    }

    final Map<IterVar, Var> loopVars = new HashMap<>();

    /**
     * The variable of the loop over a leaf. Loops start at 0; a root axis whose range starts
     * elsewhere gets a loop variable of its own, and the axis is bound to {@code loop + min}.
     */
    Var loopVar(IterVar leaf) {
      Var v = loopVars.get(leaf);
      if (v == null) {
        throw new dev.kernelgen.diag.CompilerBug("no loop variable for " + leaf.name());
      }
      return v;
    }
  }

  private InferBounds() {}

  static Bounds run(StageGraph g, IndexWidth width) {
    Bounds b = new Bounds();
    List<Stage> reversed = new ArrayList<>(g.stages);
    java.util.Collections.reverse(reversed);
    for (Stage s : reversed) {
      inferRoot(g, s, b);
      passDown(s, b, width);
      for (IterVar leaf : s.leafIterVars()) {
        boolean zeroBased = b.of(leaf).min() instanceof IntImm m && m.value() == 0;
        DType t = loopType(leaf.var().dtype(), b.extent(leaf), width);
        b.loopVars.put(
            leaf, zeroBased && t == leaf.var().dtype() ? leaf.var() : new Var(leaf.name(), t));
      }
    }
    return b;
  }

  private static void inferRoot(StageGraph g, Stage s, Bounds b) {
    for (IterVar iv : s.reduceAxis()) {
      b.ranges.put(iv, iv.dom());
    }
    if (s.attachType() != AttachType.SCOPE) {
      for (IterVar iv : s.axis()) {
        b.ranges.put(iv, iv.dom());
      }
      return;
    }
    List<Stage> consumers = g.readers(s);
    int dims = s.axis().size();
    Interval[] region = new Interval[dims];
    for (Stage c : consumers) {
      checkInScope(s, c);
      Map<Var, Interval> env = rootIntervals(c, s, b);
      for (TensorRead r : g.reads(c, s.tensor())) {
        for (int d = 0; d < dims; d++) {
          Interval i = Interval.eval(r.indices().get(d), env);
          if (i == null) {
            i = Interval.ofExtent(s.axis().get(d).dom().extent());
          }
          region[d] = region[d] == null ? i : region[d].union(i);
        }
      }
    }
    for (int d = 0; d < dims; d++) {
      IterVar iv = s.axis().get(d);
      if (region[d] == null) {
        b.ranges.put(iv, iv.dom());
      } else {
        b.ranges.put(iv, new Range(region[d].min(), region[d].extent()));
      }
    }
  }

  /** A consumer of an attached stage must run inside the loop the stage is attached at. */
  private static void checkInScope(Stage s, Stage consumer) {
    Stage parent = s.attachStage();
    if (consumer == parent) {
      return;
    }
    int depth = parent.leafIterVars().indexOf(s.attachIterVar());
    for (Stage c = consumer; c != null; c = c.attachStage()) {
      if (c.attachStage() == parent && parent.leafIterVars().indexOf(c.attachIterVar()) >= depth) {
        return;
      }
    }
    throw new UserError(
        String.format(
            "compute_at of '%s' at axis '%s' of '%s': '%s' also reads it, outside that loop",
            s.name(), s.attachIterVar().name(), parent.name(), consumer.name()));
  }

  /**
   * The intervals of consumer {@code c}'s root variables during one iteration of the loop that
   * {@code s} is attached at: loops of {@code c} outside it are fixed, the rest run their ranges.
   */
  private static Map<Var, Interval> rootIntervals(Stage c, Stage s, Bounds b) {
    List<IterVar> leaves = c.leafIterVars();
    int fixedUpTo = c == s.attachStage() ? leaves.indexOf(s.attachIterVar()) : -1;
    Map<Var, Interval> threads = blockThreadLoops(s, b);
    Map<IterVar, Interval> iv = new HashMap<>();
    for (int p = 0; p < leaves.size(); p++) {
      IterVar leaf = leaves.get(p);
      boolean fixed = p <= fixedUpTo && !threads.containsKey(b.loopVar(leaf));
      iv.put(leaf, fixed ? Interval.point(b.loopVar(leaf)) : Interval.ofExtent(b.extent(leaf)));
    }
    List<IterVarRelation> rels = new ArrayList<>(c.relations());
    java.util.Collections.reverse(rels);
    for (IterVarRelation r : rels) {
      switch (r) {
        case IterVarRelation.Split sp -> {
          Expr f = b.extent(sp.inner());
          Interval o = iv.get(sp.outer());
          Interval i = iv.get(sp.inner());
          iv.put(
              sp.parent(),
              new Interval(
                  Simplifier.simplify(o.min().mul(f).add(i.min())),
                  Simplifier.simplify(o.max().mul(f).add(i.max()))));
        }
        case IterVarRelation.Fuse fu -> {
          Interval f = iv.get(fu.fused());
          if (f.isPoint()) {
            Expr e = b.extent(fu.inner());
            iv.put(fu.outer(), Interval.point(Simplifier.simplify(f.min().floordiv(e))));
            iv.put(fu.inner(), Interval.point(Simplifier.simplify(f.min().floormod(e))));
          } else {
            iv.put(fu.outer(), Interval.ofExtent(b.extent(fu.outer())));
            iv.put(fu.inner(), Interval.ofExtent(b.extent(fu.inner())));
          }
        }
      }
    }
    Map<Var, Interval> relax = new HashMap<>(relaxedOuterLoops(c, s, b));
    relax.putAll(threads);
    Map<Var, Interval> env = new HashMap<>();
    for (IterVar root : c.rootIterVars()) {
      Interval i = iv.get(root);
      Expr min = b.of(root).min();
      Expr lo = Simplifier.simplify(i.min().add(min));
      Expr hi = Simplifier.simplify(i.max().add(min));
      if (!relax.isEmpty()) {
        Interval l = Interval.eval(lo, relax);
        Interval h = Interval.eval(hi, relax);
        if (l == null || h == null) {
          Expr ext = root.dom().extent();
          lo = IntImm.like(ext, 0);
          hi = Simplifier.simplify(ext.sub(1));
        } else {
          lo = l.min();
          hi = h.max();
        }
      }
      env.put(root.var(), new Interval(lo, hi));
    }
    return env;
  }

  /**
   * For a stage in shared memory: the loops around its attach point that are bound to threadIdx or
   * to virtual threads. A shared buffer belongs to the whole block and all its threads fill it
   * together, so its region is the union over those threads, not one thread's part (as TVM relaxes
   * thread loops for shared scope). Empty for other scopes.
   */
  private static Map<Var, Interval> blockThreadLoops(Stage s, Bounds b) {
    Map<Var, Interval> out = new HashMap<>();
    if (s.scope() != dev.kernelgen.te.MemoryScope.SHARED) {
      return out;
    }
    IterVar at = s.attachIterVar();
    for (Stage q = s.attachStage(); q != null; at = q.attachIterVar(), q = q.attachStage()) {
      List<IterVar> leaves = q.leafIterVars();
      int upTo = leaves.indexOf(at);
      for (int p = 0; p <= upTo; p++) {
        IterVar leaf = leaves.get(p);
        String tag = q.attr(leaf).threadTag();
        if (tag != null && (tag.startsWith("threadIdx.") || tag.equals("vthread"))) {
          out.put(b.loopVar(leaf), Interval.ofExtent(b.extent(leaf)));
        }
      }
    }
    return out;
  }

  /**
   * The loops that enclose consumer {@code c} but lie inside the loop {@code s} is attached at:
   * they run their whole ranges during one iteration of that loop. Regions of {@code c} are
   * expressions of them, so they are relaxed to their ranges.
   */
  private static Map<Var, Interval> relaxedOuterLoops(Stage c, Stage s, Bounds b) {
    Map<Var, Interval> relax = new HashMap<>();
    Stage parent = s.attachStage();
    if (c == parent) {
      return relax;
    }
    for (Stage q = c.attachStage(); q != null; q = q.attachStage()) {
      List<IterVar> leaves = q.leafIterVars();
      int from = q == parent ? leaves.indexOf(s.attachIterVar()) + 1 : 0;
      for (int p = from; p < leaves.size(); p++) {
        relax.put(b.loopVar(leaves.get(p)), Interval.ofExtent(b.extent(leaves.get(p))));
      }
      if (q == parent) {
        break;
      }
    }
    return relax;
  }

  /**
   * The dtype of a loop variable over {@code extent}: 64-bit where the iteration variable is, where
   * a constant extent passes 2^31 - 1, and for a symbolic extent in a {@link IndexWidth#WIDE}
   * function; else 32-bit.
   */
  static DType loopType(DType declared, Expr extent, IndexWidth width) {
    if (declared == DType.INT64 || extent.dtype() == DType.INT64) {
      return DType.INT64;
    }
    if (extent instanceof IntImm e) {
      return e.value() > Integer.MAX_VALUE ? DType.INT64 : declared;
    }
    return width == IndexWidth.WIDE ? DType.INT64 : declared;
  }

  /**
   * An extent as a split or fuse computes with it: a symbolic one 64-bit in a {@link
   * IndexWidth#WIDE} function, so that rounding up and products cannot wrap.
   */
  private static Expr widened(Expr ext, IndexWidth width) {
    return width == IndexWidth.WIDE && !(ext instanceof IntImm) && ext.dtype() == DType.INT32
        ? Cast.of(DType.INT64, ext)
        : ext;
  }

  private static Expr constant(IterVar iv, Expr parentExtent, long value) {
    boolean narrow = iv.var().dtype() == DType.INT32 && value <= Integer.MAX_VALUE;
    return narrow ? IntImm.of(DType.INT32, value) : IntImm.like(parentExtent, value);
  }

  /** The product of two extents, 64-bit where constants pass 2^31 - 1. */
  private static Expr product(Expr a, Expr b) {
    if (a instanceof IntImm x && b instanceof IntImm y) {
      long p = Math.multiplyExact(x.value(), y.value());
      boolean fits = p <= Integer.MAX_VALUE && a.dtype() == DType.INT32 && b.dtype() == DType.INT32;
      return IntImm.of(fits ? DType.INT32 : DType.INT64, p);
    }
    return Simplifier.simplify(a.mul(b));
  }

  /** Extents of derived loops from their parents'. */
  private static void passDown(Stage s, Bounds b, IndexWidth width) {
    for (IterVarRelation r : s.relations()) {
      switch (r) {
        case IterVarRelation.Split sp -> {
          Expr declared = b.extent(sp.parent());
          Expr ext = widened(declared, width);
          Expr outer;
          Expr inner;
          // A constant part in the dtype the schedule gave its loop: 32-bit under a fused 64-bit
          // extent, so that the thread index of a block of 256 stays an int.
          if (sp.factor() > 0) {
            inner = constant(sp.inner(), declared, sp.factor());
            outer = ceilDiv(ext, sp.factor());
          } else {
            outer = constant(sp.outer(), declared, sp.nparts());
            inner = ceilDiv(ext, sp.nparts());
          }
          b.ranges.put(sp.outer(), Range.fromExtent(outer));
          b.ranges.put(sp.inner(), Range.fromExtent(inner));
        }
        case IterVarRelation.Fuse fu ->
            b.ranges.put(
                fu.fused(),
                Range.fromExtent(
                    product(
                        widened(b.extent(fu.outer()), width),
                        widened(b.extent(fu.inner()), width))));
      }
    }
  }

  static Expr ceilDiv(Expr ext, long f) {
    if (ext instanceof IntImm i) {
      return IntImm.like(ext, Math.floorDiv(i.value() + f - 1, f));
    }
    return Simplifier.simplify(ext.add(f - 1).floordiv(f));
  }
}
