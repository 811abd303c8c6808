package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.exp;
import static dev.kernelgen.te.TE.f32;
import static dev.kernelgen.te.TE.i32;
import static dev.kernelgen.te.TE.maximum;
import static dev.kernelgen.te.TE.minimum;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The new-user operator sets ({@link NewUserOpsA}, {@link NewUserOpsB}, {@link NewUserOpsC}, {@link
 * NewUserOpsD}): {@code FloorBench OUT --set new-user} ({@code bench/cpu.sh floor OUT --set
 * new-user}, {@code bench/gpu.sh floor OUT --set new-user}) times each one's untuned pick against
 * its naive loops, as the floor table does.
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

  static List<FloorBench.Op> all() {
    List<FloorBench.Op> ops = new ArrayList<>(NewUserOpsA.operators());
    ops.addAll(NewUserOpsB.operators());
    ops.addAll(NewUserOpsC.operators());
    ops.addAll(NewUserOpsD.operators());
    return ops;
  }
}
