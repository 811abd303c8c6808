package dev.kernelgen.tune;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.OpSchedules;
import java.util.List;

/** Tasks of the library's own templates, for the search's tests. */
public final class TuneTasks {
  private TuneTasks() {}

  /** An {@code m x k} by {@code k x n} matmul scheduled by topi's template for {@code target}. */
  public static TuningTask matmul(int m, int k, int n, Target target) {
    Tensor a = placeholder("A", FLOAT32, m, k);
    Tensor b = placeholder("B", FLOAT32, k, n);
    Tensor c = Linalg.matmul(a, b);
    OperatorDef def = OperatorDef.of(List.of(a, b), c);
    return new TuningTask(
        "Test/matmul",
        target,
        def,
        knobs -> OpSchedules.defaultSchedule(target, def.output(), knobs),
        "matmul");
  }
}
