package dev.kernelgen.bench.gpu;

import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;

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

  static List<FloorBench.Op> all() {
    List<FloorBench.Op> ops = new ArrayList<>(NewUserOpsA.operators());
    ops.addAll(NewUserOpsB.operators());
    ops.addAll(NewUserOpsC.operators());
    ops.addAll(NewUserOpsD.operators());
    return ops;
  }
}
