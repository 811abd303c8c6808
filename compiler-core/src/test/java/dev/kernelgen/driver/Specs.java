package dev.kernelgen.driver;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.ScheduleFor;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.List;

/** Spec classes for the driver tests. */
final class Specs {
  private Specs() {}

  /**
   * A library conv2d with a ReLU after it, on a plane and channel count where the untuned C pick
   * computes it by Winograd's F(2x2, 3x3).
   */
  @KernelLibrary(name = "ConvKernels")
  static final class ConvLayer {
    @Operator
    public static OperatorDef conv() {
      Tensor x = placeholder("x", FLOAT32, 1, 32, 46, 46);
      Tensor w = placeholder("w", FLOAT32, 32, 32, 3, 3);
      return OperatorDef.of(
          List.of(x, w),
          dev.kernelgen.topi.Topi.relu(
              dev.kernelgen.topi.Topi.conv2dNchw(
                  x, w, 1, 1, new dev.kernelgen.topi.Padding(1, 1, 1, 1), 1)));
    }
  }

  /** A library matmul: the C template at x86-64-v4, the generated schedule below it. */
  @KernelLibrary(name = "MatmulKernels")
  static final class MatmulLayer {
    @Operator
    public static OperatorDef matmul() {
      Tensor a = placeholder("a", FLOAT32, 64, 96);
      Tensor b = placeholder("b", FLOAT32, 96, 80);
      return OperatorDef.of(List.of(a, b), dev.kernelgen.topi.Topi.matmul(a, b));
    }
  }

  /** Vector add (with a specialization) and a row sum, for every target. */
  @KernelLibrary(name = "SmallKernels")
  static final class Small {
    @Operator(specialize = {"n=1024"})
    public static OperatorDef add() {
      Var n = var("n");
      Tensor a = placeholder("a", FLOAT32, n);
      Tensor b = placeholder("b", FLOAT32, n);
      Tensor c = compute("c", shape(n), i -> a.at(i).add(b.at(i)));
      return OperatorDef.of(List.of(a, b), c);
    }

    @Operator
    public static OperatorDef rowSum() {
      Var m = var("m");
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT32, m, n);
      Tensor twice = compute("twice", shape(m, n), (i, j) -> x.at(i, j).mul(2f));
      IterVar k = reduceAxis(n, "k");
      Tensor s = compute("s", shape(m), i -> sum(twice.at(i, k.var()), k));
      return OperatorDef.of(List.of(x), s);
    }

    @ScheduleFor(
        operator = "add",
        targets = {Target.C})
    public static void addCpu(Schedule s, OperatorDef op, Knobs knobs) {
      var st = s.stage(op.output());
      int v = knobs.knob("vector", 8, 4, 16);
      var sp = st.split(st.axis(0), v);
      st.parallel(sp.outer());
      st.vectorize(sp.inner());
    }
  }

  /** An operator method that throws. */
  @KernelLibrary(
      name = "ThrowingKernels",
      targets = {Target.JAVA})
  static final class Throwing {
    @Operator
    public static OperatorDef broken() {
      Var n = var("n");
      Tensor a = placeholder("a", FLOAT32, n);
      Tensor b = placeholder("b", FLOAT32, n, n);
      return OperatorDef.of(List.of(a), compute("c", shape(n), i -> a.at(i).add(b.at(i))));
    }
  }

  /** A schedule that is not legal: vectorizes a reduce axis. */
  @KernelLibrary(
      name = "IllegalKernels",
      targets = {Target.C})
  static final class Illegal {
    @Operator
    public static OperatorDef total() {
      Var n = var("n");
      Tensor a = placeholder("a", FLOAT32, n, 4);
      IterVar k = reduceAxis(4, "k");
      return OperatorDef.of(List.of(a), compute("t", shape(n), i -> sum(a.at(i, k.var()), k)));
    }

    @ScheduleFor(
        operator = "total",
        targets = {Target.C})
    public static void cpu(Schedule s, OperatorDef op, Knobs knobs) {
      s.stage(op.output()).vectorize(s.stage(op.output()).reduceAxis(0));
    }
  }

  /** A GPU-only library. */
  @KernelLibrary(
      name = "GpuKernels",
      targets = {Target.CUDA})
  static final class Gpu {
    @Operator
    public static OperatorDef scale() {
      Var n = var("n");
      Tensor a = placeholder("a", FLOAT32, n);
      return OperatorDef.of(List.of(a), compute("b", shape(n), i -> a.at(i).mul(3f)));
    }
  }

  /**
   * An argmax over a symbolic row as a user writes it (the least position holding the row's max):
   * an axis read as an int32 value, which the driver also builds with 64-bit loops.
   */
  @KernelLibrary(name = "ArgKernels")
  static final class IndexValues {
    @Operator
    public static OperatorDef argmax() {
      Var m = var("m");
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT32, m, n);
      IterVar k = reduceAxis(n, "k");
      IterVar q = reduceAxis(n, "q");
      Tensor top = compute("top", shape(m), i -> dev.kernelgen.te.TE.max(x.at(i, k.var()), k));
      Tensor arg =
          compute(
              "arg",
              shape(m),
              i ->
                  dev.kernelgen.te.TE.min(
                      dev.kernelgen.te.TE.select(x.at(i, q.var()).eq(top.at(i)), q.var(), n), q));
      return OperatorDef.of(List.of(x), arg);
    }
  }

  /** Three operators with a mistake each, and a good one: one build reports all three. */
  @KernelLibrary(
      name = "MistakenKernels",
      targets = {Target.JAVA})
  static final class Mistakes {
    @Operator
    public static OperatorDef upperCaseDim() {
      Var n = var("N");
      Tensor a = placeholder("a", FLOAT32, n);
      return OperatorDef.of(List.of(a), compute("b", shape(n), i -> a.at(i).mul(2f)));
    }

    @Operator
    public static OperatorDef fine() {
      Var n = var("n");
      Tensor a = placeholder("a", FLOAT32, n);
      return OperatorDef.of(List.of(a), compute("b", shape(n), i -> a.at(i).mul(2f)));
    }

    @Operator
    public static OperatorDef rowSum() {
      Var m = var("m");
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT32, m, n);
      IterVar k = reduceAxis(n, "k");
      IterVar k2 = reduceAxis(n, "k2");
      Tensor s = compute("s", shape(m), i -> sum(x.at(i, k.var()), k));
      return OperatorDef.of(
          List.of(x), compute("rowSum", shape(m), i -> s.at(i).add(x.at(i, k2.var()))));
    }

    @Operator
    public static OperatorDef nothing() {
      return null;
    }
  }

  /** A specialization whose kernels would take the name of the generic 64-bit index kernels. */
  @KernelLibrary(
      name = "ClashKernels",
      targets = {Target.JAVA})
  static final class WideNameClash {
    @Operator(specialize = {"idx=64"})
    public static OperatorDef x() {
      Var idx = var("idx");
      Tensor a = placeholder("a", FLOAT32, idx);
      return OperatorDef.of(List.of(a), compute("b", shape(idx), i -> a.at(i).add(1f)));
    }
  }
}
