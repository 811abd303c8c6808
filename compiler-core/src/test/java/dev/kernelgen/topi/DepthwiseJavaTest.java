package dev.kernelgen.topi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.JavaCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CPU schedule with whole rows (as the benchmark and the sample build it) on the Java target:
 * the rows of every plane flattened into one row ({@code JavaRowFlatten}) where the stride is 1,
 * the fused scale_shift and relu applied to that row in place, the padded plane taken from the
 * thread's workspace; every kernel equal to the oracle on ragged shapes (odd widths, planes smaller
 * than the filter's reach, channel multipliers, stride 2 which stays row by row).
 */
class DepthwiseJavaTest {
  @ParameterizedTest(name = "{0}x{1}x{2}x{3} k{4} m{5} s{6} {7}")
  @CsvSource({
    "1, 3, 21, 21, 3, 1, 1, SAME",
    "2, 4, 23, 17, 3, 1, 1, SAME",
    "1, 3, 7, 5, 3, 1, 1, VALID",
    "1, 2, 19, 13, 5, 1, 1, SAME",
    "1, 2, 17, 11, 3, 2, 1, SAME",
    "1, 2, 2, 3, 3, 1, 1, SAME",
    "1, 3, 19, 21, 3, 1, 2, SAME",
    "1, 2, 19, 21, 5, 2, 2, VALID",
  })
  void wholeRowScheduleMatchesTheOracle(
      int n, int c, int h, int w, int k, int m, int stride, String pad) {
    DepthwiseCase d = DepthwiseCase.of(n, c, h, w, k, m, stride, pad);
    for (Tensor out : List.of(d.conv(), d.fused())) {
      Schedule s = DepthwiseSchedules.cpu(d.conv(), out, 0, Target.JAVA);
      List<Tensor> args = new ArrayList<>(s.inputs());
      args.addAll(s.outputs());
      Check.check(s, args, Map.of(), EnumSet.of(Check.Backend.JAVA), 1e-4, 1e-4);
      String src =
          JavaCodegen.generate(List.of(Lower.lower(s, "dw", args, Target.JAVA, null)), "", "Dw");
      if (stride == 1) {
        assertThat(src).as("flattened rows").contains("_rows[");
        long loops =
            src.lines().filter(x -> x.matches("\\s+\\w+_rows\\[\\w+\\] = .*Filter_v.*")).count();
        int rowStride = pad.equals("SAME") ? w + k - 1 : w;
        if (rowStride >= 16) { // taps closer than 16 elements go to loops of their own
          assertThat(loops).as("one loop per filter column, its taps a row apart").isEqualTo(k);
        }
        if (pad.equals("SAME")) {
          assertThat(src).as("the padded plane read in place").doesNotContain("window_float");
        }
        if (m == 1) {
          assertThat(src)
              .as("the output plane copied out at once")
              .containsPattern(
                  "MemorySegment.copy\\(DepthwiseConv2d\\w*_plane, 0, \\w+, JAVA_FLOAT, .*, "
                      + (pad.equals("SAME") ? h * w : (h - k + 1) * (w - k + 1))
                      + "\\);");
        }
        if (out == d.fused()) {
          assertThat(src)
              .as("relu on the flat row in place")
              .containsPattern(
                  "DepthwiseConv2d_rows\\[(\\w+)\\] = Math.max\\(\\(DepthwiseConv2d_rows\\[\\1\\]");
        }
      } else {
        assertThat(src).as("a stride of 2 is no unit stride").doesNotContain("_rows[");
      }
      if (pad.equals("SAME") && (long) (h + k - 1) * (w + k - 1) * 4 >= 1024) {
        assertThat(src).contains("PaddedInput = WORKSPACE_dw_PaddedInput.get();");
      }
    }
  }
}
