package dev.kernelgen.topi;

import static dev.kernelgen.te.DType.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A dense layer is tagged matmul, but it reads {@code W[j, k]}: on GPUs it gets the generated
 * schedule (its epilogue fused, W's tile stored reduction-major), not the matmul template whose
 * tiles assume {@code B[k, j]}; a matmul keeps the template, and the CPU keeps its dense template.
 */
class DenseGpuDefaultTest {
  private static OperatorDef dense(long m, long k, long n) {
    Tensor x = placeholder("X", FLOAT32, m, k);
    Tensor w = placeholder("W", FLOAT32, n, k);
    Tensor b = placeholder("Bias", FLOAT32, n);
    return OperatorDef.of(
        List.of(x, w, b), Elementwise.relu(Elementwise.add(Linalg.dense(x, w), b)));
  }

  @Test
  void denseTakesTheGeneratedScheduleOnGpusAndTheTemplateOnCpus() {
    OperatorDef d = dense(23, 45, 37);
    assertThat(DefaultSchedules.usesTemplate(Target.CUDA, d)).isFalse();
    assertThat(DefaultSchedules.usesTemplate(Target.OPENCL, d)).isFalse();
    assertThat(DefaultSchedules.usesTemplate(Target.C, d)).isTrue();
    Tensor a = placeholder("A", FLOAT32, 23, 45);
    Tensor bm = placeholder("B", FLOAT32, 45, 37);
    OperatorDef mm = OperatorDef.of(List.of(a, bm), Linalg.matmul(a, bm));
    assertThat(DefaultSchedules.usesTemplate(Target.CUDA, mm)).isTrue();
  }

  @Test
  void theGeneratedDenseDefaultMatchesTheOracleOnARaggedShape() {
    OperatorDef d = dense(23, 45, 37);
    Schedule s = DefaultSchedules.forTarget(Target.CUDA, d, Knobs.defaults());
    // One kernel: the epilogue is computed in the tile, where the template launched a second.
    assertThat(s.stages().stream().filter(st -> st.name().equals("Relu")).findFirst()).isPresent();
    GpuCheck.check(s, Map.of());
  }
}
