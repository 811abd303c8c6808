package dev.kernelgen.lower;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.CrossThread;
import dev.kernelgen.schedule.IterVarRelation;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Range;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Evaluate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.ProducerRealize;
import dev.kernelgen.tir.ProducerStore;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the loop nests: one per stage at root, in producer-to-consumer order, and the nests of
 * attached stages inside the loops they are attached at. Tensors are still multi-dimensional
 * ({@link ProducerRealize}, {@link ProducerStore}, {@link TensorRead}); storage flattening follows.
 *
 * <p>Each loop runs from 0; the axes of the operation are replaced by their values in terms of the
 * loops (split: {@code outer * factor + inner}; fuse: floor division and modulo). Splits that do
 * not divide get a guard as deep as the loops it depends on and no deeper; stages computed at a
 * loop guard the parts of their region that fall outside their tensor.
 */
final class ScheduleOps {
  private final StageGraph g;
  private final InferBounds.Bounds b;

  private ScheduleOps(StageGraph g, InferBounds.Bounds b) {
    this.g = g;
    this.b = b;
  }

  static Stmt run(StageGraph g, InferBounds.Bounds b) {
    ScheduleOps ops = new ScheduleOps(g, b);
    Stmt body = Evaluate.nop();
    List<Stage> roots = new ArrayList<>();
    for (Stage s : g.stages) {
      if (s.attachType() == AttachType.ROOT) {
        roots.add(s);
      }
    }
    for (int k = roots.size() - 1; k >= 0; k--) {
      Stage s = roots.get(k);
      body = body instanceof Evaluate e && e.isNop() ? ops.nest(s) : Seq.of(ops.nest(s), body);
      if (!s.isOutput()) {
        body = ops.realize(s, body);
      }
    }
    return body;
  }

  private Stmt realize(Stage s, Stmt body) {
    List<Range> region = new ArrayList<>();
    for (IterVar iv : s.axis()) {
      region.add(b.of(iv));
    }
    return new ProducerRealize(s.tensor(), region, s.scope(), body);
  }

  /**
   * {@code e} with each axis replaced by its value in the loop nest. Where the nest's loops are
   * wider than the axes (64-bit indices, {@link IndexWidth#WIDE}), an axis read as a value (a
   * compute of its index, an argmin's position, a mask) keeps its own dtype through a cast, exact
   * since every dim fits its axis's dtype; tensor indices keep the wide value, which the flattened
   * address needs, and so do comparisons (bounds, masks), which later passes partition loops by.
   */
  static Expr substituteAxes(Expr e, Map<Var, Expr> values) {
    return new ExprMutator() {
      @Override
      public Expr mutate(Expr x) {
        if (x instanceof TensorRead r) {
          return TensorRead.of(
              r.tensor(), r.indices().stream().map(i -> Substitute.apply(i, values)).toList());
        }
        if (x instanceof Binary b && b.op().isComparison()) {
          return Substitute.apply(x, values); // a bound or mask: the values compare as they are
        }
        if (x instanceof Var v && values.containsKey(v)) {
          return Cast.of(v.dtype(), values.get(v));
        }
        return mutateChildren(x);
      }
    }.mutate(e);
  }

