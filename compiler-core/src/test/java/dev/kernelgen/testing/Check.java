package dev.kernelgen.testing;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.codegen.JavaCodegen;
import dev.kernelgen.eval.IRInterpreter;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.lower.IndexWidth;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.PrimFunc;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a scheduled operator on random data through every CPU backend — the loop-IR interpreter,
 * generated C (cc + FFM) and generated Java (javac in memory) — and compares each result with the
 * tensor-expression oracle.
 */
public final class Check {
  private Check() {}

  /** Where lowered code runs in a check. */
  public enum Backend {
    IR,
    C,
    JAVA
  }

  public static final Set<Backend> ALL = EnumSet.allOf(Backend.class);
  private static final AtomicInteger COUNTER = new AtomicInteger();

  /** Checks with every backend; arguments are the schedule's inputs, then its outputs. */
  public static void check(Schedule s, Map<Var, Long> dims) {
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    check(s, args, dims, ALL, 1e-4, 1e-4);
  }

  public static void check(
      Schedule s,
      List<Tensor> args,
      Map<Var, Long> dims,
      Set<Backend> backends,
      double rtol,
      double atol) {
    check(s, args, dims, backends, rtol, atol, null);
  }

  /**
   * As above, the oracle reading the values that {@code memo} kept from earlier checks of the same
   * inputs, and keeping this check's outputs there for later ones.
   */
  public static void check(
      Schedule s,
      List<Tensor> args,
      Map<Var, Long> dims,
      Set<Backend> backends,
      double rtol,
      double atol,
      OracleMemo memo) {
    Map<Tensor, NDArray> inputs = new LinkedHashMap<>();
    Map<Tensor, Long> seeds = new LinkedHashMap<>();
    long seed = 7;
    for (Tensor t : s.inputs()) {
      seeds.put(t, seed);
      inputs.put(t, NDArray.random(t.dtype(), seed++, shape(t, dims)));
    }
    Map<Tensor, NDArray> given = new LinkedHashMap<>(inputs);
    if (memo != null) {
      memo.known(seeds, dims).forEach(given::putIfAbsent);
    }
    // The oracle evaluates the operator's own outputs: where the schedule is of a rewritten DAG
    // (another algorithm, Schedule.rewritten), its definition, not the rewrite.
    List<Tensor> results = args.stream().filter(t -> !inputs.containsKey(t)).toList();
    Map<Tensor, NDArray> expected = TensorInterpreter.evaluate(results, given, dims);
    if (memo != null) {
      memo.keep(expected, seeds, dims);
    }
    // With symbolic dims, both index widths the driver builds (32-bit and 64-bit indices).
    List<IndexWidth> widths =
        dims.isEmpty() ? List.of(IndexWidth.WIDE) : List.of(IndexWidth.NARROW, IndexWidth.WIDE);
    for (IndexWidth width : widths) {
      for (Backend b : backends) {
        Target target = b == Backend.JAVA ? Target.JAVA : Target.C;
        String name = "kernel" + COUNTER.incrementAndGet();
        PrimFunc f = Lower.lower(s, name, args, target, width, null);
        Map<Tensor, NDArray> outputs = new HashMap<>();
        List<NDArray> buffers = new ArrayList<>();
        for (Tensor t : args) {
          NDArray a = inputs.get(t);
          if (a == null) {
            a = NDArray.zeros(t.dtype(), shape(t, dims));
            fillNaN(a);
            outputs.put(t, a);
          }
          buffers.add(a);
        }
        long[] scalars = f.scalars().stream().mapToLong(v -> value(v, dims)).toArray();
        try {
          run(b, f, buffers, dims, scalars);
        } catch (RuntimeException | Error e) {
          throw new AssertionError(b + " failed on\n" + f, e);
        }
        for (Tensor t : results) {
          String diff = NDArray.compare(expected.get(t), outputs.get(t), rtol, atol);
          if (diff != null) {
            throw new AssertionError(
                b + ": output '" + t.name() + "' differs from the oracle: " + diff + "\n" + f);
          }
        }
      }
    }
  }

  private static void run(
      Backend b, PrimFunc f, List<NDArray> buffers, Map<Var, Long> dims, long[] scalars) {
    switch (b) {
      case IR -> IRInterpreter.run(f, buffers, dims);
      case C -> {
        CKernels k = CKernels.load(List.of(f));
        k.invoke(f.name(), buffers.stream().map(NDArray::segment).toList(), scalars);
      }
      case JAVA -> {
        String cls = "Gen" + f.name();
        String src = JavaCodegen.generate(List.of(f), "", cls);
        Class<?> c = JavaSourceCompiler.compile(cls, src);
        Method m = null;
        for (Method x : c.getMethods()) {
          if (x.getName().equals(f.name())) {
            m = x;
          }
        }
        List<Object> args = new ArrayList<>();
        for (NDArray a : buffers) {
          args.add(a.segment());
        }
        for (int k = 0; k < scalars.length; k++) {
          args.add(
              f.scalars().get(k).dtype() == dev.kernelgen.te.DType.INT64
                  ? (Object) scalars[k]
                  : (Object) (int) scalars[k]);
        }
        try {
          m.invoke(null, args.toArray());
        } catch (ReflectiveOperationException e) {
          throw new AssertionError("generated Java failed:\n" + src, e);
        }
      }
    }
  }

  private static void fillNaN(NDArray a) {
    if (a.dtype().isFloat()) {
      for (long k = 0; k < a.size(); k++) {
        a.setDouble(k, Double.NaN);
      }
    }
  }

  /** The concrete shape of {@code t} for the given symbolic dims. */
  public static long[] shape(Tensor t, Map<Var, Long> dims) {
    long[] out = new long[t.ndim()];
    for (int d = 0; d < out.length; d++) {
      out[d] = eval(t.shape().get(d), dims);
    }
    return out;
  }

  static long eval(Expr e, Map<Var, Long> dims) {
    return Simplifier.evaluate(e, dims);
  }

  private static long value(Var v, Map<Var, Long> dims) {
    Long x = dims.get(v);
    if (x == null) {
      throw new AssertionError("no value for symbolic dim " + v.name());
    }
    return x;
  }
}
