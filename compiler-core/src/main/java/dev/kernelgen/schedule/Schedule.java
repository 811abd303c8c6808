package dev.kernelgen.schedule;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Range;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A schedule of the operations that compute some output tensors: one {@link Stage} per operation,
 * producers before consumers. Primitives record relations and attributes as data; loops are built
 * only when lowering. Every primitive is kept in a replayable {@link Trace}.
 */
public final class Schedule {
  private final List<Tensor> outputs;
  private final List<Stage> stages = new ArrayList<>();
  private final Map<Tensor, Stage> stageOf = new HashMap<>();
  private final Trace trace = new Trace();

  private Schedule(List<Tensor> outputs) {
    this.outputs = List.copyOf(outputs);
    Set<Tensor> visited = new LinkedHashSet<>();
    for (Tensor t : outputs) {
      postOrder(t, visited, new LinkedHashSet<>());
    }
    for (Tensor t : visited) {
      Stage s = new Stage(this, t);
      stages.add(s);
      stageOf.put(t, s);
    }
    for (Tensor t : outputs) {
      UserError.check(
          !stageOf.get(t).isPlaceholder(),
          "output '%s' is a placeholder: an operator must compute its outputs",
          t.name());
      stageOf.get(t).markOutput();
    }
  }

  private static void postOrder(Tensor t, Set<Tensor> visited, Set<Tensor> onPath) {
    if (visited.contains(t)) {
      return;
    }
    UserError.check(onPath.add(t), "tensor '%s' depends on itself", t.name());
    for (Tensor in : t.op().inputs()) {
      postOrder(in, visited, onPath);
    }
    onPath.remove(t);
    visited.add(t);
  }

  /** The default schedule of the operations that compute {@code outputs}. */
  public static Schedule create(Tensor... outputs) {
    UserError.check(outputs.length > 0, "a schedule needs at least one output tensor");
    return new Schedule(List.of(outputs));
  }

  public static Schedule create(List<Tensor> outputs) {
    return create(outputs.toArray(Tensor[]::new));
  }

  public List<Tensor> outputs() {
    return outputs;
  }

  /** All stages, producers before consumers. */
  public List<Stage> stages() {
    return List.copyOf(stages);
  }

  /** The stage that computes {@code t} ({@code s[t]} in TVM). */
  public Stage stage(Tensor t) {
    Stage s = stageOf.get(t);
    UserError.check(s != null, "tensor '%s' is not computed by this schedule", t.name());
    return s;
  }

  /** A stage by tensor name, for replaying traces. */
  public Stage stage(String name) {
    for (Stage s : stages) {
      if (s.name().equals(name)) {
        return s;
      }
    }
    throw new UserError("this schedule has no stage named '" + name + "'");
  }

  public Trace trace() {
    return trace;
  }

  /** The placeholder tensors the outputs are computed from, in first-use order. */
  public List<Tensor> inputs() {
    return stages.stream().filter(Stage::isPlaceholder).map(Stage::tensor).toList();
  }

  /** The stages whose bodies read {@code s}'s tensor. */
  public List<Stage> readers(Stage s) {
    List<Stage> out = new ArrayList<>();
    for (Stage c : stages) {
      if (c.body() != null && reads(c.body(), s.tensor())) {
        out.add(c);
      }
    }
    return out;
  }

