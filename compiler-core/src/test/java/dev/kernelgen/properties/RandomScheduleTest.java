package dev.kernelgen.properties;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.JavaCodegen;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.eval.IRInterpreter;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.CKernels;
import dev.kernelgen.testing.Check;
import dev.kernelgen.testing.JavaSourceCompiler;
import dev.kernelgen.tir.IRPrinter;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Random legal schedules of four operators, each lowered and run against the tensor-expression
 * oracle: every case on the IR interpreter, the first few of each operator in generated C (one
 * library per operator, so one cc run) and in generated Java (one class per operator).
 *
 * <p>A case whose schedule lowering rejects with a {@link UserError} is skipped, but most must be
 * accepted. Seeds are fixed: a failure names the seed and prints the schedule's trace.
 */
class RandomScheduleTest {
  private static final int CASES = 400;
  private static final int C_CASES = 10;
  private static final int JAVA_CASES = 5;
  private static final double TOL = 1e-4;

  /** An operator: its outputs, its parameters in order, values of its symbolic dims. */
  private record Operator(
      String name,
      List<Tensor> outputs,
      List<Tensor> args,
      Map<Var, Long> dims,
      BiConsumer<Schedule, Random> prelude) {
    Operator(String name, List<Tensor> outputs, List<Tensor> args, Map<Var, Long> dims) {
      this(name, outputs, args, dims, (s, r) -> {});
    }
  }

  /** A random schedule that lowered. */
  private record Case(long seed, String trace, PrimFunc func) {}

