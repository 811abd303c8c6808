package dev.kernelgen.schedule;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Range;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorGraph;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.HashMap;
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

  /** The operator's outputs that a rewritten DAG computes by other tensors ({@link #rewritten}). */
  private final Map<Tensor, Tensor> computedFor = new java.util.IdentityHashMap<>();

  private Schedule(List<Tensor> outputs) {
    this.outputs = List.copyOf(outputs);
    for (Tensor t : TensorGraph.producersFirst(this.outputs)) {
      if (t.op() instanceof ComputeOp c) {
        ReadBounds.check(c);
      }
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

  /**
   * The default schedule of a rewrite of an operator's DAG (another algorithm: {@code algo}):
   * {@code computed.get(k)} computes output {@code outputs.get(k)} (its shape and dtype), and
   * lowering binds that output's argument to it ({@link #computed}).
   */
  public static Schedule rewritten(List<Tensor> outputs, List<Tensor> computed) {
    Schedule s = create(computed);
    for (int k = 0; k < outputs.size(); k++) {
      Tensor o = outputs.get(k);
      Tensor c = computed.get(k);
      CompilerBug.check(
          o.dtype() == c.dtype() && o.shape().equals(c.shape()),
          "rewrite: '%s' computed by '%s' of another shape or dtype",
          o.name(),
          c.name());
      s.computedFor.put(o, c);
    }
    return s;
  }

  /**
   * The tensor this schedule computes for the operator's tensor {@code t}: {@code t} itself unless
   * the schedule is of a rewritten DAG ({@link #rewritten}).
   */
  public Tensor computed(Tensor t) {
    return computedFor.getOrDefault(t, t);
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
    List<Stage> readerStages = readerStages("cache_read", t, readers);
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
   * Adds a stage that holds {@code t} with {@code before[d]} and {@code after[d]} elements of
   * {@code value} around each axis d, and makes {@code readers} read it ({@link PaddedReads}): a
   * window's padding, written inside its sum as a select, computed once. Returns the copy.
   */
  public Tensor pad(Tensor t, long[] before, long[] after, Expr value, Tensor... readers) {
    Stage producer = stage(t);
    UserError.check(
        before.length == t.ndim() && after.length == t.ndim(),
        "pad of '%s': %d axes, padding given for %d and %d",
        t.name(),
        t.ndim(),
        before.length,
        after.length);
    UserError.check(
        java.util.stream.LongStream.concat(
                java.util.Arrays.stream(before), java.util.Arrays.stream(after))
            .allMatch(p -> p >= 0),
        "pad of '%s': negative padding",
        t.name());
    var varying = FreeVars.of(value);
    UserError.check(
        varying.isEmpty(),
        "pad of '%s': the padding value %s varies with %s; it must be one value for every element",
        t.name(),
        value,
        varying);
    List<Stage> readerStages = readerStages("pad", t, readers);
    Tensor copy = PaddedReads.copy(uniqueName(t.name() + ".pad"), t, before, after, value);
    insertAfter(producer, copy);
    for (Stage rs : readerStages) {
      rs.setBody(PaddedReads.redirect(rs.body(), t, copy, before, value));
    }
    trace.record(
        producer,
        "pad",
        java.util.Arrays.toString(before),
        java.util.Arrays.toString(after),
        String.join(",", names(readers)));
    return copy;
  }

  /**
   * The stages of {@code readers} of {@code t} for {@code primitive}: at least one, each reading
   * it.
   */
  private List<Stage> readerStages(String primitive, Tensor t, Tensor... readers) {
    UserError.check(
        readers.length > 0, "%s of '%s' needs at least one reader", primitive, t.name());
    List<Stage> out = new ArrayList<>();
    for (Tensor r : readers) {
      Stage rs = stage(r);
      UserError.check(
          rs.body() != null && reads(rs.body(), t),
          "%s of '%s' for reader '%s', which does not read it",
          primitive,
          t.name(),
          r.name());
      out.add(rs);
    }
    return out;
  }

  /**
   * Computes {@code t} into a new stage in memory {@code scope}, and makes {@code t}'s stage copy
   * from it: {@code t[i] = t.local[i]}. The new stage takes over the reduction. Returns the cache.
   */
  public Tensor cacheWrite(Tensor t, String scope) {
    Stage s = stage(t);
    UserError.check(
        !s.isPlaceholder(), "cache_write of '%s': it is an input (placeholder)", t.name());
    checkUntransformed(s, "cache_write");
    ComputeOp op = (ComputeOp) t.op();
    String name = uniqueName(t.name() + "." + scope);
    Map<Var, Expr> fresh = new HashMap<>();
    List<IterVar> axis = freshAxes(op, fresh);
    Tensor cache = new ComputeOp(name, axis, Substitute.apply(s.body(), fresh), op.tag()).output();
    Stage cs = insertBefore(s, cache);
    cs.initScope(dev.kernelgen.te.MemoryScope.parse(scope));
    s.setBody(cache.at(op.axis().stream().map(iv -> (Expr) iv.var()).toList()));
    s.dropReduceAxes();
    trace.record(s, "cache_write", scope);
    return cache;
  }

  /**
   * Factors the reduction of {@code t} over its reduce axis {@code k} (TVM's {@code rfactor}, with
   * the split of {@code k} made here): a new stage {@code t.rf} computes {@code factor} partial
   * results side by side, {@code t.rf[i..., ki] = reduce over ko (and t's other reduce axes) of
   * body[k = min + ko * factor + ki]}, and {@code t} combines them, {@code t[i...] = reduce over ki
   * of t.rf[i..., ki]}. The partial results' axis {@code ki} is the last (TVM's {@code factor_axis}
   * -1), so that lanes of it are contiguous in memory; it is data parallel: it can be vectorized,
   * run in parallel or bound to threads, which a reduction axis cannot. A ragged last step ({@code
   * factor} not dividing the extent) is left out by the reduction's condition. Returns {@code
   * t.rf}; it must come before {@code t}'s loops are split, fused or reordered.
   */
  public Tensor rfactor(Tensor t, IterVar k, int factor) {
    return Rfactor.apply(this, t, k, factor, false);
  }

  /**
   * As {@link #rfactor}, the partial results those of {@code parts} contiguous chunks of {@code k}
   * (TVM's split by {@code nparts}, then rfactor of the outer part): {@code t.rf[i..., kp] = reduce
   * over kc of body[k = min + kp * chunk + kc]}, {@code chunk = ceil(extent / parts)}. Each partial
   * result reads consecutive memory, so the parts can run in parallel on CPU cores each streaming
   * its own chunk, the chunk's reduction in vector lanes.
   */
  public Tensor rfactorParts(Tensor t, IterVar k, int parts) {
    return Rfactor.apply(this, t, k, parts, true);
  }

  /** A primitive that rewrites {@code s}'s computation must come before its loops change. */
  static void checkUntransformed(Stage s, String primitive) {
    UserError.check(
        s.relations().isEmpty() && s.leafIterVars().equals(s.rootIterVars()),
        "%s of '%s' must come before its loops are split, fused or reordered",
        primitive,
        s.name());
  }

  /**
   * Copies of {@code op}'s axes over fresh variables, for a new stage computing what it computes;
   * {@code fresh} receives each old variable's replacement.
   */
  static List<IterVar> freshAxes(ComputeOp op, Map<Var, Expr> fresh) {
    List<IterVar> axis = new ArrayList<>();
    for (IterVar iv : op.axis()) {
      Var v = new Var(iv.name(), iv.var().dtype());
      fresh.put(iv.var(), v);
      axis.add(new IterVar(v, iv.dom(), iv.kind()));
    }
    return axis;
  }

  String uniqueName(String base) {
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

  Stage insertBefore(Stage anchor, Tensor t) {
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
