package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.PlaceholderOp;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorGraph;
import dev.kernelgen.te.Var;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
  // The parts: OperationCompiler compiles one operation's expressions (tensor reads through
  // TensorReadOffset, reductions into the loops of Reductions); this class orders the operations,
  // evaluates shapes and runs each operation's element loop into a Java array.
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
    for (Tensor t : TensorGraph.producersFirst(outputs, inputs.keySet())) {
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

  private static long[] evalShape(Tensor t, Map<Var, Long> dims) {
    OperationCompiler c = new OperationCompiler(Map.of(), Map.of(), dims, t.op());
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
    OperationCompiler c = new OperationCompiler(data, shapes, dims, op);
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
}