  /** The loop nest of one stage, with the stages attached inside it. */
  private Stmt nest(Stage s) {
    List<IterVar> leaves = s.leafIterVars();
    int n = leaves.size();
    Map<IterVar, Expr> value = passUpIndex(s);
    Map<Var, Integer> position = new HashMap<>();
    for (int p = 0; p < n; p++) {
      position.put(b.loopVar(leaves.get(p)), p);
    }

    // Guards, each at the depth of its deepest loop; the axes are substituted by their values.
    List<List<Expr>> guards = new ArrayList<>();
    for (int p = -1; p < n; p++) {
      guards.add(new ArrayList<>());
    }
    for (Expr guard : guards(s, value)) {
      guards.get(depth(guard, position) + 1).add(guard);
    }
    Map<Var, Expr> axisValues = new HashMap<>();
    for (IterVar root : s.rootIterVars()) {
      axisValues.put(root.var(), value.get(root));
    }

    Expr body = g.body(s);
    List<Expr> index = s.axis().stream().map(iv -> Simplifier.simplify(value.get(iv))).toList();
    Stmt inner;
    int firstReduce = -1;
    if (body instanceof Reduce r) {
      Expr source = substituteAxes(r.source(), axisValues);
      Expr update = r.combiner().apply(TensorRead.of(s.tensor(), index), source);
      inner = new ProducerStore(s.tensor(), index, update);
      if (!(r.condition() instanceof IntImm c && c.value() == 1)) {
        inner = IfThenElse.of(substituteAxes(r.condition(), axisValues), inner);
      }
      for (int p = 0; p < n && firstReduce < 0; p++) {
        if (leaves.get(p).isReduce()) {
          firstReduce = p;
        }
      }
    } else {
      inner = new ProducerStore(s.tensor(), index, substituteAxes(body, axisValues));
    }

    Stmt stmt = inner;
    for (int p = n - 1; p >= -1; p--) {
      stmt = wrapGuards(guards.get(p + 1), stmt);
      if (p >= 0) {
        List<String> pragmas = new ArrayList<>(s.attr(leaves.get(p)).pragmas());
        for (Stage child : reversed(g.attachedAt(s, leaves.get(p)))) {
          stmt = realize(child, Seq.of(nest(child), stmt));
          if (child.isDoubleBuffered() && !pragmas.contains(InjectDoubleBuffer.PRAGMA)) {
            pragmas.add(
                InjectDoubleBuffer.PRAGMA); // the loop whose tiles InjectDoubleBuffer doubles
          }
        }
        IterVar leaf = leaves.get(p);
        Stage.IterVarAttr a = s.attr(leaf);
        stmt =
            new For(
                b.loopVar(leaf),
                IntImm.like(b.extent(leaf), 0),
                b.extent(leaf),
                a.kind(),
                a.threadTag(),
                pragmas,
                stmt);
        if (p == firstReduce) {
          stmt = Seq.of(init(s, (Reduce) body, index, leaves, p, guards, position), stmt);
        }
      }
    }
    IterVar kt = CrossThread.threadReduceLeaf(s);
    if (kt != null && body instanceof Reduce r) {
      stmt = Seq.of(stmt, AllReduce.of(s, r, index, kt, b, leaves));
    }
    return stmt;
  }

  /**
   * The initialisation of a reduction, placed just before its outermost reduce loop: the data loops
   * inside that point are repeated around it, with the bindings and guards they carry.
   */
  private Stmt init(
      Stage s,
      Reduce r,
      List<Expr> index,
      List<IterVar> leaves,
      int firstReduce,
      List<List<Expr>> guards,
      Map<Var, Integer> position) {
    Stmt stmt = new ProducerStore(s.tensor(), index, r.combiner().identity());
    List<Expr> innerGuards = new ArrayList<>();
    for (int p = firstReduce; p < leaves.size(); p++) {
      for (Expr gd : guards.get(p + 1)) {
        if (!usesReduceLoop(gd, s, position, leaves)) {
          innerGuards.add(gd);
        }
      }
    }
    stmt = wrapGuards(innerGuards, stmt);
    for (int p = leaves.size() - 1; p >= firstReduce; p--) {
      IterVar leaf = leaves.get(p);
      if (!leaf.isReduce()) {
        Stage.IterVarAttr a = s.attr(leaf);
        ForKind kind = a.kind() == ForKind.PARALLEL ? ForKind.SERIAL : a.kind();
        stmt =
            new For(
                b.loopVar(leaf),
                IntImm.like(b.extent(leaf), 0),
                b.extent(leaf),
                kind,
                a.threadTag(),
                a.pragmas(),
                stmt);
      }
    }
    return stmt;
  }

  private boolean usesReduceLoop(
      Expr e, Stage s, Map<Var, Integer> position, List<IterVar> leaves) {
    for (Var v : FreeVars.of(e)) {
      Integer p = position.get(v);
      if (p != null && leaves.get(p).isReduce()) {
        return true;
      }
    }
    return false;
  }

