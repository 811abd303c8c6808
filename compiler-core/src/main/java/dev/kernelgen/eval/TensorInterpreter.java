package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
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
    Map<Tensor, NDArray> values = new HashMap<>();
    for (Tensor t : topologicalOrder(outputs, inputs.keySet())) {
      long[] shape = evalShape(t, allDims);
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
        values.put(t, given);
        continue;
      }
      switch (t.op()) {
        case PlaceholderOp p -> throw new UserError("no value for input tensor '" + t.name() + "'");
        case ComputeOp c -> values.put(t, compute(c, shape, values, allDims));
      }
    }
    Map<Tensor, NDArray> out = new LinkedHashMap<>();
    for (Tensor t : outputs) {
      out.put(t, values.get(t));
    }
    return out;
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
    Compiler c = new Compiler(Map.of(), dims, t.op());
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

  private static NDArray compute(
      ComputeOp op, long[] shape, Map<Tensor, NDArray> values, Map<Var, Long> dims) {
    Compiler c = new Compiler(values, dims, op);
    int rank = shape.length;
    int[] slots = new int[rank];
    LongNode[] mins = new LongNode[rank];
    for (int d = 0; d < rank; d++) {
      IterVar iv = op.axis().get(d);
      mins[d] = c.lng(iv.dom().min());
      slots[d] = c.bind(iv.var());
    }
    boolean isFloat = op.dtype().isFloat();
    DoubleNode dbody = isFloat ? c.dbl(op.body()) : null;
    LongNode lbody = isFloat ? null : c.lng(op.body());
    Frame f = c.frame();
    NDArray out = NDArray.zeros(op.dtype(), shape);
    long size = out.size();
    if (size == 0) {
      return out;
    }
    long[] lo = new long[rank];
    long[] idx = new long[rank];
    for (int d = 0; d < rank; d++) {
      lo[d] = mins[d].eval(f);
      f.ints[slots[d]] = lo[d];
    }
    for (long k = 0; k < size; k++) {
      if (isFloat) {
        out.setDouble(k, dbody.eval(f));
      } else {
        out.setLong(k, lbody.eval(f));
      }
      for (int d = rank - 1; d >= 0; d--) {
        if (++idx[d] < shape[d]) {
          f.ints[slots[d]] = lo[d] + idx[d];
          break;
        }
        idx[d] = 0;
        f.ints[slots[d]] = lo[d];
      }
    }
    return out;
  }

  /** Compiles the expressions of one operation, with the dims bound first. */
  private static final class Compiler extends ExprCompiler {
    private final Map<Tensor, NDArray> values;
    private final Map<Var, Long> dims;
    private final Operation op;

    Compiler(Map<Tensor, NDArray> values, Map<Var, Long> dims, Operation op) {
      this.values = values;
      this.dims = dims;
      this.op = op;
      for (Var v : dims.keySet()) {
        bind(v);
      }
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
          Read rd = read(r);
          MemorySegment seg = rd.array.segment();
          yield switch (r.dtype()) {
            case INT32 ->
                new LongNode() {
                  @Override
                  long eval(Frame f) {
                    return seg.getAtIndex(ValueLayout.JAVA_INT, rd.offset(f));
                  }
                };
            case INT64 ->
                new LongNode() {
                  @Override
                  long eval(Frame f) {
                    return seg.getAtIndex(ValueLayout.JAVA_LONG, rd.offset(f));
                  }
                };
            case BOOL ->
                new LongNode() {
                  @Override
                  long eval(Frame f) {
                    return seg.get(ValueLayout.JAVA_BYTE, rd.offset(f)) != 0 ? 1 : 0;
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
          Read rd = read(r);
          MemorySegment seg = rd.array.segment();
          yield r.dtype() == DType.FLOAT32
              ? new DoubleNode() {
                @Override
                double eval(Frame f) {
                  return seg.getAtIndex(ValueLayout.JAVA_FLOAT, rd.offset(f));
                }
              }
              : new DoubleNode() {
                @Override
                double eval(Frame f) {
                  return seg.getAtIndex(ValueLayout.JAVA_DOUBLE, rd.offset(f));
                }
              };
        }
        case Reduce r -> reduceDouble(r);
        default -> throw new CompilerBug("the oracle cannot evaluate " + e.show());
      };
    }

    private Read read(TensorRead r) {
      NDArray a = values.get(r.tensor());
      CompilerBug.check(a != null, "tensor '%s' read before it was evaluated", r.tensor().name());
      LongNode[] idx = r.indices().stream().map(this::lng).toArray(LongNode[]::new);
      return new Read(a, idx, r, op.name());
    }

    private DoubleNode reduceDouble(Reduce r) {
      ReduceLoop loop = reduceLoop(r);
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
      }
      BoolNode cond = bool(r.condition());
      if (cond instanceof BoolNode.Const c && c.value) {
        cond = null;
      }
      return new ReduceLoop(slots, mins, extents, cond);
    }
  }

  /** A tensor read's array and index computation, with the bounds check. */
  private static final class Read {
    final NDArray array;
    final LongNode[] indices;
    final long[] shape;
    final long[] strides;
    final TensorRead expr;
    final String reader;

    Read(NDArray array, LongNode[] indices, TensorRead expr, String reader) {
      this.array = array;
      this.indices = indices;
      this.shape = array.shape();
      this.strides = new long[shape.length];
      long s = 1;
      for (int d = shape.length - 1; d >= 0; d--) {
        strides[d] = s;
        s *= shape[d];
      }
      this.expr = expr;
      this.reader = reader;
    }

    long offset(Frame f) {
      long off = 0;
      for (int d = 0; d < indices.length; d++) {
        long i = indices[d].eval(f);
        if (i < 0 || i >= shape[d]) {
          throw outOfBounds(f);
        }
        off += i * strides[d];
      }
      return off;
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
