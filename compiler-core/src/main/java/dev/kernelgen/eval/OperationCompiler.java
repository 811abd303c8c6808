package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Operation;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.Reducer;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The oracle's compiler for the expressions of one operation, with the dims bound first: tensor
 * reads index the Java arrays of the operations evaluated before it ({@link TensorReadOffset}),
 * reductions become the loops of {@link Reductions}.
 */
final class OperationCompiler extends ExprCompiler {
  private final Map<Tensor, Object> data;
  private final Map<Tensor, long[]> shapes;
  private final Map<Var, Long> dims;
  private final Operation op;
  private final Map<Integer, long[]> ranges = new HashMap<>();

  OperationCompiler(
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
        TensorReadOffset off = offset(r);
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
        TensorReadOffset off = offset(r);
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
  private TensorReadOffset offset(TensorRead r) {
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
      return new TensorReadOffset(LinearIndex.of(flat, false), null, shape, strides, r, op.name());
    }
    LinearIndex[] idx = new LinearIndex[shape.length];
    for (int d = 0; d < idx.length; d++) {
      idx[d] = LinearIndex.of(forms.get(d), r.indices().get(d).dtype() == DType.INT32);
    }
    return new TensorReadOffset(null, idx, shape, strides, r, op.name());
  }

  private DoubleNode reduceDouble(Reduce r) {
    Reductions.Loop loop = reduceLoop(r);
    DoubleNode dot = dotReduce(r, loop);
    if (dot != null) {
      return dot;
    }
    DoubleNode src = dbl(r.source());
    DoubleNode identity = dbl(r.combiner().identity());
    Reducer red = r.combiner();
    Reductions.Kind kind = Reductions.Kind.of(red);
    DoubleNode combine = null;
    int xs = -1;
    int ys = -1;
    if (kind == Reductions.Kind.GENERAL) {
      xs = bind(red.x());
      ys = bind(red.y());
      combine = dbl(red.combine());
    }
    return new Reductions.FloatReduce(
        loop, src, identity, kind, r.dtype() == DType.FLOAT32, combine, xs, ys);
  }

  /**
   * A sum over reads (or products of two reads) whose offsets are proven in bounds and move by a
   * constant stride along the innermost reduce axis, unconditionally: the multiply-add loop of
   * convolutions and matrix products. Its innermost loop steps offsets instead of evaluating nodes.
   * Null when the reduction is not of that form.
   */
  private DoubleNode dotReduce(Reduce r, Reductions.Loop loop) {
    if (Reductions.Kind.of(r.combiner()) != Reductions.Kind.SUM || loop.cond() != null) {
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
      TensorReadOffset off = offset(reads.get(k));
      Long stride = off.flat == null ? null : off.flat.stride(inner);
      if (stride == null) {
        return null;
      }
      arrays.add(data.get(reads.get(k).tensor()));
      forms.add(off.flat);
      strides[k] = stride;
    }
    return new Reductions.DotReduce(
        loop, dbl(r.combiner().identity()), arrays, forms.toArray(LinearIndex[]::new), strides);
  }

  private LongNode reduceLong(Reduce r) {
    Reductions.Loop loop = reduceLoop(r);
    Reducer red = r.combiner();
    int xs = bind(red.x());
    int ys = bind(red.y());
    return new Reductions.IntReduce(
        loop, lng(r.source()), lng(red.identity()), lng(red.combine()), xs, ys);
  }

  private Reductions.Loop reduceLoop(Reduce r) {
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
    return new Reductions.Loop(slots, mins, extents, cond);
  }
}
