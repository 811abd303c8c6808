package dev.kernelgen.te;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A compute body with reductions inside an elementwise expression, as users write a mean ({@code
 * sum(x.at(i, k), k).div(n)}) or a normalisation ({@code x.at(i, j).div(sqrt(sum(...)))}): each
 * such reduction becomes a compute of its own, over the body's axes that it reads (in their order),
 * and the body reads it there. TVM asks the user to write the two stages; this writes them. The
 * stages are named after the compute and the combiner ({@code Mean_sum}, then {@code Mean_sum1});
 * equal reductions share one. A reduction that reads another reduction's axis, or one nested in a
 * reduction's source, is left where it is, for {@link ComputeOp}'s checks to name.
 */
final class NestedReductions {
  private NestedReductions() {}

  /** {@code body} with its liftable nested reductions read from stages of their own. */
  static Expr lift(String name, List<IterVar> axis, Expr body) {
    if (body instanceof Reduce) {
      return body; // a reduction at the top is the compute itself
    }
    Map<Key, Expr> lifted = new LinkedHashMap<>();
    Map<String, Integer> used = new HashMap<>();
    return new ExprMutator() {
      @Override
      public Expr mutate(Expr e) {
        if (e instanceof Reduce r && liftable(r, axis)) {
          return lifted.computeIfAbsent(Key.of(r), x -> stage(name, axis, r, used));
        }
        if (e instanceof Reduce) {
          return e;
        }
        return mutateChildren(e);
      }
    }.mutate(body);
  }

  /**
   * A reduction up to its combiner's own variables (each {@code sum(...)} makes a reducer of fresh
   * ones): two reductions with equal keys compute the same values.
   */
  private record Key(
      String combiner, Expr combine, Expr identity, Expr source, List<IterVar> axes, Expr where) {
    /** The combiner's two variables, one pair per dtype, the same for every reduction. */
    private static final Map<DType, List<Var>> XY = new EnumMap<>(DType.class);

    static {
      for (DType t : DType.values()) {
        XY.put(t, List.of(new Var("x", t), new Var("y", t)));
      }
    }

    static Key of(Reduce r) {
      Reducer c = r.combiner();
      List<Var> xy = XY.get(c.x().dtype());
      Expr combine = Substitute.apply(c.combine(), Map.of(c.x(), xy.get(0), c.y(), xy.get(1)));
      return new Key(c.name(), combine, c.identity(), r.source(), r.axes(), r.condition());
    }
  }

  /** Whether every reduce axis {@code r} reads is its own, and no reduction nests in it. */
  private static boolean liftable(Reduce r, List<IterVar> axis) {
    Set<Var> own = new HashSet<>();
    r.axes().forEach(iv -> own.add(iv.var()));
    for (Var v : FreeVars.of(r)) {
      if (v.isReduceAxis() && !own.contains(v)) {
        return false;
      }
    }
    boolean[] nested = {false};
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        nested[0] |= e instanceof Reduce;
        super.visit(e);
      }
    }.visit(r.source());
    return !nested[0];
  }

  /** The compute of {@code r} over the axes it reads, and the read of it at those axes. */
  private static Expr stage(String name, List<IterVar> axis, Reduce r, Map<String, Integer> used) {
    Set<Var> free = new HashSet<>(FreeVars.of(r));
    for (IterVar iv : r.axes()) {
      // A triangular reduction's bounds read data axes too.
      free.addAll(FreeVars.of(iv.dom().min()));
      free.addAll(FreeVars.of(iv.dom().extent()));
    }
    List<IterVar> own = new ArrayList<>();
    List<Expr> at = new ArrayList<>();
    Map<Var, Expr> rename = new HashMap<>();
    for (IterVar iv : axis) {
      if (free.contains(iv.var())) {
        Var v = new Var(iv.var().name(), iv.var().dtype());
        own.add(new IterVar(v, iv.dom(), IterVar.Kind.DATA_PAR));
        rename.put(iv.var(), v);
        at.add(iv.var());
      }
    }
    if (own.isEmpty()) {
      // A reduction over everything: one element, read at 0.
      Var v = new Var("i", DType.INT32);
      own.add(new IterVar(v, Range.fromExtent(IntImm.of(DType.INT32, 1)), IterVar.Kind.DATA_PAR));
      at.add(IntImm.of(DType.INT32, 0));
    }
    // Fresh reduce axes too: the user's may serve other reductions of the same body.
    List<IterVar> axes = new ArrayList<>();
    for (IterVar iv : r.axes()) {
      Var v = Var.reduceAxis(iv.var().name(), iv.var().dtype());
      rename.put(iv.var(), v);
      Range dom =
          new Range(
              Substitute.apply(iv.dom().min(), rename),
              Substitute.apply(iv.dom().extent(), rename));
      axes.add(new IterVar(v, dom, IterVar.Kind.REDUCE));
    }
    Reduce body =
        new Reduce(
            r.combiner(),
            Substitute.apply(r.source(), rename),
            axes,
            Substitute.apply(r.condition(), rename));
    String base = name + "_" + r.combiner().name().replaceAll("[^A-Za-z0-9_]", "_");
    int n = used.merge(base, 1, Integer::sum) - 1;
    ComputeOp op = new ComputeOp(n == 0 ? base : base + n, own, body, "");
    return op.output().at(at);
  }
}
