package dev.kernelgen.tune;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
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

  /**
   * An {@code n³} matmul with a large space, like a generated sketch's: rows tiled in three levels,
   * columns and the reduction in two, the inner columns vectorized or not, the outer rows parallel
   * (55 x 10 x 10 x 2 = 11,000 configurations at 512, most of them slow).
   */
  public static TuningTask tiledMatmul(int n, Target target) {
    Tensor a = placeholder("A", FLOAT32, n, n);
    Tensor b = placeholder("B", FLOAT32, n, n);
    Tensor c = Linalg.matmul(a, b);
    OperatorDef def = OperatorDef.of(List.of(a, b), c);
    return new TuningTask(
        "Test/tiledMatmul",
        target,
        def,
        knobs -> {
          long[] ti = knobs.split("tile_i", n, 3);
          long[] tj = knobs.split("tile_j", n, 2);
          long[] tk = knobs.split("tile_k", n, 2);
          int vec = knobs.knob("vectorize", 1, 0);
          Schedule s = Schedule.create(def.outputs());
          Stage st = s.stage(c);
          Stage.Split i1 = st.split(st.axis(0), ti[1] * ti[2]);
          Stage.Split i2 = st.split(i1.inner(), ti[2]);
          Stage.Split j1 = st.split(st.axis(1), tj[1]);
          Stage.Split k1 = st.split(st.reduceAxis(0), tk[1]);
          st.reorder(
              i1.outer(), j1.outer(), i2.outer(), k1.outer(), k1.inner(), i2.inner(), j1.inner());
          st.parallel(i1.outer());
          if (vec == 1) {
            st.vectorize(j1.inner());
          }
          return s;
        },
        "tiled_matmul");
  }
}
