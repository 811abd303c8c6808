package dev.kernelgen.schedule;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Operation;
import dev.kernelgen.te.PlaceholderOp;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.ForKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How one operation is computed: the order and shape of its loops (leaf iteration variables and the
 * relations that derive them from the operation's axes), their kinds and thread bindings, where its
 * loop nest goes and in which memory its result lives.
 *
 * <p>Every primitive checks that it is legal and records itself in the schedule's {@link Trace}.
 */
public final class Stage {
  /** Annotations of one leaf iteration variable. */
  public record IterVarAttr(ForKind kind, String threadTag, List<String> pragmas) {
    static final IterVarAttr SERIAL = new IterVarAttr(ForKind.SERIAL, null, List.of());
  }

  private final Schedule schedule;
  private final Tensor tensor;
  private Expr body;
  private final List<IterVar> axis;
  private List<IterVar> reduceAxis;
  private final List<IterVar> leafIterVars;
  private final List<IterVarRelation> relations = new ArrayList<>();
  private final Map<IterVar, IterVarAttr> attrs = new LinkedHashMap<>();
  private AttachType attachType = AttachType.ROOT;
  private Stage attachStage;
  private IterVar attachIterVar;
  private MemoryScope scope = MemoryScope.GLOBAL;
  private List<Integer> storageOrder = List.of();
  private final Map<Integer, StorageAlign> storageAlign = new LinkedHashMap<>();
  private final Map<Integer, Integer> storageDeinterleave = new LinkedHashMap<>();
  private boolean doubleBuffer;
  private boolean output;

  Stage(Schedule schedule, Tensor tensor) {
    this.schedule = schedule;
    this.tensor = tensor;
    Operation op = tensor.op();
    if (op instanceof ComputeOp c) {
      this.body = c.body();
      this.axis = c.axis();
      this.reduceAxis = c.reduceAxis();
    } else {
      this.body = null;
      this.axis = List.of();
      this.reduceAxis = List.of();
    }
    this.leafIterVars = new ArrayList<>(axis);
    this.leafIterVars.addAll(reduceAxis);
  }

  // ---- what the stage is ----

  public Tensor tensor() {
    return tensor;
  }

  public String name() {
    return tensor.name();
  }

  public boolean isPlaceholder() {
    return tensor.op() instanceof PlaceholderOp;
  }

  /**
   * The body this stage computes: the operation's body with the schedule's cache reads applied
   * (and, after cache_write, a copy from the cache). Null for placeholders.
   */
  public Expr body() {
    return body;
  }

  void setBody(Expr body) {
    this.body = body;
  }

  /** The data-parallel axes of the output, outermost first. */
  public List<IterVar> axis() {
    return axis;
  }

  public IterVar axis(int d) {
    UserError.check(
        d >= 0 && d < axis.size(), "stage '%s' has %d axes, no axis %d", name(), axis.size(), d);
    return axis.get(d);
  }

  public List<IterVar> reduceAxis() {
    return reduceAxis;
  }

  public IterVar reduceAxis(int d) {
    UserError.check(
        d >= 0 && d < reduceAxis.size(),
        "stage '%s' has %d reduce axes, no reduce axis %d",
        name(),
        reduceAxis.size(),
        d);
    return reduceAxis.get(d);
  }

  /** After rfactor: the stage reduces over {@code axes} instead of its operation's. */
  void replaceReduceAxes(List<IterVar> axes) {
    leafIterVars.removeAll(reduceAxis);
    reduceAxis = List.copyOf(axes);
    leafIterVars.addAll(reduceAxis);
  }

  void dropReduceAxes() {
    leafIterVars.removeAll(reduceAxis);
    reduceAxis = List.of();
  }

  /** The axes and reduce axes: what the relations start from. */
  public List<IterVar> rootIterVars() {
    List<IterVar> all = new ArrayList<>(axis);
    all.addAll(reduceAxis);
    return all;
  }

  /** The loops of this stage, outermost first. */
  public List<IterVar> leafIterVars() {
    return List.copyOf(leafIterVars);
  }

  public List<IterVarRelation> relations() {
    return List.copyOf(relations);
  }

  public IterVarAttr attr(IterVar iv) {
    return attrs.getOrDefault(iv, IterVarAttr.SERIAL);
  }

  public AttachType attachType() {
    return attachType;
  }

  public Stage attachStage() {
    return attachStage;
  }

  public IterVar attachIterVar() {
    return attachIterVar;
  }

  public MemoryScope scope() {
    return scope;
  }

  /**
   * The order of this stage's buffer dimensions, outermost first, as indices of its axes; empty for
   * the default row-major order (see {@link #reorderStorage}).
   */
  public List<Integer> storageOrder() {
    return storageOrder;
  }

  /** A stride constraint of one buffer dimension: {@code stride = k * factor + offset}. */
  public record StorageAlign(int factor, int offset) {
    /** The least stride at least {@code stride} that meets the constraint. */
    public long apply(long stride) {
      long k = Math.max(0, Math.floorDiv(stride - offset + factor - 1, factor));
      return k * factor + offset;
    }
  }

  /**
   * The stride constraints of this stage's buffer dimensions, by axis index (see {@link
   * #storageAlign}).
   */
  public Map<Integer, StorageAlign> storageAlign() {
    return java.util.Collections.unmodifiableMap(storageAlign);
  }

  /**
   * The dimensions of this stage's buffer stored as phases, by axis index: the factor each is
   * deinterleaved by (see {@link #storageDeinterleave}).
   */
  public Map<Integer, Integer> storageDeinterleave() {
    return java.util.Collections.unmodifiableMap(storageDeinterleave);
  }

  public boolean isOutput() {
    return output;
  }

  void markOutput() {
    this.output = true;
  }

  /** Whether the reduction of this stage combines over {@code iv} (root or derived). */
  public boolean isReduceIterVar(IterVar iv) {
    return iv.isReduce();
  }

  public boolean hasReduction() {
    return body instanceof Reduce;
  }

  // ---- primitives ----

  /** Splits {@code parent} into an outer loop and an inner loop of {@code factor} iterations. */
  public Split split(IterVar parent, long factor) {
    checkCompute("split");
    checkLeaf(parent, "split");
    UserError.check(
        factor > 0,
        "split of axis '%s' of stage '%s': factor must be positive, got %d",
        parent.name(),
        name(),
        factor);
    Split s = doSplit(parent, factor, 0);
    schedule.trace().record(this, "split", parent.name(), "factor=" + factor);
    return s;
  }

  /** Splits {@code parent} into {@code nparts} outer iterations and an inner loop. */
  public Split splitNparts(IterVar parent, long nparts) {
    checkCompute("split");
    checkLeaf(parent, "split");
    UserError.check(
        nparts > 0,
        "split of axis '%s' of stage '%s': nparts must be positive, got %d",
        parent.name(),
        name(),
        nparts);
    Split s = doSplit(parent, 0, nparts);
    schedule.trace().record(this, "split", parent.name(), "nparts=" + nparts);
    return s;
  }

  /** The two loops a split made. */
  public record Split(IterVar outer, IterVar inner) {}

  private Split doSplit(IterVar parent, long factor, long nparts) {
    DType t = parent.var().dtype();
    IterVar outer = derived(parent.name() + ".outer", parent.kind(), t);
    IterVar inner = derived(parent.name() + ".inner", parent.kind(), t);
    relations.add(new IterVarRelation.Split(parent, outer, inner, factor, nparts));
    int pos = leafIterVars.indexOf(parent);
    leafIterVars.set(pos, inner);
    leafIterVars.add(pos, outer);
    return new Split(outer, inner);
  }

  /**
   * A loop a split or fuse made, with the index dtype of its parent: 64-bit under a 64-bit parent
   * (lowering widens further where an extent it infers needs it, {@code lower/InferBounds}).
   */
  private static IterVar derived(String name, IterVar.Kind kind, DType dtype) {
    return new IterVar(new Var(name, dtype), null, kind);
  }

  /**
   * The index dtype of the loop fusing {@code outer} and {@code inner}: 64-bit when either is, or
   * when their constant extents multiply past 2^31 - 1.
   */
  private DType fusedType(IterVar outer, IterVar inner) {
    if (outer.var().dtype() == DType.INT64 || inner.var().dtype() == DType.INT64) {
      return DType.INT64;
    }
    long a = constExtent(outer);
    long b = constExtent(inner);
    boolean big = a > 0 && b > 0 && (Math.multiplyHigh(a, b) != 0 || a * b > Integer.MAX_VALUE);
    return big ? DType.INT64 : DType.INT32;
  }

  /** The extent of {@code iv} when the relations make it a constant, else -1. */
  private long constExtent(IterVar iv) {
    if (iv.dom() != null) {
      return iv.dom().extent() instanceof IntImm e ? e.value() : -1;
    }
    for (IterVarRelation r : relations) {
      switch (r) {
        case IterVarRelation.Split sp -> {
          if (sp.outer() != iv && sp.inner() != iv) {
            continue;
          }
          long p = constExtent(sp.parent());
          if (sp.inner() == iv) {
            return sp.factor() > 0 ? sp.factor() : p < 0 ? -1 : ceilDiv(p, sp.nparts());
          }
          return sp.nparts() > 0 ? sp.nparts() : p < 0 ? -1 : ceilDiv(p, sp.factor());
        }
        case IterVarRelation.Fuse fu -> {
          if (fu.fused() != iv) {
            continue;
          }
          long a = constExtent(fu.outer());
          long b = constExtent(fu.inner());
          return a < 0 || b < 0 || Math.multiplyHigh(a, b) != 0 ? -1 : a * b;
        }
      }
    }
    return -1;
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  /** The four loops a tile made: {@code x.outer, y.outer, x.inner, y.inner}... in loop order. */
  public record Tile(IterVar xOuter, IterVar yOuter, IterVar xInner, IterVar yInner) {}

  /**
   * Tiles two axes: splits both and orders the loops {@code x.outer, y.outer, x.inner, y.inner}.
   */
  public Tile tile(IterVar x, IterVar y, long xFactor, long yFactor) {
    Split sx = split(x, xFactor);
    Split sy = split(y, yFactor);
    reorder(sx.outer(), sy.outer(), sx.inner(), sy.inner());
    return new Tile(sx.outer(), sy.outer(), sx.inner(), sy.inner());
  }

  /** Fuses two adjacent loops, {@code outer} directly enclosing {@code inner}, into one. */
  public IterVar fuse(IterVar outer, IterVar inner) {
    checkCompute("fuse");
    checkLeaf(outer, "fuse");
    checkLeaf(inner, "fuse");
    int po = leafIterVars.indexOf(outer);
    int pi = leafIterVars.indexOf(inner);
    UserError.check(
        pi == po + 1,
        "fuse of non-adjacent axes '%s' and '%s' of stage '%s': '%s' must directly enclose '%s'"
            + " (loop order: %s)",
        outer.name(),
        inner.name(),
        name(),
        outer.name(),
        inner.name(),
        leafIterVars);
    UserError.check(
        outer.kind() == inner.kind(),
        "fuse of axis '%s' (%s) with axis '%s' (%s) of stage '%s': cannot mix reduce and"
            + " data-parallel axes",
        outer.name(),
        outer.kind(),
        inner.name(),
        inner.kind(),
        name());
    IterVar fused =
        derived(
            outer.name() + "." + inner.name() + ".fused", outer.kind(), fusedType(outer, inner));
    relations.add(new IterVarRelation.Fuse(outer, inner, fused));
    leafIterVars.remove(pi);
    leafIterVars.set(po, fused);
    schedule.trace().record(this, "fuse", outer.name(), inner.name());
    return fused;
  }

  /** Puts the given loops in this order, in the positions they occupy now. */
  public void reorder(IterVar... order) {
    checkCompute("reorder");
    Set<IterVar> seen = new HashSet<>();
    List<Integer> positions = new ArrayList<>();
    for (IterVar iv : order) {
      checkLeaf(iv, "reorder");
      UserError.check(
          seen.add(iv), "reorder of stage '%s' names axis '%s' twice", name(), iv.name());
      positions.add(leafIterVars.indexOf(iv));
    }
    List<Integer> sorted = new ArrayList<>(positions);
    sorted.sort(null);
    for (int k = 0; k < order.length; k++) {
      leafIterVars.set(sorted.get(k), order[k]);
    }
    schedule.trace().record(this, "reorder", names(order));
  }

  /**
   * Computes this stage inside loop {@code scopeIterVar} of {@code parent}, one of its consumers.
   */
  public void computeAt(Stage parent, IterVar scopeIterVar) {
    checkCompute("compute_at");
    UserError.check(
        !output,
        "compute_at of '%s': it is an output of the schedule and must be computed at root",
        name());
    UserError.check(
        parent.leafIterVars.contains(scopeIterVar),
        "compute_at of '%s' at axis '%s': that axis is not a loop of stage '%s' (its loops: %s)",
        name(),
        scopeIterVar.name(),
        parent.name(),
        parent.leafIterVars);
    UserError.check(
        schedule.dependsOn(parent, this),
        "compute_at of '%s' into stage '%s', which does not consume it (its consumers: %s)",
        name(),
        parent.name(),
        schedule.readers(this).stream().map(Stage::name).toList());
    for (Stage s = parent; s != null; s = s.attachStage) {
      UserError.check(
          s != this, "compute_at of '%s' into '%s' makes a cycle", name(), parent.name());
    }
    attachType = AttachType.SCOPE;
    attachStage = parent;
    attachIterVar = scopeIterVar;
    schedule.trace().record(this, "compute_at", parent.name(), scopeIterVar.name());
  }

  /** Substitutes this stage's body into its consumers: no loops, no storage. */
  public void computeInline() {
    checkCompute("compute_inline");
    UserError.check(!output, "compute_inline of '%s': it is an output of the schedule", name());
    UserError.check(
        !hasReduction(),
        "compute_inline of '%s': a reduction cannot be inlined (reduce axes %s)",
        name(),
        reduceAxis);
    attachType = AttachType.INLINE;
    attachStage = null;
    attachIterVar = null;
    schedule.trace().record(this, "compute_inline");
  }

  /** Computes this stage in its own loop nest at the top (undoes compute_at and inline). */
  public void computeRoot() {
    checkCompute("compute_root");
    attachType = AttachType.ROOT;
    attachStage = null;
    attachIterVar = null;
    schedule.trace().record(this, "compute_root");
  }

  /**
   * Binds a loop to a GPU thread index: {@code blockIdx.x}, {@code threadIdx.y}, {@code vthread}. A
   * reduce axis bound to {@code threadIdx.*} is a cross-thread reduction ({@link CrossThread}).
   */
  public void bind(IterVar iv, String threadTag) {
    checkCompute("bind");
    checkLeaf(iv, "bind");
    ThreadTag.check(threadTag);
    if (iv.isReduce()) {
      CrossThread.checkBind(this, iv, threadTag);
    }
    for (var e : attrs.entrySet()) {
      UserError.check(
          !(threadTag.equals(e.getValue().threadTag()) && !threadTag.equals(ThreadTag.VTHREAD)),
          "bind of axis '%s' of stage '%s' to %s: axis '%s' is already bound to it",
          iv.name(),
          name(),
          threadTag,
          e.getKey().name());
    }
    ForKind kind = threadTag.equals(ThreadTag.VTHREAD) ? ForKind.VTHREAD : ForKind.THREAD_BINDING;
    attrs.put(iv, new IterVarAttr(kind, threadTag, attr(iv).pragmas()));
    schedule.trace().record(this, "bind", iv.name(), threadTag);
  }

  public void unroll(IterVar iv) {
    annotate(iv, ForKind.UNROLLED, "unroll");
  }

  /** Marks a loop as vectorized; it must be data-parallel and innermost-able. */
  public void vectorize(IterVar iv) {
    checkCompute("vectorize");
    UserError.check(
        !iv.isReduce(),
        "vectorize of reduce axis '%s' of stage '%s': only data-parallel axes can be vectorized"
            + " (vectorize_reduction vectorizes a sum, product, min or max)",
        iv.name(),
        name());
    annotate(iv, ForKind.VECTORIZED, "vectorize");
  }

  /**
   * Marks a reduce axis as vectorized: the reduction is computed in vector lanes that are combined
   * at the loop's end (in C, {@code #pragma omp simd reduction}). This reassociates the reduction,
   * so a floating-point sum or product rounds differently than in serial order; only the built-in
   * sum, product, min and max reducers are accepted. On the other targets the loop runs serially.
   */
  public void vectorizeReduction(IterVar iv) {
    checkCompute("vectorize_reduction");
    UserError.check(
        iv.isReduce(),
        "vectorize_reduction of axis '%s' of stage '%s': it is data-parallel, use vectorize",
        iv.name(),
        name());
    String reducer = body instanceof Reduce r ? r.combiner().name() : "";
    UserError.check(
        List.of("sum", "prod", "min", "max").contains(reducer),
        "vectorize_reduction of axis '%s' of stage '%s': its reducer '%s' is not sum, prod, min"
            + " or max, whose lanes can be combined in any order",
        iv.name(),
        name(),
        reducer);
    annotate(iv, ForKind.VECTORIZED, "vectorize_reduction");
  }

  /** Runs a loop's iterations in parallel on CPU threads; it must be data-parallel. */
  public void parallel(IterVar iv) {
    checkCompute("parallel");
    UserError.check(
        !iv.isReduce(),
        "parallel of reduce axis '%s' of stage '%s': iterations of a reduction depend on each"
            + " other",
        iv.name(),
        name());
    annotate(iv, ForKind.PARALLEL, "parallel");
  }

  /** Attaches a pragma to a loop (printed as {@code #pragma} before it in C). */
  public void pragma(IterVar iv, String pragma) {
    checkCompute("pragma");
    checkLeaf(iv, "pragma");
    UserError.check(
        pragma.matches("[A-Za-z0-9_ ().,=]+"), "pragma '%s' has characters not allowed", pragma);
    IterVarAttr a = attr(iv);
    List<String> p = new ArrayList<>(a.pragmas());
    p.add(pragma);
    attrs.put(iv, new IterVarAttr(a.kind(), a.threadTag(), p));
    schedule.trace().record(this, "pragma", iv.name(), pragma);
  }

  /**
   * Lays out this stage's buffer with its dimensions in the order {@code axes}, outermost first (as
   * {@link #reorder} orders loops; Halide's {@code reorder_storage} lists them innermost first).
   * The tensor and its indices do not change, only the strides of the buffer: for example a local
   * accumulator of an NCHW convolution stored with channels innermost, so that a loop vectorized
   * over channels reads and writes it contiguously. Only intermediate stages have a layout to
   * choose; inputs and outputs are the caller's buffers, row-major.
   */
  public void reorderStorage(IterVar... axes) {
    checkCompute("reorder_storage");
    UserError.check(
        !output,
        "reorder_storage of '%s': it is an output of the schedule, stored row-major in the"
            + " caller's buffer",
        name());
    List<Integer> order = new ArrayList<>();
    for (IterVar iv : axes) {
      int d = axis.indexOf(iv);
      UserError.check(
          d >= 0,
          "reorder_storage of '%s': '%s' is not one of its axes %s (storage dimensions are the"
              + " axes, not split or fused loops)",
          name(),
          iv == null ? "null" : iv.name(),
          axis);
      UserError.check(
          !order.contains(d), "reorder_storage of '%s': axis '%s' given twice", name(), iv.name());
      order.add(d);
    }
    UserError.check(
        order.size() == axis.size(),
        "reorder_storage of '%s': %d axes given, the stage has %d %s; name each once",
        name(),
        order.size(),
        axis.size(),
        axis);
    this.storageOrder = List.copyOf(order);
    schedule.trace().record(this, "reorder_storage", names(axes));
  }

  /**
   * Pads this stage's buffer so that the stride of dimension {@code axis} is {@code k * factor +
   * offset} elements for the least such value at least its dense stride (TVM's {@code
   * storage_align}). The dimensions inside it keep their strides, the ones outside it grow with it.
   * A shared-memory tile whose rows are 128 words apart puts a column of it in one bank: with
   * {@code factor = 8, offset = 4} the rows are 132 words apart, each 4-word group of a column in
   * other banks, and rows still start on 16 bytes (vector loads).
   */
  public void storageAlign(IterVar axis, int factor, int offset) {
    checkCompute("storage_align");
    UserError.check(
        !output,
        "storage_align of '%s': it is an output of the schedule, stored densely in the caller's"
            + " buffer",
        name());
    int d = this.axis.indexOf(axis);
    UserError.check(
        d >= 0,
        "storage_align of '%s': '%s' is not one of its axes %s (storage dimensions are the axes,"
            + " not split or fused loops)",
        name(),
        axis == null ? "null" : axis.name(),
        this.axis);
    UserError.check(
        factor > 0 && offset >= 0 && offset < factor,
        "storage_align of '%s' at '%s': factor %d and offset %d; need factor > 0 and 0 <= offset"
            + " < factor",
        name(),
        axis.name(),
        factor,
        offset);
    storageAlign.put(d, new StorageAlign(factor, offset));
    schedule.trace().record(this, "storage_align", axis.name(), "" + factor, "" + offset);
  }

  /**
   * Stores dimension {@code axis} of this stage's buffer as {@code factor} phases (a polyphase
   * decomposition): element {@code i} at position {@code floordiv(i, factor)} of phase {@code
   * floormod(i, factor)}, each phase {@code ceil(extent / factor)} elements long and the phases one
   * after the other where the dimension was. A consumer that reads every {@code factor}-th element
   * from a varying start (a convolution of stride {@code factor} along that dimension) then reads
   * each tap's elements contiguously: the stride-2 3x3 depthwise convolution read its padded row
   * with a shuffle per tap and vector; stored in two phases, one shuffle per input vector, in the
   * copy. The producer's loop along the dimension is best split by {@code factor} and its inner
   * part moved outside, so that its stores are contiguous too.
   */
  public void storageDeinterleave(IterVar axis, int factor) {
    checkCompute("storage_deinterleave");
    UserError.check(
        !output,
        "storage_deinterleave of '%s': it is an output of the schedule, stored densely in the"
            + " caller's buffer",
        name());
    int d = this.axis.indexOf(axis);
    UserError.check(
        d >= 0,
        "storage_deinterleave of '%s': '%s' is not one of its axes %s (storage dimensions are the"
            + " axes, not split or fused loops)",
        name(),
        axis == null ? "null" : axis.name(),
        this.axis);
    UserError.check(
        factor >= 2,
        "storage_deinterleave of '%s' at '%s': factor %d; need a factor of at least 2",
        name(),
        axis.name(),
        factor);
    storageDeinterleave.put(d, factor);
    schedule.trace().record(this, "storage_deinterleave", axis.name(), "" + factor);
  }

  /**
   * Double-buffers this shared tile (TVM's {@code double_buffer}): the loop it is computed at
   * fetches the next iteration's tile (into registers, then into the other half of a buffer twice
   * the size) while the current one is computed from, with one barrier per iteration. Where the
   * loop's body has another shape than fetch, barrier, compute, barrier, it is left as it is.
   */
  public void doubleBuffer() {
    checkCompute("double_buffer");
    UserError.check(
        scope == MemoryScope.SHARED,
        "double_buffer of '%s': it is in %s memory; only a shared tile, which a block fetches"
            + " before it computes from it, has a next tile to fetch early",
        name(),
        scope);
    doubleBuffer = true;
    schedule.trace().record(this, "double_buffer");
  }

  /** Whether {@link #doubleBuffer} was asked for. */
  public boolean isDoubleBuffered() {
    return doubleBuffer;
  }

  /** A root (data-parallel) axis by name, for replaying traces. */
  public IterVar rootAxis(String ivName) {
    for (IterVar iv : axis) {
      if (iv.name().equals(ivName)) {
        return iv;
      }
    }
    throw new UserError(
        String.format("stage '%s' has no axis named '%s' (axes: %s)", name(), ivName, axis));
  }

  /**
   * Sets the memory scope of this stage's result: {@code global}, {@code shared}, {@code local}.
   */
  public void setScope(String scopeName) {
    checkCompute("set_scope");
    MemoryScope m = MemoryScope.parse(scopeName);
    UserError.check(
        !output || m == MemoryScope.GLOBAL,
        "set_scope of '%s' to %s: an output of the schedule lives in global memory",
        name(),
        m);
    this.scope = m;
    schedule.trace().record(this, "set_scope", scopeName);
  }

  void initScope(MemoryScope m) {
    this.scope = m;
  }

  private void annotate(IterVar iv, ForKind kind, String primitive) {
    checkCompute(primitive);
    checkLeaf(iv, primitive);
    IterVarAttr a = attr(iv);
    UserError.check(
        a.threadTag() == null,
        "%s of axis '%s' of stage '%s': it is bound to %s",
        primitive,
        iv.name(),
        name(),
        a.threadTag());
    attrs.put(iv, new IterVarAttr(kind, null, a.pragmas()));
    schedule.trace().record(this, primitive, iv.name());
  }

  private void checkCompute(String primitive) {
    UserError.check(
        !isPlaceholder(),
        "%s of '%s': it is an input (placeholder), which has no loops to schedule",
        primitive,
        name());
  }

  private void checkLeaf(IterVar iv, String primitive) {
    UserError.check(iv != null, "%s on stage '%s' got a null axis", primitive, name());
    if (!leafIterVars.contains(iv)) {
      Stage owner = schedule.ownerOf(iv);
      String where =
          owner == null || owner == this
              ? "it was split or fused already"
              : "it belongs to stage '" + owner.name() + "'";
      throw new UserError(
          String.format(
              "%s of axis '%s' on stage '%s': it is not a loop of this stage (%s; loops: %s)",
              primitive, iv.name(), name(), where, leafIterVars));
    }
  }

  boolean owns(IterVar iv) {
    if (leafIterVars.contains(iv) || axis.contains(iv) || reduceAxis.contains(iv)) {
      return true;
    }
    for (IterVarRelation r : relations) {
      switch (r) {
        case IterVarRelation.Split s -> {
          if (s.outer() == iv || s.inner() == iv || s.parent() == iv) {
            return true;
          }
        }
        case IterVarRelation.Fuse f -> {
          if (f.outer() == iv || f.inner() == iv || f.fused() == iv) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** A leaf iteration variable by name, for replaying traces. */
  public IterVar leaf(String ivName) {
    for (IterVar iv : leafIterVars) {
      if (iv.name().equals(ivName)) {
        return iv;
      }
    }
    throw new UserError(
        "stage '" + name() + "' has no loop named '" + ivName + "' (loops: " + leafIterVars + ")");
  }

  private static String[] names(IterVar[] ivs) {
    String[] out = new String[ivs.length];
    for (int k = 0; k < ivs.length; k++) {
      out[k] = ivs[k].name();
    }
    return out;
  }

  @Override
  public String toString() {
    return "stage(" + name() + ")";
  }
}
