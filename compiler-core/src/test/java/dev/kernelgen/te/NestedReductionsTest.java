package dev.kernelgen.te;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.OpSchedules;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A reduction inside a compute's expression ({@code sum(...).div(n)}) becomes a stage of its own
 * over the axes it reads, as a user would have written by hand; what cannot be lifted stays a user
 * error that names the compute.
 */
class NestedReductionsTest {
  private final Tensor a = placeholder("A", FLOAT32, 5, 7);

  @Test
  void aMeanBecomesASumStageOverTheAxesItReads() {
    IterVar k = reduceAxis(7, "k");
    Tensor centered =
        compute("Centered", a.shape(), (i, j) -> a.at(i, j).sub(sum(a.at(i, k.var()), k).div(7.0)));
    ComputeOp op = (ComputeOp) centered.op();
    assertThat(op.reduceAxis()).isEmpty();
    Tensor s = op.inputs().stream().filter(t -> t != a).findFirst().orElseThrow();
    assertThat(s.name()).isEqualTo("Centered_sum");
    assertThat(s.shape()).containsExactly(IntImm.of(5)); // over i alone: j is not read
    assertThat(((ComputeOp) s.op()).reduceAxis()).hasSize(1);

    NDArray in = NDArray.random(DType.FLOAT32, 3, 5, 7);
    NDArray out =
        TensorInterpreter.evaluate(List.of(centered), Map.of(a, in), Map.of()).get(centered);
    for (int i = 0; i < 5; i++) {
      double mean = 0;
      for (int j = 0; j < 7; j++) {
        mean += in.getDouble(i * 7 + j) / 7;
      }
      for (int j = 0; j < 7; j++) {
        assertThat(out.getDouble(i * 7 + j))
            .isCloseTo(in.getDouble(i * 7 + j) - mean, offset(1e-5));
      }
    }
  }

  @Test
  void equalReductionsShareAStageAndOthersAreNumbered() {
    IterVar k = reduceAxis(7, "k");
    IterVar k2 = reduceAxis(7, "k2");
    Tensor t =
        compute(
            "T",
            shape(5),
            i ->
                sum(a.at(i, k.var()), k)
                    .div(sum(a.at(i, k.var()), k).add(1.0))
                    .add(max(a.at(i, k2.var()), k2))
                    .add(sum(a.at(i, k2.var()).mul(2.0), k2)));
    List<String> stages = t.op().inputs().stream().map(Tensor::name).sorted().toList();
    assertThat(stages).containsExactly("T_max", "T_sum", "T_sum1");
  }

  @Test
  void aReductionOverEverythingIsOneElement() {
    IterVar r = reduceAxis(5, "r");
    IterVar c = reduceAxis(7, "c");
    Tensor t =
        compute("Scaled", a.shape(), (i, j) -> a.at(i, j).div(sum(a.at(r.var(), c.var()), r, c)));
    Tensor s = t.op().inputs().stream().filter(x -> x != a).findFirst().orElseThrow();
    assertThat(s.shape()).containsExactly(IntImm.of(1));
  }

  @Test
  void aTriangularReductionKeepsTheAxisItsBoundReads() {
    // out[i, j] = a[i, j] - sum_{k < i + 1} a[k, 0]: the sum reads i through its bound alone.
    Tensor t =
        compute(
            "Prefix",
            a.shape(),
            (i, j) -> {
              IterVar k = reduceAxis(i.add(1), "k");
              return a.at(i, j).sub(sum(a.at(k.var(), IntImm.of(0)), k));
            });
    Tensor s = t.op().inputs().stream().filter(x -> x != a).findFirst().orElseThrow();
    assertThat(s.shape()).containsExactly(IntImm.of(5));
    NDArray in = NDArray.random(DType.FLOAT32, 4, 5, 7);
    NDArray out = TensorInterpreter.evaluate(List.of(t), Map.of(a, in), Map.of()).get(t);
    double prefix = 0;
    for (int i = 0; i < 5; i++) {
      prefix += in.getDouble(i * 7);
      assertThat(out.getDouble(i * 7 + 3))
          .isCloseTo(in.getDouble(i * 7 + 3) - prefix, offset(1e-5));
    }
  }

  @Test
  void aLiftedStageNamedAsAUserTensorStillLowersOnEveryTarget() {
    // The user's own input is called Mean_sum: the lifted stage gets the same name.
    Tensor x = placeholder("Mean_sum", FLOAT32, 6, 9);
    IterVar k = reduceAxis(9, "k");
    Tensor mean =
        compute("Mean", x.shape(), (i, j) -> x.at(i, j).sub(sum(x.at(i, k.var()), k).div(9.0)));
    assertThat(mean.op().inputs()).extracting(Tensor::name).containsOnly("Mean_sum");
    for (Target t : List.of(Target.C, Target.JAVA)) {
      Schedule s = AutoScheduler.untuned(t, List.of(mean));
      Check.check(
          s,
          OpSchedules.args(s),
          Map.of(),
          EnumSet.of(t == Target.JAVA ? Check.Backend.JAVA : Check.Backend.C),
          1e-5,
          1e-5);
    }
    GpuCheck.check(AutoScheduler.untuned(Target.CUDA, List.of(mean)), Map.of());
  }

  @Test
  void aReductionInsideAReductionIsStillAUserErrorNamingTheCompute() {
    IterVar k = reduceAxis(7, "k");
    IterVar r = reduceAxis(5, "r");
    assertThatThrownBy(
            () ->
                compute(
                    "Bad",
                    shape(5),
                    i -> sum(a.at(i, k.var()).mul(max(a.at(r.var(), k.var()), r)), k)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("compute 'Bad'")
        .hasMessageContaining("inside another reduction");
  }
}
