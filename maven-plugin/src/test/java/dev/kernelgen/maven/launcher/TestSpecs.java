package dev.kernelgen.maven.launcher;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.FLOAT64;
import static dev.kernelgen.te.TE.INT64;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.ScheduleFor;
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

  /** A row sum, for every target (the tests ask for the ones this machine has). */
  @KernelLibrary(
      name = "MathKernels",
      targets = {Target.C, Target.JAVA, Target.OPENCL, Target.CUDA})
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
   * A dense layer of ragged shape whose untuned C pick differs by ISA level (AVX2's unit takes
   * another register tile than AVX-512's), so that each level's library has its own kernel.
   */
  @KernelLibrary(
      name = "DenseKernels",
      targets = {Target.C, Target.JAVA})
  public static final class DenseSpec {
    @Operator
    public static OperatorDef dense() {
      Tensor a = placeholder("a", FLOAT32, 33, 64);
      Tensor b = placeholder("b", FLOAT32, 64, 100);
      IterVar k = reduceAxis(64, "k");
      Tensor y =
          compute("y", shape(33, 100), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
      return OperatorDef.of(
          List.of(a, b), compute("scaled", shape(33, 100), (i, j) -> y.at(i, j).mul(2f)));
    }
  }

  /**
   * Output names beside inputs: a last stage {@code Bias} next to an input {@code bias}, an input
   * called {@code out}, and an operator of two outputs.
   */
  @KernelLibrary(
      name = "NamingKernels",
      targets = {Target.JAVA})
  public static final class Naming {
    @Operator
    public static OperatorDef addBias() {
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT32, n);
      Tensor bias = placeholder("bias", FLOAT32, n);
      return OperatorDef.of(
          List.of(x, bias), compute("Bias", shape(n), i -> x.at(i).add(bias.at(i))));
    }

    @Operator
    public static OperatorDef copyOut() {
      Var n = var("n");
      Tensor out = placeholder("out", FLOAT32, n);
      return OperatorDef.of(List.of(out), compute("copy", shape(n), i -> out.at(i)));
    }

    @Operator
    public static OperatorDef outDim() {
      Var out = var("out");
      Tensor x = placeholder("x", FLOAT32, out);
      return OperatorDef.of(List.of(x), compute("y", shape(out), i -> x.at(i).mul(2f)));
    }

    @Operator
    public static OperatorDef twice() {
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT32, n);
      return OperatorDef.of(
          List.of(x),
          compute("x_plus", shape(n), i -> x.at(i).add(1f)),
          compute("x_minus", shape(n), i -> x.at(i).sub(1f)));
    }
  }

  /**
   * Names that clash with the launcher's own: an input called {@code device} (a field the methods
   * name), inputs {@code x} and {@code x_type} (whose parameter takes the name of {@code x}'s dtype
   * parameter {@code xType}), and a dim called {@code module} (another field).
   */
  @KernelLibrary(
      name = "ClashKernels",
      targets = {Target.JAVA})
  public static final class Clashes {
    @Operator
    public static OperatorDef mix() {
      Var module = var("module");
      Tensor device = placeholder("device", FLOAT32, module);
      Tensor x = placeholder("x", FLOAT32, module);
      Tensor xType = placeholder("x_type", FLOAT32, module);
      return OperatorDef.of(
          List.of(device, x, xType),
          compute("y", shape(module), i -> device.at(i).add(x.at(i)).mul(xType.at(i))));
    }
  }

  /**
   * Two stages bound to GPU threads each: on OpenCL (and CUDA) two kernels with a temporary between
   * them, taken from the launcher's workspace.
   */
  @KernelLibrary(
      name = "TwoKernels",
      targets = {Target.C, Target.JAVA, Target.OPENCL, Target.CUDA})
  public static final class TwoKernelsSpec {
    @Operator
    public static OperatorDef reversePlus() {
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT32, n);
      Tensor doubled = compute("doubled", shape(n), i -> x.at(i).mul(2f));
      Tensor y = compute("y", shape(n), i -> doubled.at(n.sub(1).sub(i)).add(1f));
      return OperatorDef.of(List.of(x), y);
    }

    @ScheduleFor(
        operator = "reversePlus",
        targets = {Target.OPENCL, Target.CUDA})
    public static void gpu(dev.kernelgen.schedule.Schedule s, OperatorDef op, Knobs knobs) {
      for (Tensor t : List.of(op.tensor("doubled"), op.output())) {
        var st = s.stage(t);
        var sp = st.split(st.axis(0), 64);
        st.bind(sp.outer(), "blockIdx.x");
        st.bind(sp.inner(), "threadIdx.x");
      }
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

  /**
   * A broadcast over dims the spec wrote apart: {@code b} has {@code k} elements and is read at
   * every column {@code j < m}, so a launch needs {@code m <= k} (nothing else relates them).
   */
  @KernelLibrary(
      name = "BroadcastKernels",
      targets = {Target.C, Target.JAVA, Target.OPENCL, Target.CUDA})
  public static final class BroadcastSpec {
    @Operator
    public static OperatorDef rowPlus() {
      Var n = var("n");
      Var m = var("m");
      Var k = var("k");
      Tensor a = placeholder("a", FLOAT32, n, m);
      Tensor b = placeholder("b", FLOAT32, k);
      return OperatorDef.of(
          List.of(a, b), compute("Y", shape(n, m), (i, j) -> a.at(i, j).add(b.at(j))));
    }
  }

  /** A window of three over a vector: its output is two shorter than its input. */
  @KernelLibrary(
      name = "WindowKernels",
      targets = {Target.JAVA})
  public static final class WindowSpec {
    @Operator
    public static OperatorDef window3() {
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT32, n);
      return OperatorDef.of(
          List.of(x),
          compute("W", shape(n.sub(2)), i -> x.at(i).add(x.at(i.add(1))).add(x.at(i.add(2)))));
    }
  }

  /** A dim named as an input ({@code x} of {@code x} elements). */
  @KernelLibrary(
      name = "SameNameKernels",
      targets = {Target.JAVA})
  public static final class SameNameSpec {
    @Operator
    public static OperatorDef twice() {
      Var x = var("x");
      Tensor in = placeholder("x", FLOAT32, x);
      return OperatorDef.of(List.of(in), compute("y", shape(x), i -> in.at(i).mul(2f)));
    }
  }

  /** Floor division and modulo by divisors read from a tensor. */
  @KernelLibrary(
      name = "DivideKernels",
      targets = {Target.C, Target.JAVA, Target.OPENCL, Target.CUDA})
  public static final class DivideSpec {
    @Operator
    public static OperatorDef divide() {
      Tensor x = placeholder("x", dev.kernelgen.te.TE.INT32, 9);
      Tensor d = placeholder("d", dev.kernelgen.te.TE.INT32, 9);
      return OperatorDef.of(
          List.of(x, d),
          compute("q", shape(9), i -> x.at(i).floordiv(d.at(i))),
          compute("r", shape(9), i -> x.at(i).floormod(d.at(i))));
    }
  }

  /** An embedding lookup: rows of a table at indices read from a tensor. */
  @KernelLibrary(
      name = "EmbeddingKernels",
      targets = {Target.C, Target.JAVA, Target.OPENCL, Target.CUDA})
  public static final class EmbeddingSpec {
    @Operator
    public static OperatorDef lookup() {
      Tensor table = placeholder("table", FLOAT32, 5, 3);
      Tensor ids = placeholder("ids", dev.kernelgen.te.TE.INT32, 4);
      return OperatorDef.of(
          List.of(table, ids), compute("Rows", shape(4, 3), (i, j) -> table.at(ids.at(i), j)));
    }

    /** The same over symbolic dims: the table's rows are a dim no index of the kernel uses. */
    @Operator
    public static OperatorDef lookupAny() {
      Var v = var("v");
      Var d = var("d");
      Var n = var("n");
      Tensor table = placeholder("table", FLOAT32, v, d);
      Tensor ids = placeholder("ids", dev.kernelgen.te.TE.INT32, n);
      return OperatorDef.of(
          List.of(table, ids), compute("Rows", shape(n, d), (i, j) -> table.at(ids.at(i), j)));
    }
  }

  /** An operator of no inputs: half of each index. */
  @KernelLibrary(
      name = "IotaKernels",
      targets = {Target.C, Target.JAVA})
  public static final class IotaSpec {
    @Operator
    public static OperatorDef iota() {
      return OperatorDef.of(
          List.of(),
          compute("Iota", shape(5), i -> dev.kernelgen.te.TE.cast(FLOAT32, i).mul(0.5f)));
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
    @ScheduleFor(
        operator = "paddedSum",
        targets = {Target.C, Target.JAVA})
    public static dev.kernelgen.schedule.Schedule plain(OperatorDef op, Knobs knobs) {
      return dev.kernelgen.schedule.Schedule.create(op.outputs());
    }
  }

  /** 64-bit elements: an int64 row sum and a float64 softmax over rows, both dims symbolic. */
  @KernelLibrary(
      name = "WideKernels",
      targets = {Target.C, Target.JAVA, Target.OPENCL, Target.CUDA})
  public static final class WideTypesSpec {
    @Operator
    public static OperatorDef rowSum64() {
      Var m = var("m");
      Var n = var("n");
      Tensor x = placeholder("x", INT64, m, n);
      IterVar k = reduceAxis(n, "k");
      return OperatorDef.of(List.of(x), compute("s", shape(m), i -> sum(x.at(i, k.var()), k)));
    }

    @Operator
    public static OperatorDef softmax64() {
      Var m = var("m");
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT64, m, n);
      IterVar j = reduceAxis(n, "j");
      IterVar j2 = reduceAxis(n, "j2");
      Tensor mx = compute("mx", shape(m), i -> dev.kernelgen.te.TE.max(x.at(i, j.var()), j));
      Tensor e =
          compute("e", shape(m, n), (i, c) -> dev.kernelgen.te.TE.exp(x.at(i, c).sub(mx.at(i))));
      Tensor es = compute("es", shape(m), i -> sum(e.at(i, j2.var()), j2));
      return OperatorDef.of(
          List.of(x), compute("y", shape(m, n), (i, c) -> e.at(i, c).div(es.at(i))));
    }

    /** Every math function at float64: any computed in float32 on a target loses digits. */
    @Operator
    public static OperatorDef math64() {
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT64, n);
      return OperatorDef.of(
          List.of(x),
          compute(
              "m",
              shape(n),
              i -> {
                dev.kernelgen.te.Expr v = x.at(i);
                dev.kernelgen.te.Expr a = dev.kernelgen.te.TE.abs(v).add(0.5);
                return dev.kernelgen
                    .te
                    .TE
                    .exp(v.mul(0.1))
                    .add(dev.kernelgen.te.TE.log(a))
                    .add(dev.kernelgen.te.TE.sqrt(a))
                    .add(dev.kernelgen.te.TE.tanh(v))
                    .add(dev.kernelgen.te.TE.pow(a, v.mul(0.25)))
                    .add(dev.kernelgen.te.TE.floor(v.mul(3.0)))
                    .add(dev.kernelgen.te.TE.ceil(v.mul(0.7)));
              }));
    }

    /** Two outputs of two types: each row's largest value (float64) and its positives (int32). */
    @Operator
    public static OperatorDef rowStats() {
      Var m = var("m");
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT64, m, n);
      IterVar j = reduceAxis(n, "j");
      IterVar j2 = reduceAxis(n, "j2");
      Tensor largest =
          compute("largest", shape(m), i -> dev.kernelgen.te.TE.max(x.at(i, j.var()), j));
      Tensor positives =
          compute("positives", shape(m), i -> sum(select(x.at(i, j2.var()).gt(0.0), 1, 0), j2));
      return OperatorDef.of(List.of(x), largest, positives);
    }
  }

  /** Masks: a BOOL output (x > t) and a BOOL input (x where the mask holds, else 0). */
  @KernelLibrary(
      name = "MaskKernels",
      targets = {Target.C, Target.JAVA, Target.OPENCL, Target.CUDA})
  public static final class MaskSpec {
    @Operator
    public static OperatorDef above() {
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT32, n);
      Tensor t = placeholder("t", FLOAT32, 1);
      return OperatorDef.of(List.of(x, t), compute("mask", shape(n), i -> x.at(i).gt(t.at(0))));
    }

    @Operator
    public static OperatorDef keep() {
      Var n = var("n");
      Tensor x = placeholder("x", FLOAT32, n);
      Tensor m = placeholder("m", dev.kernelgen.te.TE.BOOL, n);
      return OperatorDef.of(
          List.of(x, m), compute("kept", shape(n), i -> select(m.at(i), x.at(i), 0f)));
    }
  }
}
