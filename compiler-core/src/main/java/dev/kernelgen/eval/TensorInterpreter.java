package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Operation;
import dev.kernelgen.te.PlaceholderOp;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.Reducer;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The oracle: evaluates tensor-expression definitions directly. Placeholders take their values from
 * the inputs; each compute operation is evaluated element by element, in topological order, into a
 * fresh array (every intermediate materialized), with no schedule involved. Reductions combine in
 * the row-major order of their reduce axes, starting from the reducer's identity.
 *
 * <p>A read outside a tensor's shape is a {@link UserError} naming the tensor, the index and the
 * reading operation: a definition that does that has no meaning. Reads guarded by a select are
 * fine: only the branch taken is evaluated.
 */
public final class TensorInterpreter {
  private TensorInterpreter() {}

  /** Evaluates one output. */
  public static NDArray evaluate(Tensor output, Map<Tensor, NDArray> inputs, Map<Var, Long> dims) {
    return evaluate(List.of(output), inputs, dims).get(output);
  }

  /**
   * Evaluates {@code outputs} from the arrays of {@code inputs} (the placeholders they read, or any
   * tensor whose value is given) and the values of the symbolic dims. A dim missing from {@code
   * dims} is taken from an input whose shape has it as a whole dim.
   *
   * @return the outputs' arrays, in the order of {@code outputs}
   */
  public static Map<Tensor, NDArray> evaluate(
      List<Tensor> outputs, Map<Tensor, NDArray> inputs, Map<Var, Long> dims) {
    Map<Var, Long> allDims = inferDims(inputs, dims);
    // Values are held in Java arrays while evaluating: the fastest memory to read element by
    // element. Arrays become NDArrays only for the outputs.
    Map<Tensor, Object> data = new HashMap<>();
    Map<Tensor, long[]> shapes = new HashMap<>();
    for (Tensor t : topologicalOrder(outputs, inputs.keySet())) {
      long[] shape = evalShape(t, allDims);
      shapes.put(t, shape);
      NDArray given = inputs.get(t);
      if (given != null) {
        UserError.check(
            given.dtype() == t.dtype(),
            "input '%s' is %s, but the tensor is %s",
            t.name(),
            given.dtype(),
            t.dtype());
        UserError.check(
            Arrays.equals(given.shape(), shape),
            "input '%s' has shape %s, but the tensor's shape %s is %s here",
            t.name(),
            Arrays.toString(given.shape()),
            t.shape().stream().map(Expr::show).toList(),
            Arrays.toString(shape));
        data.put(t, toArray(given));
        continue;
      }
      switch (t.op()) {
        case PlaceholderOp p -> throw new UserError("no value for input tensor '" + t.name() + "'");
        case ComputeOp c -> data.put(t, compute(c, shape, data, shapes, allDims));
      }
    }
    Map<Tensor, NDArray> out = new LinkedHashMap<>();
    for (Tensor t : outputs) {
      NDArray given = inputs.get(t);
      out.put(t, given != null ? given : toNDArray(t.dtype(), shapes.get(t), data.get(t)));
    }
    return out;
  }

  private static Object toArray(NDArray a) {
    MemorySegment seg = a.segment().asSlice(0, a.size() * a.dtype().bytes());
    return switch (a.dtype()) {
      case FLOAT32 -> seg.toArray(ValueLayout.JAVA_FLOAT);
      case FLOAT64 -> seg.toArray(ValueLayout.JAVA_DOUBLE);
      case INT32 -> seg.toArray(ValueLayout.JAVA_INT);
      case INT64 -> seg.toArray(ValueLayout.JAVA_LONG);
      case BOOL -> seg.toArray(ValueLayout.JAVA_BYTE);
    };
  }

