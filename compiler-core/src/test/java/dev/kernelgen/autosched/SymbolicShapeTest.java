package dev.kernelgen.autosched;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.OpenClCodegen;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.OpSchedules;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * Operators with symbolic dims build with the default schedules on every target and match the
 * oracle (issue 13: a dense layer with a symbolic reduction extent, a depthwise-then-pointwise
 * block with a symbolic channel count).
 */
class SymbolicShapeTest {
  private static OperatorDef def(Workloads w) {
    return OperatorDef.of(
        Schedule.create(w.outputs()).inputs(), w.outputs().toArray(dev.kernelgen.te.Tensor[]::new));
  }

  private static void buildsAndRuns(Workloads w) {
    OperatorDef op = def(w);
    for (Target t : Target.values()) {
      Schedule s = DefaultSchedules.forTarget(t, op, Knobs.defaults());
      switch (t) {
        case C ->
            Check.check(
                s, op.args(), w.dims(), EnumSet.of(Check.Backend.IR, Check.Backend.C), 1e-4, 1e-4);
        case JAVA ->
            Check.check(s, op.args(), w.dims(), EnumSet.of(Check.Backend.JAVA), 1e-4, 1e-4);
        case CUDA -> GpuCheck.check(s, w.dims());
        case OPENCL -> {
          var dm = SplitHostDevice.split(Lower.lower(s, "k", op.args(), t, null));
          assertThat(OpenClCodegen.generate(dm.kernels(), "m")).contains("__kernel void");
        }
      }
    }
  }

  @Test
  void denseWithSymbolicReductionExtent() {
    Workloads w = Workloads.symbolicDense();
    // The matmul template sizes its B panel by the reduction extent: it cannot build here.
    Schedule template = OpSchedules.defaultSchedule(Target.C, w.outputs().get(0), Knobs.defaults());
    assertThatThrownBy(() -> Lower.lower(template, "t", def(w).args(), Target.C, null))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("not bounded by a constant");
    buildsAndRuns(w);
  }

  @Test
  void depthwisePointwiseBlockWithSymbolicChannels() {
    buildsAndRuns(Workloads.symbolicBlock());
  }

  @Test
  void depthwiseStageIsComputedOnceNotPerOutputChannel() {
    Workloads w = Workloads.symbolicBlock();
    for (Target t : Target.values()) {
      Schedule s = AutoScheduler.untuned(t, w.outputs());
      assertThat(s.stage("DepthwiseConv2d").attachType()).as(t.name()).isEqualTo(AttachType.ROOT);
    }
  }
}