  static boolean reads(Expr body, Tensor t) {
    boolean[] found = {false};
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        if (e instanceof TensorRead r && r.tensor() == t) {
          found[0] = true;
        }
        super.visit(e);
      }
    }.visit(body);
    return found[0];
  }

  /** Whether {@code consumer} reads {@code producer}, directly or through other stages. */
  boolean dependsOn(Stage consumer, Stage producer) {
    for (Stage r : readers(producer)) {
      if (r == consumer || dependsOn(consumer, r)) {
        return true;
      }
    }
    return false;
  }

  Stage ownerOf(IterVar iv) {
    for (Stage s : stages) {
      if (s.owns(iv)) {
        return s;
      }
    }
    return null;
  }

  /**
   * Adds a stage that copies {@code t} into memory {@code scope} and makes {@code readers} read the
   * copy: {@code t.shared[i] = t[i]}. Returns the copy.
   */
  public Tensor cacheRead(Tensor t, String scope, Tensor... readers) {
    Stage producer = stage(t);
    UserError.check(readers.length > 0, "cache_read of '%s' needs at least one reader", t.name());
    List<Stage> readerStages = new ArrayList<>();
    for (Tensor r : readers) {
      Stage rs = stage(r);
      UserError.check(
          rs.body() != null && reads(rs.body(), t),
          "cache_read of '%s' for reader '%s', which does not read it",
          t.name(),
          r.name());
      readerStages.add(rs);
    }
    String name = uniqueName(t.name() + "." + scope);
    Tensor copy = TE.computeN(name, t.shape(), i -> t.at(i));
    Stage cs = insertAfter(producer, copy);
    cs.initScope(dev.kernelgen.te.MemoryScope.parse(scope));
    for (Stage rs : readerStages) {
      rs.setBody(replaceReads(rs.body(), t, copy));
    }
    List<String> args = new ArrayList<>(List.of(scope));
    args.addAll(List.of(names(readers)));
    trace.record(producer, "cache_read", args.toArray(String[]::new));
    return copy;
  }

  /**
   * Computes {@code t} into a new stage in memory {@code scope}, and makes {@code t}'s stage copy
   * from it: {@code t[i] = t.local[i]}. The new stage takes over the reduction. Returns the cache.
   */
  public Tensor cacheWrite(Tensor t, String scope) {
    Stage s = stage(t);
    UserError.check(
        !s.isPlaceholder(), "cache_write of '%s': it is an input (placeholder)", t.name());
    UserError.check(
        s.relations().isEmpty() && s.leafIterVars().equals(s.rootIterVars()),
        "cache_write of '%s' must come before its loops are split, fused or reordered",
        t.name());
    ComputeOp op = (ComputeOp) t.op();
    String name = uniqueName(t.name() + "." + scope);
    Map<Var, Expr> fresh = new HashMap<>();
    List<IterVar> axis = new ArrayList<>();
    for (IterVar iv : op.axis()) {
      Var v = new Var(iv.name(), iv.var().dtype());
      fresh.put(iv.var(), v);
      axis.add(new IterVar(v, iv.dom(), iv.kind()));
    }
    Tensor cache = new ComputeOp(name, axis, Substitute.apply(s.body(), fresh), op.tag()).output();
    Stage cs = insertBefore(s, cache);
    cs.initScope(dev.kernelgen.te.MemoryScope.parse(scope));
    s.setBody(cache.at(op.axis().stream().map(iv -> (Expr) iv.var()).toList()));
    s.dropReduceAxes();
    trace.record(s, "cache_write", scope);
    return cache;
  }

  private String uniqueName(String base) {
    String name = base;
    for (int k = 1; nameTaken(name); k++) {
      name = base + k;
    }
    return name;
  }

  private boolean nameTaken(String name) {
    return stages.stream().anyMatch(st -> st.name().equals(name));
  }

  private Stage insertAfter(Stage anchor, Tensor t) {
    Stage s = new Stage(this, t);
    stages.add(stages.indexOf(anchor) + 1, s);
    stageOf.put(t, s);
    return s;
  }

  private Stage insertBefore(Stage anchor, Tensor t) {
    Stage s = new Stage(this, t);
    stages.add(stages.indexOf(anchor), s);
    stageOf.put(t, s);
    return s;
  }

  private static Expr replaceReads(Expr body, Tensor from, Tensor to) {
    return new ExprMutator() {
      @Override
      public Expr mutate(Expr e) {
        Expr m = mutateChildren(e);
        if (m instanceof TensorRead r && r.tensor() == from) {
          return TensorRead.of(to, r.indices());
        }
        return m;
      }
    }.mutate(body);
  }

  private static String[] names(Tensor[] ts) {
    String[] out = new String[ts.length];
    for (int k = 0; k < ts.length; k++) {
      out[k] = ts[k].name();
    }
    return out;
  }

  /** The domain of a root iteration variable, as declared. */
  static Range domain(IterVar iv) {
    return iv.dom();
  }

  @Override
  public String toString() {
    return trace.toString();
  }
}