  private static NDArray toNDArray(DType dtype, long[] shape, Object array) {
    NDArray a = NDArray.zeros(dtype, shape);
    MemorySegment src =
        switch (array) {
          case float[] x -> MemorySegment.ofArray(x);
          case double[] x -> MemorySegment.ofArray(x);
          case int[] x -> MemorySegment.ofArray(x);
          case long[] x -> MemorySegment.ofArray(x);
          case byte[] x -> MemorySegment.ofArray(x);
          default -> throw new CompilerBug("tensor data of " + array.getClass());
        };
    MemorySegment.copy(src, 0, a.segment(), 0, src.byteSize());
    return a;
  }

  private static Map<Var, Long> inferDims(Map<Tensor, NDArray> inputs, Map<Var, Long> dims) {
    Map<Var, Long> all = new HashMap<>(dims);
    for (Map.Entry<Tensor, NDArray> e : inputs.entrySet()) {
      List<Expr> shape = e.getKey().shape();
      long[] actual = e.getValue().shape();
      if (shape.size() != actual.length) {
        continue; // reported with the shape check
      }
      for (int d = 0; d < actual.length; d++) {
        if (shape.get(d) instanceof Var v && !dims.containsKey(v)) {
          Long prev = all.putIfAbsent(v, actual[d]);
          UserError.check(
              prev == null || prev == actual[d],
              "dim '%s' is %d in one input and %d in input '%s'",
              v.name(),
              prev,
              actual[d],
              e.getKey().name());
        }
      }
    }
    return all;
  }

  private static List<Tensor> topologicalOrder(List<Tensor> outputs, Set<Tensor> given) {
    List<Tensor> order = new ArrayList<>();
    Set<Tensor> seen = new HashSet<>();
    for (Tensor t : outputs) {
      visit(t, given, seen, order);
    }
    return order;
  }

  private static void visit(Tensor t, Set<Tensor> given, Set<Tensor> seen, List<Tensor> order) {
    // Iterative would avoid deep recursion, but graphs here are small (tens of operations).
    if (!seen.add(t)) {
      return;
    }
    if (!given.contains(t)) {
      for (Tensor in : t.op().inputs()) {
        visit(in, given, seen, order);
      }
    }
    order.add(t);
  }

  private static long[] evalShape(Tensor t, Map<Var, Long> dims) {
    Compiler c = new Compiler(Map.of(), Map.of(), dims, t.op());
    List<LongNode> nodes = t.shape().stream().map(c::lng).toList();
    Frame f = c.frame();
    long[] shape = new long[nodes.size()];
    for (int d = 0; d < shape.length; d++) {
      shape[d] = nodes.get(d).eval(f);
      UserError.check(
          shape[d] >= 0,
          "tensor '%s' has a negative dim %d here: %s = %d",
          t.name(),
          d,
          t.shape().get(d).show(),
          shape[d]);
    }
    return shape;
  }