  /** The value of every iteration variable of {@code s} in terms of its loop variables. */
  private Map<IterVar, Expr> passUpIndex(Stage s) {
    Map<IterVar, Expr> value = new HashMap<>();
    for (IterVar leaf : s.leafIterVars()) {
      value.put(leaf, b.loopVar(leaf));
    }
    List<IterVarRelation> rels = new ArrayList<>(s.relations());
    java.util.Collections.reverse(rels);
    for (IterVarRelation r : rels) {
      switch (r) {
        case IterVarRelation.Split sp ->
            value.put(
                sp.parent(),
                Simplifier.simplify(
                    value.get(sp.outer()).mul(b.extent(sp.inner())).add(value.get(sp.inner()))));
        case IterVarRelation.Fuse fu -> {
          Expr f = value.get(fu.fused());
          Expr e = b.extent(fu.inner());
          value.put(fu.outer(), Simplifier.simplify(f.floordiv(e)));
          value.put(fu.inner(), Simplifier.simplify(f.floormod(e)));
        }
      }
    }
    Map<IterVar, Expr> out = new HashMap<>(value);
    for (IterVar root : s.rootIterVars()) {
      Expr min = b.of(root).min();
      Expr v = value.get(root);
      out.put(
          root, min instanceof IntImm m && m.value() == 0 ? v : Simplifier.simplify(v.add(min)));
    }
    return out;
  }

  /** Guards for splits that may not divide, and for attached regions beyond the tensor. */
  private List<Expr> guards(Stage s, Map<IterVar, Expr> value) {
    List<Expr> out = new ArrayList<>();
    for (IterVarRelation r : s.relations()) {
      if (r instanceof IterVarRelation.Split sp) {
        Expr ext = b.extent(sp.parent());
        Expr inner = b.extent(sp.inner());
        Expr outer = b.extent(sp.outer());
        if (divides(ext, inner, outer)) {
          continue;
        }
        Expr rel = value.get(sp.parent());
        if (s.rootIterVars().contains(sp.parent())) {
          rel = Simplifier.simplify(rel.sub(b.of(sp.parent()).min()));
        }
        add(out, rel.lt(ext));
      }
    }
    if (s.attachType() == AttachType.SCOPE) {
      for (IterVar root : s.axis()) {
        Range full = root.dom();
        Range got = b.of(root);
        if (full.equals(got)) {
          continue;
        }
        Expr v = value.get(root);
        add(out, v.ge(full.min()));
        add(out, v.lt(full.min().add(full.extent())));
      }
    }
    return out;
  }

  private static void add(List<Expr> guards, Expr cond) {
    Expr c = Simplifier.simplify(cond);
    if (!(c instanceof IntImm i && i.value() == 1)) {
      guards.add(c);
    }
  }

  private static boolean divides(Expr ext, Expr inner, Expr outer) {
    if (ext instanceof IntImm e && inner instanceof IntImm i && outer instanceof IntImm o) {
      return e.value() == i.value() * o.value();
    }
    return Simplifier.simplify(outer.mul(inner).sub(ext)) instanceof IntImm d && d.value() == 0;
  }

  private static int depth(Expr e, Map<Var, Integer> position) {
    int d = -1;
    for (Var v : FreeVars.of(e)) {
      Integer p = position.get(v);
      if (p != null) {
        d = Math.max(d, p);
      }
    }
    return d;
  }

  private static Stmt wrapGuards(List<Expr> guards, Stmt body) {
    if (guards.isEmpty()) {
      return body;
    }
    Expr cond = guards.get(0);
    for (int k = 1; k < guards.size(); k++) {
      cond = cond.and(guards.get(k));
    }
    return IfThenElse.of(cond, body);
  }

  private static <T> List<T> reversed(List<T> list) {
    List<T> out = new ArrayList<>(list);
    java.util.Collections.reverse(out);
    return out;
  }
}
