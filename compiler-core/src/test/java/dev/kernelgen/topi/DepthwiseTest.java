package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DepthwiseTest {
  @ParameterizedTest(name = "{0}x{1}x{2}x{3} k{4} m{5} s{6} {7}")
  @CsvSource({
    "1, 8, 23, 17, 3, 1, 1, SAME",
    "2, 4, 23, 17, 3, 2, 2, SAME",
    "1, 4, 21, 21, 5, 1, 1, VALID",
    "1, 4, 16, 16, 3, 2, 1, SAME",
  })
  void cpuScheduleMatchesTheOracle(
      int n, int c, int h, int w, int k, int m, int stride, String pad) {
    DepthwiseCase d = DepthwiseCase.of(n, c, h, w, k, m, stride, pad);
    Check.check(DepthwiseSchedules.cpu(d.conv(), d.conv(), 8), Map.of());
    Check.check(DepthwiseSchedules.cpu(d.conv(), d.fused(), 8), Map.of());
    Check.check(Schedule.create(d.fused()), Map.of());
  }

  /**
   * A padded plane larger than {@link dev.kernelgen.autosched.RowBands#BAND_BYTES} is copied in
   * bands of output rows, the last one ragged here (61 rows in bands of 21, 31 strided rows in
   * bands of 11).
   */
  @ParameterizedTest(name = "{0}x{1} k{2} m{3} s{4}")
  @CsvSource({"61, 70, 3, 1, 1, 21", "61, 70, 5, 2, 1, 21", "61, 70, 3, 1, 2, 11"})
  void cpuScheduleCopiesALargePaddedPlaneInBands(int h, int w, int k, int m, int stride, int rows) {
    DepthwiseCase d = DepthwiseCase.of(1, 2, h, w, k, m, stride, "SAME");
    Tensor padded = DepthwiseSchedules.paddedInput(d.conv());
    assertThat(DepthwiseSchedules.bandRows(padded, d.conv())).isEqualTo(rows);
    Check.check(DepthwiseSchedules.cpu(d.conv(), d.conv(), 0), Map.of());
    Check.check(DepthwiseSchedules.cpu(d.conv(), d.fused(), 8), Map.of());
    DepthwiseCase small = DepthwiseCase.of(1, 2, 23, 17, 3, 1, 1, "SAME");
    assertThat(
            DepthwiseSchedules.bandRows(DepthwiseSchedules.paddedInput(small.conv()), small.conv()))
        .as("a plane that fits is copied whole")
        .isZero();
  }

  /**
   * A window of stride s reads a padded copy stored in s phases ({@link
   * Stage#storageDeinterleave}): each tap's columns are contiguous in C, no column index of the
   * copy a multiple of the output column; ragged widths (the phases of unequal length), bands,
   * strides 2 and 3, against the oracle.
   */
  @ParameterizedTest(name = "{0}x{1} k{2} s{3}")
  @CsvSource({"23, 17, 3, 2", "31, 29, 3, 3", "61, 70, 3, 2", "20, 19, 5, 2", "18, 18, 3, 2"})
  void cpuScheduleStoresAStridedWindowsPaddedRowsInPhases(int h, int w, int k, int stride) {
    DepthwiseCase d = DepthwiseCase.of(1, 3, h, w, k, 1, stride, "SAME");
    Tensor padded = DepthwiseSchedules.paddedInput(d.conv());
    for (Tensor out : new Tensor[] {d.conv(), d.fused()}) {
      Schedule s = DepthwiseSchedules.cpu(d.conv(), out, 0);
      assertThat(s.stage(padded).storageDeinterleave()).isEqualTo(Map.of(3, stride));
      List<Tensor> args = new java.util.ArrayList<>(s.inputs());
      args.addAll(s.outputs());
      String c =
          dev.kernelgen.codegen.CCodegen.generate(
              List.of(
                  dev.kernelgen.lower.Lower.lower(
                      s, "dw", args, dev.kernelgen.annotations.Target.C, null)),
              "m");
      assertThat(c)
          .as("no strided column index into the copy")
          .doesNotContainPattern("PaddedInput\\[[^\\]]*\\(l\\w* \\* " + stride + "\\)");
      Check.check(s, Map.of());
    }
    DepthwiseCase unit = DepthwiseCase.of(1, 3, 23, 17, 3, 1, 1, "SAME");
    assertThat(
            DepthwiseSchedules.cpu(unit.conv(), unit.conv(), 0)
                .stage(DepthwiseSchedules.paddedInput(unit.conv()))
                .storageDeinterleave())
        .as("a window of stride 1 keeps its rows")
        .isEmpty();
  }

  /** The CPU schedule on a symbolic shape (the sample's generic kernels): rows of any width. */
  @Test
  void cpuScheduleOfASymbolicShape() {
    Var c = var("c");
    Var h = var("h");
    Var w = var("w");
    Tensor in = placeholder("Input", FLOAT32, 1, c, h, w);
    Tensor f = placeholder("Filter", FLOAT32, c, 1, 3, 3);
    Tensor scale = placeholder("Scale", FLOAT32, c);
    Tensor shift = placeholder("Shift", FLOAT32, c);
    Tensor conv = Nn.depthwiseConv2dNchw(in, f, 1, 1, new Padding(1, 1, 1, 1), 1);
    Map<Var, Long> dims = Map.of(c, 3L, h, 13L, w, 19L);
    Check.check(DepthwiseSchedules.cpu(conv, conv, 0), dims);
    Check.check(DepthwiseSchedules.cpu(conv, Nn.relu(Nn.scaleShift(conv, scale, shift)), 8), dims);
  }

  /**
   * A window that slides by one column is summed one filter row per pass over the output row (the
   * filter's rows outside the vectorized columns, its columns inside); a strided one keeps the
   * whole window inside. (A plane larger than {@link dev.kernelgen.autosched.RowBands#BAND_BYTES}:
   * a small one is summed whole, below.)
   */
  @ParameterizedTest(name = "stride {0}, vector {1}")
  @CsvSource({"1, 0", "1, 8", "2, 0", "2, 8"})
  void cpuScheduleSumsOneFilterRowPerPassWhereTheWindowSlidesByOneColumn(int stride, int vector) {
    DepthwiseCase d = DepthwiseCase.of(1, 4, 47, 53, 5, 1, stride, "SAME");
    assertThat(ConvWindow.unitColumnStride(d.conv())).isEqualTo(stride == 1);
    for (Tensor out : new Tensor[] {d.conv(), d.fused()}) {
      Schedule s = DepthwiseSchedules.cpu(d.conv(), out, vector);
      Stage sum = s.stages().stream().filter(Stage::hasReduction).findFirst().orElseThrow();
      List<IterVar> leaves = sum.leafIterVars();
      int filterRow = leaves.indexOf(sum.reduceAxis(0));
      int firstColumn = 3; // after the batch, channel and row loops
      while (leaves.get(firstColumn).isReduce()) {
        firstColumn++;
      }
      assertThat(filterRow < firstColumn)
          .as("filter rows outside the columns: %s", leaves)
          .isEqualTo(stride == 1);
      Check.check(s, Map.of());
    }
  }

  /**
   * A plane that fits in {@link dev.kernelgen.autosched.RowBands#BAND_BYTES}, with rows that are
   * not whole vectors, is summed whole in rows of the pitch of the plane it reads (the padded copy,
   * or the input for VALID): in C one vectorized loop over the plane ({@code
   * lower.CoalescePitchedRows}). Ragged planes, multipliers and a VALID window against the oracle;
   * rows of 32 columns, a plane too large, chunks of 8 and a strided window stay row by row.
   */
  @ParameterizedTest(name = "{0}x{1} k{2} m{3} {4}")
  @CsvSource({
    "21, 21, 3, 1, SAME, 23",
    "23, 17, 3, 2, SAME, 19",
    "7, 7, 3, 1, SAME, 9",
    "13, 5, 5, 1, SAME, 9",
    "21, 21, 3, 2, VALID, 21"
  })
  void cpuScheduleSumsASmallPlaneWholeAtThePitchItReads(
      int h, int w, int k, int m, String pad, int pitch) {
    DepthwiseCase d = DepthwiseCase.of(1, 3, h, w, k, m, 1, pad);
    assertThat(DepthwiseSchedules.planePitch(d.conv(), d.conv())).isEqualTo(pitch);
    int rows = d.conv().shape().get(2) instanceof dev.kernelgen.te.IntImm r ? (int) r.value() : 0;
    int cols = d.conv().shape().get(3) instanceof dev.kernelgen.te.IntImm c ? (int) c.value() : 0;
    for (Tensor out : new Tensor[] {d.conv(), d.fused()}) {
      Schedule s = DepthwiseSchedules.cpu(d.conv(), out, 0);
      assertThat(c(s)).contains("_pitched < " + ((rows - 1) * pitch + cols) + ";");
      Check.check(s, Map.of());
    }
    DepthwiseCase whole = DepthwiseCase.of(1, 3, 32, 32, 3, 1, 1, "SAME");
    assertThat(DepthwiseSchedules.planePitch(whole.conv(), whole.conv())).isZero();
    DepthwiseCase large = DepthwiseCase.of(1, 3, 47, 53, 3, 1, 1, "SAME");
    assertThat(DepthwiseSchedules.planePitch(large.conv(), large.conv())).isZero();
    DepthwiseCase strided = DepthwiseCase.of(1, 3, h, w, 3, 1, 2, "SAME");
    assertThat(DepthwiseSchedules.planePitch(strided.conv(), strided.conv())).isZero();
    assertThat(c(DepthwiseSchedules.cpu(d.conv(), d.fused(), 8))).doesNotContain("_pitched");
  }

  private static String c(Schedule s) {
    List<Tensor> args = new java.util.ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    return dev.kernelgen.codegen.CCodegen.generate(
        List.of(
            dev.kernelgen.lower.Lower.lower(
                s, "dw", args, dev.kernelgen.annotations.Target.C, null)),
        "m");
  }

  @ParameterizedTest(name = "{0}x{1}x{2}x{3} k{4} m{5} s{6} {7}")
  @CsvSource({
    "1, 3, 23, 17, 3, 1, 1, SAME",
    "2, 2, 19, 21, 5, 2, 2, SAME",
    "1, 2, 21, 21, 3, 1, 1, VALID",
  })
  void directGpuScheduleMatchesTheOracleOnTheIrInterpreter(
      int n, int c, int h, int w, int k, int m, int stride, String pad) {
    DepthwiseCase d = DepthwiseCase.of(n, c, h, w, k, m, stride, pad);
    for (var cfg :
        new DepthwiseSchedules.DirectConfig[] {
          new DepthwiseSchedules.DirectConfig(4, 2, 8),
          new DepthwiseSchedules.DirectConfig(3, 4, 16, false)
        }) {
      GpuCheck.check(DepthwiseSchedules.gpuDirect(d.conv(), d.conv(), cfg), Map.of());
      GpuCheck.check(DepthwiseSchedules.gpuDirect(d.conv(), d.fused(), cfg), Map.of());
    }
  }
}
