package dev.kernelgen.topi;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * The tuned CPU depthwise schedule's space: {@link DepthwiseSchedules#cpu} with the knobs that the
 * tuner searches per workload (the schedule behind the README's CPU figures).
 *
 * <p>Knobs: {@code vector} (0: whole rows vectorized, else chunks of 8 or 16), {@code rows} (rows
 * of output per parallel task; 0: a whole plane per task), {@code copy_padded} (copy each task's
 * padded input into a local buffer, or read the input with bounds checks), {@code unroll_taps},
 * {@code row_block} (output rows computed together) and, for the plain convolution, {@code
 * local_sum} (sum in a local row buffer then copy, or in the output) and, where the window slides
 * by one column, {@code tap_rows} (each filter row a pass over the row: {@link
 * DepthwiseSchedules#tapRowsOutside}; on a small plane also the task's rows summed whole at the
 * pitch they read, {@link DepthwiseSchedules#planePitch}): 216 configurations for the fused
 * operator, 432 for the plain one (half as many for a strided window, half again as many on a small
 * plane).
 */
public final class DepthwiseCpuSpace {
  private DepthwiseCpuSpace() {}

  /**
   * The CPU schedule of {@link DepthwiseSchedules#cpu} with more knobs: how many output rows a
   * parallel task computes, whether the padded input is copied per task, whether taps unroll.
   *
   * @param conv the depthwise convolution ({@link Nn#depthwiseConv2dNchw})
   * @param out {@code conv} itself, or relu(scale_shift(conv))
   * @param k the knobs: declares the space when the tuner enumerates it, reads a configuration's
   *     values when it builds a candidate
   */
  public static Schedule schedule(Tensor conv, Tensor out, Knobs k) {
    int vector = k.knob("vector", 0, 8, 16);
    int rows = k.knob("rows", 0, 4, 16);
    int copy = k.knob("copy_padded", 1, 0);
    int unroll = k.knob("unroll_taps", 1, 0);
    int block = k.knob("row_block", 1, 2, 4);
    // Each filter row a pass of its own over the row block (DepthwiseSchedules.tapRowsOutside):
    // for a window that slides by one column.
    // Or (2, first: the template's pick, so the search starts from it) the task's rows summed
    // whole at the pitch of the plane they read, where the plane is small and its rows not whole
    // vectors (DepthwiseSchedules.planePitch): one vectorized loop.
    long pitch = DepthwiseSchedules.planePitch(conv, out);
    int tapRows =
        !ConvWindow.unitColumnStride(conv)
            ? 0
            : pitch > 0 ? k.knob("tap_rows", 2, 1, 0) : k.knob("tap_rows", 1, 0);
    // The plain convolution sums either in a row buffer that is then copied to the output, as the
    // fused operator's scale_shift and relu read it (DepthwiseSchedules.rowSum), or in the output.
    int localSum = out == conv ? k.knob("local_sum", 1, 0) : 1;
    Schedule s = Schedule.create(out);
    Tensor sum = localSum == 1 ? DepthwiseSchedules.rowSum(s, conv, out) : conv;
    Stage so = s.stage(out);
    IterVar task = so.fuse(so.axis().get(0), so.axis().get(1));
    IterVar row = so.axis().get(2);
    if (rows > 0) {
      Stage.Split r = so.split(row, rows);
      task = so.fuse(task, r.outer());
      row = r.inner();
    }
    so.parallel(task);
    Stage sc = s.stage(sum);
    // Row blocking: `block` output rows computed together inside the vectorized column loop, the
    // rows and taps unrolled, so that an input row loaded for one output row serves the others
    // it overlaps (the C compiler merges the identical loads).
    List<IterVar> cols;
    IterVar blockRow = null;
    boolean whole = tapRows == 2 && sum != out;
    if (sum != out) {
      IterVar at = whole ? task : row;
      if (block > 1 && !whole) {
        at = so.split(row, block).outer();
      }
      sc.computeAt(so, at);
      if (whole) {
        sc.storageAlign(sc.axis().get(2), (int) pitch, 0);
      }
      vectorizeRow(so, so.axis().get(3), vector);
      IterVar convRow = sc.axis().get(2);
      cols = vectorizeColumns(sc, sc.axis().get(3), vector);
      if (block > 1 && !whole) {
        reorderAfter(sc, cols, convRow);
        sc.unroll(convRow);
        blockRow = convRow;
      }
    } else {
      IterVar ri = null;
      if (block > 1) {
        Stage.Split b = so.split(row, block);
        ri = b.inner();
      }
      cols = vectorizeColumns(sc, sc.axis().get(3), vector);
      if (ri != null) {
        reorderAfter(sc, cols, ri);
        sc.unroll(ri);
        blockRow = ri;
      }
    }
    if (unroll == 1 || block > 1 || whole) {
      sc.unroll(sc.reduceAxis(0));
      sc.unroll(sc.reduceAxis(1));
    }
    if (tapRows == 1) {
      List<IterVar> inside = new ArrayList<>(cols);
      if (blockRow != null) {
        inside.add(blockRow);
      }
      DepthwiseSchedules.tapRowsOutside(sc, inside);
    }
    Tensor padded = DepthwiseSchedules.paddedInput(conv);
    if (padded != null) {
      if (copy == 1) {
        s.stage(padded).computeAt(so, task);
        long stride = ConvWindow.columnStride(conv);
        if (stride > 1) { // as DepthwiseSchedules.cpu: the strided window's taps contiguous
          DepthwiseSchedules.deinterleaveColumns(s.stage(padded), (int) stride);
        }
      } else {
        s.stage(padded).computeInline();
      }
    }
    return s;
  }

  private static void vectorizeRow(Stage st, IterVar row, int vector) {
    vectorizeColumns(st, row, vector);
  }

  private static List<IterVar> vectorizeColumns(Stage st, IterVar row, int vector) {
    return DepthwiseSchedules.vectorizeRow(st, row, vector);
  }

  /** Moves {@code rowLoop} inside the column loops, before the filter taps. */
  private static void reorderAfter(Stage st, List<IterVar> cols, IterVar rowLoop) {
    List<IterVar> order = new ArrayList<>(cols);
    order.add(rowLoop);
    order.add(st.reduceAxis(0));
    order.add(st.reduceAxis(1));
    st.reorder(order.toArray(IterVar[]::new));
  }
}
