package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.computeN;
import static dev.kernelgen.te.TE.exp;
import static dev.kernelgen.te.TE.f32;
import static dev.kernelgen.te.TE.i32;
import static dev.kernelgen.te.TE.maximum;
import static dev.kernelgen.te.TE.minimum;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The new-user operator sets ({@link NewUserOpsA} to {@link NewUserOpsE}): {@code FloorBench OUT
 * --set new-user} ({@code bench/cpu.sh floor OUT --set new-user}, {@code bench/gpu.sh floor OUT
 * --set new-user}) times each one's untuned pick against its naive loops, as the floor table does.
 */
final class NewUserOps {
  private NewUserOps() {}

  /** An operator's inputs and outputs. */
  record Def(List<Tensor> inputs, List<Tensor> outputs) {
    FloorBench.Op op(String name) {
      return FloorBench.Op.library(name, inputs, outputs.toArray(Tensor[]::new));
    }
  }

  /** Adds the operator {@code d} makes under {@code name}. */
  static void add(List<FloorBench.Op> ops, String name, Supplier<Def> d) {
    ops.add(d.get().op(name));
  }

  /** The logistic function. */
  static Expr sig(Expr x) {
    return f32(1.0).div(f32(1.0).add(exp(x.mul(-1.0))));
  }

  /** {@code e} clamped to [0, hi]. */
  static Expr clampIdx(Expr e, int hi) {
    return minimum(maximum(e, i32(0)), i32(hi));
  }

  /**
   * A 2x2x2 pooling of stride 2 over [n, c, d, h, w] (NCDHW), its maximum or its mean, the input
   * read in place (no padding).
   */
  static Def pool3d(int n, int c, int d, int h, int w, boolean max) {
    Tensor x = placeholder("X", FLOAT32, n, c, d, h, w);
    IterVar kd = reduceAxis(2, "kd");
    IterVar ky = reduceAxis(2, "ky");
    IterVar kx = reduceAxis(2, "kx");
    Tensor y =
        computeN(
            max ? "MaxPool3d" : "AvgPool3d",
            shape(n, c, d / 2, h / 2, w / 2),
            ix -> {
              Expr in =
                  x.at(
                      ix.get(0),
                      ix.get(1),
                      ix.get(2).mul(2).add(kd.var()),
                      ix.get(3).mul(2).add(ky.var()),
                      ix.get(4).mul(2).add(kx.var()));
              return max ? TE.max(in, kd, ky, kx) : sum(in, kd, ky, kx).mul(0.125);
            });
    return new Def(List.of(x), List.of(y));
  }

  static List<FloorBench.Op> all() {
    List<FloorBench.Op> ops = new ArrayList<>(NewUserOpsA.operators());
    ops.addAll(NewUserOpsB.operators());
    ops.addAll(NewUserOpsC.operators());
    ops.addAll(NewUserOpsD.operators());
    ops.addAll(NewUserOpsE.operators());
    return ops;
  }
}
