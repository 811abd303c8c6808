package dev.kernelgen.topi;

import static dev.kernelgen.te.DType.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.var;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A library template schedules its anchor reduction and the injective stages around it: an operator
 * whose output is a matmul but which reduces before it (one head of attention, softmax(q k^T / 8)
 * v) gets the generated schedule. Its GPU template left q k^T unscheduled, and {@code generate}
 * failed: "the stage writing [Dense] has no loop bound to blockIdx or threadIdx".
 */
class TemplateCoverageTest {
  private static OperatorDef attention(Object seq) {
    Tensor q = placeholder("q", FLOAT32, seq, 64);
    Tensor k = placeholder("k", FLOAT32, seq, 64);
    Tensor v = placeholder("v", FLOAT32, seq, 64);
    Tensor weights = Reduction.softmax(Elementwise.scale(Linalg.dense(q, k), 0.125), 1);
    return OperatorDef.of(List.of(q, k, v), Linalg.matmul(weights, v));
  }

  @Test
  void anOperatorThatReducesBeforeItsMatmulGetsTheGeneratedScheduleOnEveryTarget() {
    Var seq = var("seq");
    for (OperatorDef op : List.of(attention(seq), attention(48))) {
      for (Target t : Target.values()) {
        assertThat(DefaultSchedules.usesTemplate(t, op)).as(t.name()).isFalse();
      }
      for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
        Schedule s = DefaultSchedules.forTarget(t, op, Knobs.defaults());
        // Every kernel binds its loops (this threw for the template).
        assertThat(SplitHostDevice.split(Lower.lower(s, "attention", op.args(), t, null)).kernels())
            .isNotEmpty();
      }
    }
  }

  @Test
  void itsDefaultsMatchTheOracleOnARaggedLength() {
    Var seq = var("seq");
    OperatorDef op = attention(seq);
    Check.check(
        DefaultSchedules.forTarget(Target.C, op, Knobs.defaults()),
        op.args(),
        Map.of(seq, 37L),
        EnumSet.of(Check.Backend.C, Check.Backend.IR),
        1e-4,
        1e-4);
    GpuCheck.check(DefaultSchedules.forTarget(Target.CUDA, op, Knobs.defaults()), Map.of(seq, 37L));
  }
}
