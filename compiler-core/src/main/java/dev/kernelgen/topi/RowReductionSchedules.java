package dev.kernelgen.topi;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Tensor;

/**
 * The library's GPU schedules of elementwise outputs after row reductions (softmax and its kin);
 * {@link OpSchedules} is their public entry.
 */
final class RowReductionSchedules {
  private RowReductionSchedules() {}

  /**
   * The GPU schedule of an elementwise output after row reductions (softmax, log-softmax, a mean
   * over the last axis): {@code rows_per_block} rows per block, one thread per row.
   */
  static Schedule rowsGpu(Tensor out, Knobs k) {
    int rows = k.knob("rows_per_block", 64, 32, 128, 256);
    Schedule s = Schedule.create(out);
    for (Fusion.Group g : Fusion.plan(s)) {
      Fusion.gpu(g, rows);
    }
    return s;
  }

  /**
   * The GPU schedule of {@link Reduction#softmaxLanes}: one block per row, one thread per lane; the
   * partial and combined reductions in shared memory at the row's loop, each with its lane axis
   * bound to threadIdx.x; the output's columns split so that consecutive threads write consecutive
   * columns. One kernel; the row is read three times (max, sum, output), coalesced.
   */
  static Schedule softmaxLanesGpu(Tensor out) {
    Schedule s = Schedule.create(out);
    Stage so = s.stage(out);
    Tensor sum = null;
    for (Stage st : s.stages()) {
      if (!st.isPlaceholder() && !st.isOutput()) {
        sum = st.tensor();
      }
    }
    long lanes = ((dev.kernelgen.te.IntImm) sum.shape().get(1)).value();
    Stage.Split j = so.split(so.axis(1), lanes);
    so.reorder(so.axis(0), j.inner(), j.outer());
    so.bind(so.axis(0), ThreadTag.BLOCK_X);
    so.bind(j.inner(), ThreadTag.THREAD_X);
    for (Stage st : s.stages()) {
      if (!st.isPlaceholder() && !st.isOutput()) {
        st.setScope("shared");
        st.computeAt(so, so.axis(0));
        st.bind(st.axis(1), ThreadTag.THREAD_X);
      }
    }
    return s;
  }
}