  private static Object compute(
      ComputeOp op,
      long[] shape,
      Map<Tensor, Object> data,
      Map<Tensor, long[]> shapes,
      Map<Var, Long> dims) {
    Compiler c = new Compiler(data, shapes, dims, op);
    int rank = shape.length;
    int[] slots = new int[rank];
    long[] lo = new long[rank];
    for (int d = 0; d < rank; d++) {
      IterVar iv = op.axis().get(d);
      Long min = c.constant(iv.dom().min());
      UserError.check(
          min != null,
          "compute '%s': the start of axis '%s' depends on more than the dims: %s",
          op.name(),
          iv.name(),
          iv.dom().min().show());
      lo[d] = min;
      slots[d] = c.bind(iv.var());
      if (shape[d] > 0) {
        c.setRange(slots[d], lo[d], lo[d] + shape[d] - 1);
      }
    }
    boolean isFloat = op.dtype().isFloat();
    DoubleNode dbody = isFloat ? c.dbl(op.body()) : null;
    LongNode lbody = isFloat ? null : c.lng(op.body());
    Frame f = c.frame();
    int size = Math.toIntExact(Arrays.stream(shape).reduce(1, Math::multiplyExact));
    long[] idx = new long[rank];
    for (int d = 0; d < rank; d++) {
      f.ints[slots[d]] = lo[d];
    }
    // One loop per element type, so that each writes its array without a switch per element.
    switch (op.dtype()) {
      case FLOAT32 -> {
        float[] out = new float[size];
        for (int k = 0; k < size; k++) {
          out[k] = (float) dbody.eval(f);
          next(f, idx, shape, slots, lo);
        }
        return out;
      }
      case FLOAT64 -> {
        double[] out = new double[size];
        for (int k = 0; k < size; k++) {
          out[k] = dbody.eval(f);
          next(f, idx, shape, slots, lo);
        }
        return out;
      }
      case INT32 -> {
        int[] out = new int[size];
        for (int k = 0; k < size; k++) {
          out[k] = (int) lbody.eval(f);
          next(f, idx, shape, slots, lo);
        }
        return out;
      }
      case INT64 -> {
        long[] out = new long[size];
        for (int k = 0; k < size; k++) {
          out[k] = lbody.eval(f);
          next(f, idx, shape, slots, lo);
        }
        return out;
      }
      case BOOL -> {
        byte[] out = new byte[size];
        for (int k = 0; k < size; k++) {
          out[k] = (byte) (lbody.eval(f) != 0 ? 1 : 0);
          next(f, idx, shape, slots, lo);
        }
        return out;
      }
    }
    throw new CompilerBug("unreachable");
  }

