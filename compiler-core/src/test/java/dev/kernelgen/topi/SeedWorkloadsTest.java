package dev.kernelgen.topi;

import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.testing.OracleMemo;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The workloads of the seed article (shared/workloads/depthwise-seed.json), plus stride 2 and a
 * ragged 23x17 image, one and three of them: the depthwise convolution and the fused depthwise +
 * scale_shift + relu, computed by generated C (through FFM) and generated Java with the CPU
 * schedule, equal to the oracle. {@code verify} runs the smallest and the largest image, each
 * filter size, multiplier, padding and stride, and the ragged images; the exhaustive tier the other
 * sizes of the article and its batch of 32.
 */
@Execution(
    ExecutionMode
        .CONCURRENT) // its workloads are independent; a long class, it would otherwise end the run
// on one core
class SeedWorkloadsTest {
  @ParameterizedTest(name = "{0}x{1}x{2}x{3} k{4} m{5} s{6} {7}")
  @CsvSource({
    "1, 256, 21, 21, 3, 1, 1, SAME",
    "1, 256, 96, 96, 3, 1, 1, SAME",
    "1, 256, 96, 96, 5, 2, 1, SAME",
    "1, 256, 96, 96, 3, 1, 1, VALID",
    "1, 256, 96, 96, 3, 1, 2, SAME",
    "1, 256, 23, 17, 3, 1, 1, SAME",
    "3, 256, 23, 17, 3, 1, 1, SAME",
  })
  void generatedCAndJavaMatchTheOracle(
      int n, int c, int h, int w, int k, int m, int stride, String pad) {
    check(n, c, h, w, k, m, stride, pad);
  }

  /**
   * The article's other sizes, and its batch of 32 images: 75M outputs, whose oracle alone takes
   * half a minute; a batch of three ragged images above checks the same schedule across images in
   * verify.
   */
  @ParameterizedTest(name = "{0}x{1}x{2}x{3} k{4} m{5} s{6} {7}")
  @CsvSource({
    "1, 256, 32, 32, 3, 1, 1, SAME",
    "1, 256, 64, 64, 3, 1, 1, SAME",
    "1, 256, 96, 96, 5, 1, 1, SAME",
    "1, 256, 96, 96, 3, 2, 1, SAME",
    "32, 256, 96, 96, 3, 1, 1, SAME"
  })
  @Tag("exhaustive")
  void theRestGeneratedCAndJavaMatchTheOracle(
      int n, int c, int h, int w, int k, int m, int stride, String pad) {
    check(n, c, h, w, k, m, stride, pad);
  }

  private static void check(int n, int c, int h, int w, int k, int m, int stride, String pad) {
    DepthwiseCase d = DepthwiseCase.of(n, c, h, w, k, m, stride, pad);
    var backends = EnumSet.of(Check.Backend.C, Check.Backend.JAVA);
    // The fused operator's oracle reads the convolution's from the first check (same inputs).
    OracleMemo oracle = new OracleMemo();
    Check.check(
        DepthwiseSchedules.cpu(d.conv(), d.conv(), 0),
        List.of(d.in(), d.filter(), d.conv()),
        Map.of(),
        backends,
        1e-4,
        1e-4,
        oracle);
    List<Tensor> args = List.of(d.in(), d.filter(), d.scale(), d.shift(), d.fused());
    Check.check(
        DepthwiseSchedules.cpu(d.conv(), d.fused(), 0),
        args,
        Map.of(),
        backends,
        1e-4,
        1e-4,
        oracle);
  }
}