  @Test
  void depthwiseConv2dWithPaddingAndRelu() {
    Tensor in = placeholder("Input", FLOAT32, 1, 3, 11, 9);
    Tensor filter = placeholder("Filter", FLOAT32, 3, 2, 3, 3);
    Tensor conv = Nn.depthwiseConv2dNchw(in, filter, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 1), 1);
    Tensor out = Nn.relu(conv);
    run(new Operator("depthwise", List.of(out), List.of(in, filter, out), Map.of()));
  }

  @Test
  void matmul() {
    Tensor a = placeholder("A", FLOAT32, 13, 11);
    Tensor b = placeholder("B", FLOAT32, 11, 9);
    IterVar k = reduceAxis(11, "k");
    Tensor c = compute("C", shape(13, 9), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
    // Half of the cases read A through a cache, half compute C in a local cache first: stages
    // that the random sequence can compute at C's loops.
    run(
        new Operator(
            "matmul",
            List.of(c),
            List.of(a, b, c),
            Map.of(),
            (s, rnd) -> {
              if (rnd.nextBoolean()) {
                s.cacheRead(a, rnd.nextBoolean() ? "shared" : "local", c);
              }
              if (rnd.nextBoolean()) {
                s.cacheWrite(c, "local");
              }
            }));
  }

  @Test
  void twoStageElementwiseChainOfASymbolicShape() {
    Var n = var("n");
    Tensor a = placeholder("A", FLOAT32, n, 17);
    Tensor b = compute("B", shape(n, 17), (i, j) -> a.at(i, j).mul(2.0f).add(1.0f));
    Tensor c =
        compute("C", shape(n, 17), (i, j) -> exp(b.at(i, j)).add(maximum(b.at(i, j), f32(0))));
    run(new Operator("chain", List.of(c), List.of(a, c), Map.of(n, 23L)));
  }

  @Test
  void softmaxOfRows() {
    Tensor x = placeholder("X", FLOAT32, 7, 13);
    IterVar k1 = reduceAxis(13, "k1");
    IterVar k2 = reduceAxis(13, "k2");
    Tensor m = compute("M", shape(7), i -> max(x.at(i, k1.var()), k1));
    Tensor e = compute("E", shape(7, 13), (i, j) -> exp(x.at(i, j).sub(m.at(i))));
    Tensor s = compute("S", shape(7), i -> sum(e.at(i, k2.var()), k2));
    Tensor y = compute("Y", shape(7, 13), (i, j) -> e.at(i, j).div(s.at(i)));
    run(new Operator("softmax", List.of(y), List.of(x, y), Map.of()));
  }

  private static void run(Operator op) {
    Map<Tensor, NDArray> inputs = new LinkedHashMap<>();
    long seed = 11;
    for (Tensor t : op.args()) {
      if (!op.outputs().contains(t)) {
        inputs.put(t, NDArray.random(t.dtype(), seed++, Check.shape(t, op.dims())));
      }
    }
    Map<Tensor, NDArray> expected = TensorInterpreter.evaluate(op.outputs(), inputs, op.dims());

    List<String> failures = new ArrayList<>();
    List<Case> cases = new ArrayList<>();
    int rejected = 0;
    List<String> rejections = new ArrayList<>();
    for (long s = 0; s < CASES; s++) {
      Schedule sched = Schedule.create(op.outputs());
      Random rnd = new Random(op.name().hashCode() * 1_000_003L + s);
      PrimFunc f;
      try {
        op.prelude().accept(sched, rnd);
        ScheduleFuzzer.randomize(sched, rnd);
        f = Lower.lower(sched, op.name() + "_" + s, op.args(), Target.C, null);
      } catch (UserError e) {
        rejected++;
        rejections.add("seed " + s + ": " + e.getMessage() + "\n" + sched);
        continue;
      } catch (RuntimeException e) {
        failures.add(report(op, s, sched.toString(), "lowering threw " + e, null));
        continue;
      }
      Case c = new Case(s, sched.toString(), f);
      cases.add(c);
      List<NDArray> buffers = buffers(op, inputs);
      try {
        IRInterpreter.run(f, buffers, op.dims());
        String diff = compare(op, expected, buffers);
        if (diff != null) {
          failures.add(report(op, s, c.trace(), "IR interpreter: " + diff, f));
        }
      } catch (RuntimeException e) {
        failures.add(report(op, s, c.trace(), "IR interpreter threw " + e, f));
      }
    }

    List<Case> forC = cases.subList(0, Math.min(C_CASES, cases.size()));
    runBatch(op, forC, "C", inputs, expected, failures, RandomScheduleTest::runC);
    List<Case> forJava = cases.subList(0, Math.min(JAVA_CASES, cases.size()));
    runBatch(op, forJava, "Java", inputs, expected, failures, RandomScheduleTest::runJava);

    System.out.printf(
        "%s: %d random schedules, %d rejected, %d ran on IR, %d on C, %d on Java; with"
            + " compute_at %d, compute_inline %d, fuse %d, parallel %d, vectorize %d, unroll %d,"
            + " reorder_storage %d%n",
        op.name(),
        CASES,
        rejected,
        cases.size(),
        forC.size(),
        forJava.size(),
        count(cases, "compute_at"),
        count(cases, "compute_inline"),
        count(cases, "fuse"),
        count(cases, "parallel"),
        count(cases, "vectorize"),
        count(cases, "unroll"),
        count(cases, "reorder_storage"));
    if (!failures.isEmpty()) {
      throw new AssertionError(
          failures.size()
              + " failing random schedules of "
              + op.name()
              + ":\n\n"
              + String.join("\n\n", failures.subList(0, Math.min(3, failures.size()))));
    }
    assertThat(rejected)
        .as("schedules rejected out of %d:\n%s", CASES, String.join("\n", rejections))
        .isLessThan(CASES / 4);
  }

  /** Runs every case of a batch; a batch that fails as a whole is retried one case at a time. */
  private static void runBatch(
      Operator op,
      List<Case> batch,
      String backend,
      Map<Tensor, NDArray> inputs,
      Map<Tensor, NDArray> expected,
      List<String> failures,
      BatchRunner runner) {
    if (batch.isEmpty()) {
      return;
    }
    List<List<NDArray>> results = new ArrayList<>();
    try {
      runner.run(op, batch, inputs, results::add);
    } catch (RuntimeException | Error e) {
      if (batch.size() > 1) {
        for (Case c : batch) {
          runBatch(op, List.of(c), backend, inputs, expected, failures, runner);
        }
      } else {
        Case c = batch.getFirst();
        failures.add(report(op, c.seed(), c.trace(), backend + " threw " + e, c.func()));
      }
      return;
    }
    for (int k = 0; k < batch.size(); k++) {
      String diff = compare(op, expected, results.get(k));
      if (diff != null) {
        Case c = batch.get(k);
        failures.add(report(op, c.seed(), c.trace(), backend + ": " + diff, c.func()));
      }
    }
  }

  @FunctionalInterface
  private interface BatchRunner {
    void run(
        Operator op, List<Case> batch, Map<Tensor, NDArray> inputs, Consumer<List<NDArray>> out);
  }

  private static void runC(
      Operator op, List<Case> batch, Map<Tensor, NDArray> inputs, Consumer<List<NDArray>> out) {
    CKernels k = CKernels.load(batch.stream().map(Case::func).toList());
    for (Case c : batch) {
      List<NDArray> buffers = buffers(op, inputs);
      k.invoke(
          c.func().name(), buffers.stream().map(NDArray::segment).toList(), scalars(op, c.func()));
      out.accept(buffers);
    }
  }

  private static void runJava(
      Operator op, List<Case> batch, Map<Tensor, NDArray> inputs, Consumer<List<NDArray>> out) {
    String cls = "Random" + op.name() + batch.getFirst().seed() + "x" + batch.size();
    String src = JavaCodegen.generate(batch.stream().map(Case::func).toList(), "", cls);
    Class<?> compiled = JavaSourceCompiler.compile(cls, src);
    for (Case c : batch) {
      Method m = null;
      for (Method x : compiled.getMethods()) {
        if (x.getName().equals(c.func().name())) {
          m = x;
        }
      }
      assertThat(m).as("method %s in generated Java", c.func().name()).isNotNull();
      List<NDArray> buffers = buffers(op, inputs);
      List<Object> args = new ArrayList<>();
      buffers.forEach(b -> args.add(b.segment()));
      long[] scalars = scalars(op, c.func());
      for (int i = 0; i < scalars.length; i++) {
        args.add(
            c.func().scalars().get(i).dtype() == DType.INT64
                ? (Object) scalars[i]
                : (Object) (int) scalars[i]);
      }
      try {
        m.invoke(null, args.toArray());
      } catch (ReflectiveOperationException e) {
        throw new RuntimeException(e.getCause() != null ? e.getCause() : e);
      }
      out.accept(buffers);
    }
  }

  /** Fresh parameter arrays: the inputs (shared, read-only) and NaN-filled outputs. */
  private static List<NDArray> buffers(Operator op, Map<Tensor, NDArray> inputs) {
    List<NDArray> out = new ArrayList<>();
    for (Tensor t : op.args()) {
      NDArray a = inputs.get(t);
      if (a == null) {
        a = NDArray.zeros(t.dtype(), Check.shape(t, op.dims()));
        for (long i = 0; i < a.size(); i++) {
          a.setDouble(i, Double.NaN);
        }
      }
      out.add(a);
    }
    return out;
  }

  private static long[] scalars(Operator op, PrimFunc f) {
    return f.scalars().stream().mapToLong(v -> op.dims().get(v)).toArray();
  }

  private static String compare(Operator op, Map<Tensor, NDArray> expected, List<NDArray> buffers) {
    for (Tensor t : op.outputs()) {
      NDArray got = buffers.get(op.args().indexOf(t));
      String diff = NDArray.compare(expected.get(t), got, TOL, TOL);
      if (diff != null) {
        return "output '" + t.name() + "' differs from the oracle: " + diff;
      }
    }
    return null;
  }

  private static long count(List<Case> cases, String primitive) {
    return cases.stream().filter(c -> c.trace().contains("." + primitive + "(")).count();
  }

  private static String report(Operator op, long seed, String trace, String what, PrimFunc f) {
    return op.name()
        + " seed "
        + seed
        + ": "
        + what
        + "\nschedule:\n"
        + trace
        + (f == null ? "" : "\nlowered:\n" + IRPrinter.print(f));
  }
}