  /** Advances the axis slots to the next element in row-major order. */
  private static void next(Frame f, long[] idx, long[] shape, int[] slots, long[] lo) {
    for (int d = idx.length - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) {
        f.ints[slots[d]] = lo[d] + idx[d];
        return;
      }
      idx[d] = 0;
      f.ints[slots[d]] = lo[d];
    }
  }

  /** Compiles the expressions of one operation, with the dims bound first. */
  private static final class Compiler extends ExprCompiler {
    private final Map<Tensor, Object> data;
    private final Map<Tensor, long[]> shapes;
    private final Map<Var, Long> dims;
    private final Operation op;
    private final Map<Integer, long[]> ranges = new HashMap<>();

    Compiler(
        Map<Tensor, Object> data, Map<Tensor, long[]> shapes, Map<Var, Long> dims, Operation op) {
      this.data = data;
      this.shapes = shapes;
      this.dims = dims;
      this.op = op;
      for (Map.Entry<Var, Long> e : dims.entrySet()) {
        int s = bind(e.getKey());
        ranges.put(s, new long[] {e.getValue(), e.getValue()});
      }
    }

    /** Records that slot {@code s} only holds values in {@code [lo, hi]} while it is read. */
    void setRange(int s, long lo, long hi) {
      ranges.put(s, new long[] {lo, hi});
    }

    /** The value of {@code e} if it depends on the dims only, else null. */
    Long constant(Expr e) {
      if (!dims.keySet().containsAll(FreeVars.of(e))) {
        return null;
      }
      LongNode n = lng(e);
      return n.eval(frame());
    }

    /** A frame with the dims' values in their slots. */
    Frame frame() {
      Frame f = new Frame(longSlotCount(), doubleSlotCount(), 0);
      for (Map.Entry<Var, Long> e : dims.entrySet()) {
        Var v = e.getKey();
        int s = bind(v);
        if (v.dtype().isFloat()) {
          f.doubles[s] = e.getValue();
        } else {
          f.ints[s] = e.getValue();
        }
      }
      return f;
    }

    @Override
    protected RuntimeException unbound(Var v) {
      return new UserError(
          "'"
              + op.name()
              + "' uses variable '"
              + v.name()
              + "', which has no value (a dim missing"
              + " from dims, or an axis of another operation)");
    }

    @Override
    protected LongNode otherLong(Expr e) {
      return switch (e) {
        case TensorRead r -> {
          Object arr = data.get(r.tensor());
          Offset off = offset(r);
          yield switch (arr) {
            case int[] a ->
                new LongNode() {
                  @Override
                  long eval(Frame f) {
                    return a[off.eval(f)];
                  }
                };
            case long[] a ->
                new LongNode() {
                  @Override
                  long eval(Frame f) {
                    return a[off.eval(f)];
                  }
                };
            case byte[] a ->
                new LongNode() {
                  @Override
                  long eval(Frame f) {
                    return a[off.eval(f)] != 0 ? 1 : 0;
                  }
                };
            default -> throw new CompilerBug("integer read of " + r.dtype() + " tensor");
          };
        }
        case Reduce r -> reduceLong(r);
        default -> throw new CompilerBug("the oracle cannot evaluate " + e.show());
      };
    }

    @Override
    protected DoubleNode otherDouble(Expr e) {
      return switch (e) {
        case TensorRead r -> {
          Object arr = data.get(r.tensor());
          Offset off = offset(r);
          yield switch (arr) {
            case float[] a ->
                new DoubleNode() {
                  @Override
                  double eval(Frame f) {
                    return a[off.eval(f)];
                  }
                };
            case double[] a ->
                new DoubleNode() {
                  @Override
                  double eval(Frame f) {
                    return a[off.eval(f)];
                  }
                };
            default -> throw new CompilerBug("float read of " + r.dtype() + " tensor");
          };
        }
        case Reduce r -> reduceDouble(r);
        default -> throw new CompilerBug("the oracle cannot evaluate " + e.show());
      };
    }

    /**
     * The element offset of a read. When the ranges of the variables prove every index inside the
     * tensor's shape (the hot reads of a reduction over a padded stage), the offset is one linear
     * form without checks; otherwise each index is computed and checked.
     */
    private Offset offset(TensorRead r) {
      CompilerBug.check(
          data.containsKey(r.tensor()), "tensor '%s' read before it was evaluated", r.tensor());
      long[] shape = shapes.get(r.tensor());
      long[] strides = new long[shape.length];
      long stride = 1;
      for (int d = shape.length - 1; d >= 0; d--) {
        strides[d] = stride;
        stride *= shape[d];
      }
      List<LinearIndex.Builder> forms = r.indices().stream().map(this::linear).toList();
      LinearIndex.Builder flat = LinearIndex.Builder.constant(0);
      boolean proven = true;
      for (int d = 0; d < shape.length && proven; d++) {
        long[] b = forms.get(d).bounds(ranges);
        proven = b != null && b[0] >= 0 && b[1] < shape[d];
        if (proven) {
          flat = flat.plus(forms.get(d), strides[d]);
        }
      }
      if (proven) {
        return new Offset(LinearIndex.of(flat, false), null, shape, strides, r, op.name());
      }
      LinearIndex[] idx = new LinearIndex[shape.length];
      for (int d = 0; d < idx.length; d++) {
        idx[d] = LinearIndex.of(forms.get(d), r.indices().get(d).dtype() == DType.INT32);
      }
      return new Offset(null, idx, shape, strides, r, op.name());
    }

    private DoubleNode reduceDouble(Reduce r) {
      ReduceLoop loop = reduceLoop(r);
      DoubleNode dot = dotReduce(r, loop);
      if (dot != null) {
        return dot;
      }
      DoubleNode src = dbl(r.source());
      DoubleNode identity = dbl(r.combiner().identity());
      Reducer red = r.combiner();
      ReduceKind kind = ReduceKind.of(red);
      DoubleNode combine = null;
      int xs = -1;
      int ys = -1;
      if (kind == ReduceKind.GENERAL) {
        xs = bind(red.x());
        ys = bind(red.y());
        combine = dbl(red.combine());
      }
      return new ReduceDouble(
          loop, src, identity, kind, r.dtype() == DType.FLOAT32, combine, xs, ys);
    }

    /**
     * A sum over reads (or products of two reads) whose offsets are proven in bounds and move by a
     * constant stride along the innermost reduce axis, unconditionally: the multiply-add loop of
     * convolutions and matrix products. Its innermost loop steps offsets instead of evaluating
     * nodes. Null when the reduction is not of that form.
     */
    private DoubleNode dotReduce(Reduce r, ReduceLoop loop) {
      if (ReduceKind.of(r.combiner()) != ReduceKind.SUM || loop.cond() != null) {
        return null;
      }
      List<TensorRead> reads;
      if (r.source() instanceof TensorRead t) {
        reads = List.of(t);
      } else if (r.source() instanceof Binary b
          && b.op() == BinOp.MUL
          && b.a() instanceof TensorRead x
          && b.b() instanceof TensorRead y) {
        reads = List.of(x, y);
      } else {
        return null;
      }
      int inner = loop.slots()[loop.slots().length - 1];
      List<Object> arrays = new ArrayList<>();
      List<LinearIndex> forms = new ArrayList<>();
      long[] strides = new long[reads.size()];
      for (int k = 0; k < reads.size(); k++) {
        Offset off = offset(reads.get(k));
        Long stride = off.flat == null ? null : off.flat.stride(inner);
        if (stride == null) {
          return null;
        }
        arrays.add(data.get(reads.get(k).tensor()));
        forms.add(off.flat);
        strides[k] = stride;
      }
      return new DotReduce(
          loop, dbl(r.combiner().identity()), arrays, forms.toArray(LinearIndex[]::new), strides);
    }

    private LongNode reduceLong(Reduce r) {
      ReduceLoop loop = reduceLoop(r);
      Reducer red = r.combiner();
      int xs = bind(red.x());
      int ys = bind(red.y());
      return new ReduceLong(loop, lng(r.source()), lng(red.identity()), lng(red.combine()), xs, ys);
    }

    private ReduceLoop reduceLoop(Reduce r) {
      int n = r.axes().size();
      int[] slots = new int[n];
      LongNode[] mins = new LongNode[n];
      LongNode[] extents = new LongNode[n];
      for (int k = 0; k < n; k++) {
        IterVar iv = r.axes().get(k);
        mins[k] = lng(iv.dom().min());
        extents[k] = lng(iv.dom().extent());
        slots[k] = bind(iv.var());
        Long lo = constant(iv.dom().min());
        Long ext = constant(iv.dom().extent());
        if (lo != null && ext != null && ext > 0) {
          setRange(slots[k], lo, lo + ext - 1);
        }
      }
      BoolNode cond = bool(r.condition());
      if (cond instanceof BoolNode.Const c && c.value) {
        cond = null;
      }
      return new ReduceLoop(slots, mins, extents, cond);
    }
  }

  /** A tensor read's offset computation: proven in bounds, or with a check per index. */
  private static final class Offset {
    private final LinearIndex flat;
    private final LinearIndex[] indices;
    private final long[] shape;
    private final long[] strides;
    private final TensorRead expr;
    private final String reader;

    Offset(
        LinearIndex flat,
        LinearIndex[] indices,
        long[] shape,
        long[] strides,
        TensorRead expr,
        String reader) {
      this.flat = flat;
      this.indices = indices;
      this.shape = shape;
      this.strides = strides;
      this.expr = expr;
      this.reader = reader;
    }

    int eval(Frame f) {
      if (flat != null) {
        return (int) flat.eval(f);
      }
      long off = 0;
      for (int d = 0; d < indices.length; d++) {
        long i = indices[d].eval(f);
        if (i < 0 || i >= shape[d]) {
          throw outOfBounds(f);
        }
        off += i * strides[d];
      }
      return (int) off;
    }

    private UserError outOfBounds(Frame f) {
      long[] at = new long[indices.length];
      for (int d = 0; d < at.length; d++) {
        at[d] = indices[d].eval(f);
      }
      return new UserError(
          "'"
              + reader
              + "' reads tensor '"
              + expr.tensor().name()
              + "' out of bounds at "
              + Arrays.toString(at)
              + " (shape "
              + Arrays.toString(shape)
              + "): "
              + expr.show());
    }
  }

  /** Which combiner a reduction uses; the common ones run without evaluating the combiner. */
  private enum ReduceKind {
    SUM,
    MAX,
    MIN,
    GENERAL;

    static ReduceKind of(Reducer r) {
      if (r.combine() instanceof Binary b
          && ((b.a() == r.x() && b.b() == r.y()) || (b.a() == r.y() && b.b() == r.x()))) {
        return switch (b.op()) {
          case ADD -> SUM;
          case MAX -> MAX;
          case MIN -> MIN;
          default -> GENERAL;
        };
      }
      return GENERAL;
    }
  }

  /** The reduce axes of a reduction: slots, bounds, the condition (null when always true). */
  private record ReduceLoop(int[] slots, LongNode[] mins, LongNode[] extents, BoolNode cond) {}

  /** See {@code Compiler.dotReduce}: a sum of reads or of products of two reads. */
  private static final class DotReduce extends DoubleNode {
    private final int[] slots;
    private final LongNode[] mins;
    private final LongNode[] extents;
    private final DoubleNode identity;
    private final LinearIndex[] offsets;
    private final long[] strides;
    private final float[] fa;
    private final float[] fb;
    private final double[] da;
    private final double[] db;

    DotReduce(
        ReduceLoop loop,
        DoubleNode identity,
        List<Object> arrays,
        LinearIndex[] offsets,
        long[] strides) {
      this.slots = loop.slots();
      this.mins = loop.mins();
      this.extents = loop.extents();
      this.identity = identity;
      this.offsets = offsets;
      this.strides = strides;
      Object a = arrays.get(0);
      Object b = arrays.size() > 1 ? arrays.get(1) : null;
      this.fa = a instanceof float[] x ? x : null;
      this.fb = b instanceof float[] x ? x : null;
      this.da = a instanceof double[] x ? x : null;
      this.db = b instanceof double[] x ? x : null;
    }

    @Override
    double eval(Frame f) {
      return loop(f, 0, identity.eval(f));
    }

    private double loop(Frame f, int level, double acc) {
      long lo = mins[level].eval(f);
      long hi = lo + extents[level].eval(f);
      int s = slots[level];
      long[] ints = f.ints;
      if (level < slots.length - 1) {
        for (long v = lo; v < hi; v++) {
          ints[s] = v;
          acc = loop(f, level + 1, acc);
        }
        return acc;
      }
      if (hi <= lo) {
        return acc;
      }
      ints[s] = lo;
      int n = (int) (hi - lo);
      int oa = (int) offsets[0].eval(f);
      int sa = (int) strides[0];
      if (fa != null) {
        // Java float arithmetic rounds each product and sum to float, as C does without FMA.
        float x = (float) acc;
        if (fb != null) {
          int ob = (int) offsets[1].eval(f);
          int sb = (int) strides[1];
          for (int k = 0; k < n; k++, oa += sa, ob += sb) {
            x += fa[oa] * fb[ob];
          }
        } else {
          for (int k = 0; k < n; k++, oa += sa) {
            x += fa[oa];
          }
        }
        acc = x;
      } else if (db != null) {
        int ob = (int) offsets[1].eval(f);
        int sb = (int) strides[1];
        for (int k = 0; k < n; k++, oa += sa, ob += sb) {
          acc += da[oa] * db[ob];
        }
      } else {
        for (int k = 0; k < n; k++, oa += sa) {
          acc += da[oa];
        }
      }
      ints[s] = hi - 1;
      return acc;
    }
  }

  /** A floating-point reduction. */
  private static final class ReduceDouble extends DoubleNode {
    private final int[] slots;
    private final LongNode[] mins;
    private final LongNode[] extents;
    private final BoolNode cond;
    private final DoubleNode src;
    private final DoubleNode identity;
    private final ReduceKind kind;
    private final boolean f32;
    private final DoubleNode combine;
    private final int xs;
    private final int ys;

    ReduceDouble(
        ReduceLoop loop,
        DoubleNode src,
        DoubleNode identity,
        ReduceKind kind,
        boolean f32,
        DoubleNode combine,
        int xs,
        int ys) {
      this.slots = loop.slots();
      this.mins = loop.mins();
      this.extents = loop.extents();
      this.cond = loop.cond();
      this.src = src;
      this.identity = identity;
      this.kind = kind;
      this.f32 = f32;
      this.combine = combine;
      this.xs = xs;
      this.ys = ys;
    }

    @Override
    double eval(Frame f) {
      return loop(f, 0, identity.eval(f));
    }

    private double loop(Frame f, int level, double acc) {
      long lo = mins[level].eval(f);
      long hi = lo + extents[level].eval(f);
      int s = slots[level];
      long[] ints = f.ints;
      if (level < slots.length - 1) {
        for (long v = lo; v < hi; v++) {
          ints[s] = v;
          acc = loop(f, level + 1, acc);
        }
        return acc;
      }
      // The innermost loop, specialized per combiner: this is where the time goes.
      BoolNode c = cond;
      DoubleNode x = src;
      switch (kind) {
        case SUM -> {
          if (f32) {
            for (long v = lo; v < hi; v++) {
              ints[s] = v;
              if (c == null || c.eval(f)) {
                acc = (float) (acc + x.eval(f));
              }
            }
          } else {
            for (long v = lo; v < hi; v++) {
              ints[s] = v;
              if (c == null || c.eval(f)) {
                acc += x.eval(f);
              }
            }
          }
        }
        case MAX -> {
          for (long v = lo; v < hi; v++) {
            ints[s] = v;
            if (c == null || c.eval(f)) {
              acc = Math.max(acc, x.eval(f));
            }
          }
        }
        case MIN -> {
          for (long v = lo; v < hi; v++) {
            ints[s] = v;
            if (c == null || c.eval(f)) {
              acc = Math.min(acc, x.eval(f));
            }
          }
        }
        case GENERAL -> {
          double[] d = f.doubles;
          for (long v = lo; v < hi; v++) {
            ints[s] = v;
            if (c == null || c.eval(f)) {
              double y = x.eval(f);
              d[xs] = acc;
              d[ys] = y;
              acc = combine.eval(f);
            }
          }
        }
      }
      return acc;
    }
  }

  /** An integer or boolean reduction: the combiner is evaluated as an expression. */
  private static final class ReduceLong extends LongNode {
    private final int[] slots;
    private final LongNode[] mins;
    private final LongNode[] extents;
    private final BoolNode cond;
    private final LongNode src;
    private final LongNode identity;
    private final LongNode combine;
    private final int xs;
    private final int ys;

    ReduceLong(ReduceLoop loop, LongNode src, LongNode identity, LongNode combine, int xs, int ys) {
      this.slots = loop.slots();
      this.mins = loop.mins();
      this.extents = loop.extents();
      this.cond = loop.cond();
      this.src = src;
      this.identity = identity;
      this.combine = combine;
      this.xs = xs;
      this.ys = ys;
    }

    @Override
    long eval(Frame f) {
      return loop(f, 0, identity.eval(f));
    }

    private long loop(Frame f, int level, long acc) {
      long lo = mins[level].eval(f);
      long hi = lo + extents[level].eval(f);
      int s = slots[level];
      long[] ints = f.ints;
      for (long v = lo; v < hi; v++) {
        ints[s] = v;
        if (level < slots.length - 1) {
          acc = loop(f, level + 1, acc);
        } else if (cond == null || cond.eval(f)) {
          long y = src.eval(f);
          ints[xs] = acc;
          ints[ys] = y;
          acc = combine.eval(f);
        }
      }
      return acc;
    }
  }
}
