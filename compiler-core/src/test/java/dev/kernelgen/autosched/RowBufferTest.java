package dev.kernelgen.autosched;

import static dev.kernelgen.te.DType.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Reduction;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Softmax's {@code exp(x - max)}, read by the row sum and by the quotient, is computed once per row
 * into a row buffer on CPUs (it was inlined into both: two exp calls per element), inlined where a
 * row does not fit ({@link RowReduction#MAX_ROW_BUFFER}) or has a symbolic length, and inlined on
 * GPUs; every variant equal to the oracle on ragged shapes.
 */
class RowBufferTest {
  /**
   * Calls of expf in the kernel, without the vector-math declaration {@code float expf(float)} and
   * the bodies of loops' overlapping last vectors ({@code j_tail}, {@code OverlapVectorTail}: the
   * same columns' body again).
   */
  private static int expCalls(String c) {
    int n = 0;
    for (String line : c.split("\n")) {
      Matcher m = Pattern.compile("kg_exp_f32\\((?!float x\\))").matcher(line);
      while (!line.contains("_tail") && m.find()) {
        n++;
      }
    }
    return n;
  }

  private static String c(Schedule s) {
    return CCodegen.generate(
        List.of(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null)), "m");
  }

  private static void checkCpu(Schedule s, Map<Var, Long> dims) {
    Check.check(
        s, OpSchedules.args(s), dims, EnumSet.of(Check.Backend.IR, Check.Backend.C), 1e-5, 1e-5);
    Check.check(s, OpSchedules.args(s), dims, EnumSet.of(Check.Backend.JAVA), 1e-5, 1e-5);
  }

  @Test
  void softmaxComputesItsExponentialsOncePerRowOnCpus() {
    Tensor out = Reduction.softmax(placeholder("X", FLOAT32, 7, 37), 1);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    assertThat(s.stage("SoftmaxExp").attachType()).isEqualTo(AttachType.SCOPE);
    String src = c(s);
    assertThat(src).contains("float SoftmaxExp[37]");
    assertThat(expCalls(src)).isEqualTo(1);
    checkCpu(s, Map.of());
  }

  @Test
  void aSoftmaxOverAMiddleAxisIsNoRowGroupOnCpus() {
    // Rows would be axes 0 and 2, the contiguous axis 2 among them: a row group would run the
    // strided axis 1 innermost, vectorized (softmax over the channels of [8, 64, 56, 56]: 1381 us
    // so, 487 us with the reductions as stages of their own, on a 2-core Zen 4).
    Tensor out = Reduction.softmax(placeholder("X", FLOAT32, 3, 37, 5), 1);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    assertThat(s.stage("SoftmaxMax").attachType()).isEqualTo(AttachType.ROOT);
    assertThat(s.stage("SoftmaxExpSum").attachType()).isEqualTo(AttachType.ROOT);
    assertThat(c(s)).doesNotContain("float SoftmaxExp[37]");
    checkCpu(s, Map.of());
    // On GPUs a thread per row reads such rows coalesced across threads: the group stays.
    Schedule g = AutoScheduler.untuned(Target.CUDA, List.of(out));
    assertThat(g.stage("SoftmaxMax").attachType()).isNotEqualTo(AttachType.ROOT);
  }

  @Test
  void aRowLongerThanTheBufferIsInlined() {
    long cols = RowReduction.MAX_ROW_BUFFER + 3;
    Tensor out = Reduction.softmax(placeholder("X", FLOAT32, 2, cols), 1);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    assertThat(s.stage("SoftmaxExp").attachType()).isEqualTo(AttachType.INLINE);
    assertThat(expCalls(c(s))).isEqualTo(2);
    Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 1e-5, 1e-5);
  }

  @Test
  void aSymbolicRowIsInlined() {
    Var n = TE.var("n");
    Tensor out = Reduction.softmax(placeholder("X", FLOAT32, TE.shape(5, n)), 1);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    assertThat(s.stage("SoftmaxExp").attachType()).isEqualTo(AttachType.INLINE);
    checkCpu(s, Map.of(n, 29L));
  }

  @Test
  void gpusInlineTheExponential() {
    Tensor out = Reduction.softmax(placeholder("X", FLOAT32, 7, 37), 1);
    Schedule s = AutoScheduler.untuned(Target.CUDA, List.of(out));
    assertThat(s.stage("SoftmaxExp").attachType()).isEqualTo(AttachType.INLINE);
    List<Tensor> args = OpSchedules.args(s);
    String src =
        CudaCodegen.generate(
            SplitHostDevice.split(Lower.lower(s, "k", args, Target.CUDA, null)).kernels(), "m");
    assertThat(src).doesNotContain("SoftmaxExp[");
    GpuCheck.check(s, Map.of());
  }
}
