package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CPU matmul template on a dense layer ({@code W[j, k]}, weights [out, in]): its packed panel
 * of W is stored with the output columns innermost, so that the vectorized columns load contiguous
 * vectors (on this project's 2-core machine the untuned dense + bias + relu [256, 1024] x [1000,
 * 1024] took 236 ms with the panel in W's order, against 123 ms for the naive serial loop nest).
 */
class DenseCpuPanelTest {
  private static String trace(Schedule s) {
    return String.join("\n", s.trace().steps().stream().map(Object::toString).toList());
  }

  @Test
  void denseTransposesItsPanelAndMatmulDoesNot() {
    Tensor x = placeholder("X", FLOAT32, 37, 45);
    Tensor w = placeholder("W", FLOAT32, 29, 45);
    Tensor bias = placeholder("Bias", FLOAT32, 29);
    Tensor dense = Elementwise.relu(Elementwise.add(Linalg.dense(x, w), bias));
    Schedule s =
        DefaultSchedules.forTarget(
            Target.C, OperatorDef.of(List.of(x, w, bias), dense), Knobs.defaults());
    assertThat(trace(s)).contains("s[W.local].reorder_storage");
    Check.check(s, Map.of());

    Tensor a = placeholder("A", FLOAT32, 37, 45);
    Tensor b = placeholder("B", FLOAT32, 45, 29);
    Schedule m =
        DefaultSchedules.forTarget(
            Target.C, OperatorDef.of(List.of(a, b), Linalg.matmul(a, b)), Knobs.defaults());
    assertThat(trace(m)).doesNotContain("reorder_storage");
    Check.check(m, Map.of());
  }
}
