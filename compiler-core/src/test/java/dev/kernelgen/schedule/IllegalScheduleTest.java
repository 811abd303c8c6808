package dev.kernelgen.schedule;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Specs and schedules that make no sense are rejected with a message naming tensor and axis. */
class IllegalScheduleTest {
  private final Var n = var("n");
  private final Tensor a = placeholder("A", FLOAT32, n, 16);
  private final Tensor b = placeholder("B", FLOAT32, 16, 8);
  private final IterVar k = reduceAxis(16, "k");
  private final Tensor c =
      compute("C", shape(n, 8), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
  private final Tensor d = compute("D", shape(n, 8), (i, j) -> c.at(i, j).mul(2.0f));

  @Test
  void computeAtIntoAStageThatDoesNotConsumeIt() {
    Tensor e = compute("E", shape(n, 8), (i, j) -> a.at(i, j).add(1.0f));
    Schedule s = Schedule.create(d, e);
    assertThatThrownBy(() -> s.stage(c).computeAt(s.stage(e), s.stage(e).axis(0)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("compute_at of 'C' into stage 'E', which does not consume it");
  }

  @Test
  void reorderOfAnAxisFromAnotherStage() {
    Schedule s = Schedule.create(d);
    assertThatThrownBy(() -> s.stage(d).reorder(s.stage(c).axis(1), s.stage(d).axis(0)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("axis 'j' on stage 'D'")
        .hasMessageContaining("it belongs to stage 'C'");
  }

  @Test
  void fuseOfNonAdjacentAxes() {
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    assertThatThrownBy(() -> sc.fuse(sc.axis(0), sc.reduceAxis(0)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("fuse of non-adjacent axes 'i' and 'k' of stage 'C'");
  }

  @Test
  void vectorizeOfAReduceAxis() {
    Schedule s = Schedule.create(c);
    assertThatThrownBy(() -> s.stage(c).vectorize(s.stage(c).reduceAxis(0)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("vectorize of reduce axis 'k' of stage 'C'");
  }

  @Test
  void vectorizeReductionOfADataAxis() {
    Schedule s = Schedule.create(c);
    assertThatThrownBy(() -> s.stage(c).vectorizeReduction(s.stage(c).axis(0)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("vectorize_reduction of axis 'i' of stage 'C': it is data-parallel");
  }

  @Test
  void reduceAxisNotUsedByItsReduction() {
    IterVar unused = reduceAxis(4, "r");
    assertThatThrownBy(() -> compute("S", shape(n), (Var i) -> sum(a.at(i, 0), unused)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("reduce axis 'r' is not used by its sum reduction");
  }

  @Test
  void tensorReadWithTheWrongArity() {
    assertThatThrownBy(() -> compute("S", shape(n), (Var i) -> a.at(i)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("tensor 'A' has 2 dims, but is read with 1 indices");
  }

  @Test
  void dtypeMismatch() {
    Tensor ints = placeholder("Idx", INT32, n);
    assertThatThrownBy(() -> compute("S", shape(n), (Var i) -> a.at(i, 0).add(ints.at(i))))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("dtype mismatch")
        .hasMessageContaining("A[i, 0]")
        .hasMessageContaining("Idx[i]");
  }

  @Test
  void splitOfAnAxisThatWasAlreadySplit() {
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    IterVar i = sc.axis(0);
    sc.split(i, 4);
    assertThatThrownBy(() -> sc.split(i, 2))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("split of axis 'i' on stage 'C'")
        .hasMessageContaining("it was split or fused already");
  }

  @Test
  void inlineOfAReduction() {
    Schedule s = Schedule.create(d);
    assertThatThrownBy(() -> s.stage(c).computeInline())
        .isInstanceOf(UserError.class)
        .hasMessageContaining("compute_inline of 'C': a reduction cannot be inlined");
  }

  @Test
  void computeAtOfAnOutput() {
    Tensor e = compute("E", shape(n, 8), (i, j) -> d.at(i, j).add(1.0f));
    Schedule s = Schedule.create(d, e);
    assertThatThrownBy(() -> s.stage(d).computeAt(s.stage(e), s.stage(e).axis(0)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("compute_at of 'D': it is an output");
  }

  @Test
  void parallelOfAReduceAxis() {
    Schedule s = Schedule.create(c);
    assertThatThrownBy(() -> s.stage(c).parallel(s.stage(c).reduceAxis(0)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("parallel of reduce axis 'k' of stage 'C'");
  }

  @Test
  void bindOfAReduceAxis() {
    Schedule s = Schedule.create(c);
    // To threadIdx it is a cross-thread reduction (CrossThreadReductionTest); to a block, an error.
    assertThatThrownBy(() -> s.stage(c).bind(s.stage(c).reduceAxis(0), ThreadTag.BLOCK_X))
        .isInstanceOf(UserError.class)
        .hasMessageContaining(
            "bind of reduce axis 'k' of stage 'C' to blockIdx.x: a reduce axis can only be bound"
                + " to a thread index");
  }

  @Test
  void unknownThreadTagAndScope() {
    Schedule s = Schedule.create(d);
    assertThatThrownBy(() -> s.stage(d).bind(s.stage(d).axis(0), "threadIdx.w"))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("unknown thread tag 'threadIdx.w'");
    assertThatThrownBy(() -> s.stage(c).setScope("texture"))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("unknown memory scope 'texture'");
  }

  @Test
  void reorderStorageOfAnOutputOrWithAxesThatAreNotAPermutation() {
    Schedule s = Schedule.create(d);
    Stage sd = s.stage(d);
    assertThatThrownBy(() -> sd.reorderStorage(sd.axis(1), sd.axis(0)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("reorder_storage of 'D': it is an output of the schedule");
    Stage sc = s.stage(c);
    Stage.Split j = sc.split(sc.axis(1), 4);
    assertThatThrownBy(() -> sc.reorderStorage(j.inner(), sc.axis(0)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("'j.inner' is not one of its axes");
    assertThatThrownBy(() -> sc.reorderStorage(sc.axis(0), sc.axis(0)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("axis 'i' given twice");
    assertThatThrownBy(() -> sc.reorderStorage(sc.axis(1)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("1 axes given, the stage has 2");
  }

  @Test
  void storageAlignOfAnOutputOrOfALoopOrWithABadFactor() {
    Schedule s = Schedule.create(d);
    Stage sd = s.stage(d);
    assertThatThrownBy(() -> sd.storageAlign(sd.axis(0), 8, 4))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("storage_align of 'D': it is an output of the schedule");
    Stage sc = s.stage(c);
    Stage.Split j = sc.split(sc.axis(1), 4);
    assertThatThrownBy(() -> sc.storageAlign(j.inner(), 8, 4))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("'j.inner' is not one of its axes");
    assertThatThrownBy(() -> sc.storageAlign(sc.axis(0), 8, 8))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("factor 8 and offset 8; need factor > 0 and 0 <= offset < factor");
    assertThatThrownBy(() -> sc.storageAlign(sc.axis(0), 0, 0))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("need factor > 0");
  }

  @Test
  void scheduleOfAPlaceholder() {
    Schedule s = Schedule.create(d);
    assertThatThrownBy(() -> s.stage(a).split(s.stage(c).axis(0), 2))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("split of 'A': it is an input (placeholder)");
  }

  @Test
  void integerTrueDivision() {
    assertThatThrownBy(() -> compute("S", shape(n), (Var i) -> cast(FLOAT32, i.div(i))))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("use floordiv for integer division");
  }

  @Test
  void argumentsMissingAnInput() {
    Schedule s = Schedule.create(d);
    assertThatThrownBy(() -> Lower.lower(s, "f", List.of(a, d), Target.C, null))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("'B' is an input of the operator but not among its arguments");
  }

  @Test
  void consumerOutsideTheAttachLoop() {
    Tensor e = compute("E", shape(n, 8), (i, j) -> c.at(i, j).add(1.0f));
    Schedule s = Schedule.create(d, e);
    s.stage(c).computeAt(s.stage(d), s.stage(d).axis(0));
    assertThatThrownBy(() -> Lower.lower(s, "f", Target.C))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("compute_at of 'C' at axis 'i' of 'D': 'E' also reads it");
  }

  @Test
  void pragmaOnAParallelLoopInC() {
    Tensor e = compute("E", shape(64, 8), (i, j) -> b.at(0, j).mul(2.0f));
    Schedule s = Schedule.create(e);
    s.stage(e).parallel(s.stage(e).axis(0));
    s.stage(e).pragma(s.stage(e).axis(0), "GCC unroll 2");
    var f = Lower.lower(s, "f", Target.C);
    assertThatThrownBy(() -> dev.kernelgen.codegen.CCodegen.generate(List.of(f), "m"))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("loop 'i' in f is parallel and also has pragma [GCC unroll 2]");
  }
}
