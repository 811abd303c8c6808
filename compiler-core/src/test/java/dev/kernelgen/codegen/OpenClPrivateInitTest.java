package dev.kernelgen.codegen;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.topi.Linalg;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * OpenCL kernels with barriers give their private arrays a definite start: PoCL 5.0 (LLVM 16, the
 * H200 machine's OpenCL) returned wrong results for a tiled depthwise convolution whose local
 * accumulator was zeroed under the tile's bound check before the barrier and accumulated after it;
 * with the initializer every library schedule matched the oracle there. CUDA is unchanged.
 */
class OpenClPrivateInitTest {
  /** A zero stored into a private array as the only statement under an if. */
  private static final Pattern GUARDED_ZERO =
      Pattern.compile("if \\([^\\n]*\\) \\{\\n\\s*\\w+\\[[^\\n]*\\] = 0\\.0f;\\n\\s*\\}");

  private static String source(Target t) {
    Tensor a = placeholder("A", FLOAT32, 67, 45);
    Tensor b = placeholder("B", FLOAT32, 45, 33);
    Tensor c = Linalg.matmul(a, b);
    OperatorDef op = OperatorDef.of(List.of(a, b), c);
    Schedule s = DefaultSchedules.forTarget(t, op, Knobs.defaults());
    var dm = SplitHostDevice.split(Lower.lower(s, "mm", op.args(), t, null));
    return t == Target.OPENCL
        ? OpenClCodegen.generate(dm.kernels(), "mm")
        : CudaCodegen.generate(dm.kernels(), "mm");
  }

  @Test
  void privateAccumulatorsOfAKernelWithBarriersAreZeroedWithoutTheBoundCheckOnOpenClOnly() {
    String cuda = source(Target.CUDA);
    assertThat(GUARDED_ZERO.matcher(cuda).find()).as("the pattern, in CUDA:\n%s", cuda).isTrue();
    String cl = source(Target.OPENCL);
    assertThat(cl).contains("__local").contains("barrier(");
    assertThat(GUARDED_ZERO.matcher(cl).find()).as("OpenCL:\n%s", cl).isFalse();
    assertThat(cl).containsPattern("\\n\\s*\\w+_local\\[[^\\n]*\\] = 0\\.0f;");
  }
}
