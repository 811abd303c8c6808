package dev.kernelgen.maven.launcher;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.Schedule;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.List;

/** Spec classes for the launcher tests. */
public final class TestSpecs {
  private TestSpecs() {}

  /** Vector add with a specialization: the library of the exact-source test. */
  @KernelLibrary(
      name = "AddKernels",
      targets = {Target.JAVA})
  public static final class Add {
    @Operator(specialize = "n=8")
    public static OperatorDef add() {
      Var n = var("n");
      Tensor a = placeholder("a", FLOAT32, n);
      Tensor b = placeholder("b", FLOAT32, n);
      return OperatorDef.of(List.of(a, b), compute("Sum", shape(n), i -> a.at(i).add(b.at(i))));
    }
  }

  /** A row sum and a scale, for every host target and OpenCL. */
  @KernelLibrary(
      name = "MathKernels",
      targets = {Target.C, Target.JAVA, Target.OPENCL})
  public static final class MathSpec {
    @Operator(specialize = "n=4")
    public static OperatorDef rowSum() {
      Var m = var("m");
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT32, m, n);
      IterVar k = reduceAxis(n, "k");
      Tensor s = compute("s", shape(m), i -> sum(x.at(i, k.var()).mul(2f), k));
      Tensor plus = compute("plus_one", shape(m), i -> s.at(i).add(1f));
      return OperatorDef.of(List.of(x), plus);
    }
  }

  /**
   * The last four elements of a symbolic matrix: a launch over [3, 2^30] addresses past 2^31 while
   * touching four elements (issue 12).
   */
  @KernelLibrary(
      name = "LastRowKernels",
      targets = {Target.C, Target.JAVA})
  public static final class LastRowSpec {
    @Operator
    public static OperatorDef lastRow() {
      Var n = var("n");
      Var m = var("m");
      Tensor x = placeholder("x", FLOAT32, n, m);
      Tensor last = compute("last", shape(4), j -> x.at(n.sub(1), m.sub(4).add(j)));
      return OperatorDef.of(List.of(x), last);
    }
  }

  /** A row sum over a zero-padded copy of the input: a buffer the C kernel allocates itself. */
  @KernelLibrary(
      name = "PaddedSumKernels",
      targets = {Target.C, Target.JAVA})
  public static final class PaddedSumSpec {
    @Operator
    public static OperatorDef paddedSum() {
      Var n = var("n");
      Var m = var("m");
      Tensor x = placeholder("x", FLOAT32, n, m);
      Tensor padded =
          compute(
              "Padded",
              shape(n, m.add(2)),
              (i, j) -> select(j.ge(1).and(j.lt(m.add(1))), x.at(i, j.sub(1)), 0f));
      IterVar k = reduceAxis(m.add(2), "k");
      Tensor s = compute("s", shape(n), i -> sum(padded.at(i, k.var()), k));
      return OperatorDef.of(List.of(x), s);
    }

    /** Nothing inlined: the padded copy is a buffer of its own. */
    @Schedule(
        operator = "paddedSum",
        targets = {Target.C, Target.JAVA})
    public static dev.kernelgen.schedule.Schedule plain(OperatorDef op, Knobs knobs) {
      return dev.kernelgen.schedule.Schedule.create(op.outputs());
    }
  }
}
