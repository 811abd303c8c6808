package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.all;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.exp;
import static dev.kernelgen.te.TE.f32;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/** The untuned pick: deterministic, in the space, cheap. */
@Isolated("asserts the time a pick takes")
class UntunedPickTest {
  private static String c(List<Tensor> outputs) {
    Schedule s = AutoScheduler.untuned(Target.C, outputs);
    return CCodegen.generate(
        List.of(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null)), "m");
  }

  private static String cuda(List<Tensor> outputs) {
    Schedule s = AutoScheduler.untuned(Target.CUDA, outputs);
    var dm = SplitHostDevice.split(Lower.lower(s, "k", OpSchedules.args(s), Target.CUDA, null));
    return CudaCodegen.generate(dm.kernels(), "m");
  }

  @Test
  void twoPicksGiveByteIdenticalSource() {
    for (Workloads w : Workloads.all()) {
      assertThat(c(w.outputs())).as(w.name()).isEqualTo(c(w.outputs()));
      assertThat(cuda(w.outputs())).as(w.name()).isEqualTo(cuda(w.outputs()));
    }
  }

  @Test
  void pickIsAPointOfTheSpaceAndTakesLittleTime() {
    for (Workloads w : Workloads.all()) {
      for (Target t : Target.values()) {
        long start = System.nanoTime();
        Configuration pick =
            AutoScheduler.untunedConfig(
                t, w.outputs(), SketchRules.defaults(), new AnalyticPredictor());
        double seconds = (System.nanoTime() - start) / 1e9;
        ConfigSpace space = AutoScheduler.space(t, w.outputs());
        assertThat(space.contains(pick)).as(w + " " + t + " " + pick + " in " + space).isTrue();
        assertThat(seconds).as(w + " " + t).isLessThan(5.0);
      }
    }
  }

  /** A user's conv + batch norm + swish over symbolic dims, as the conv-bn-swish sample's. */
  static List<Tensor> symbolicConvBnSwish() {
    Var n = var("n");
    Var c = var("c");
    Var h = var("h");
    Var w = var("w");
    Var k = var("k");
    Tensor x = placeholder("x", FLOAT32, n, c, h, w);
    Tensor weight = placeholder("weight", FLOAT32, k, c, 3, 3);
    Tensor gamma = placeholder("gamma", FLOAT32, k);
    Tensor beta = placeholder("beta", FLOAT32, k);
    Tensor padded =
        compute(
            "Padded",
            shape(n, c, h.add(2), w.add(2)),
            (b, ci, i, j) ->
                select(
                    all(i.ge(1), i.le(h), j.ge(1), j.le(w)),
                    x.at(b, ci, i.sub(1), j.sub(1)),
                    f32(0)));
    IterVar rc = reduceAxis(c, "rc");
    IterVar ry = reduceAxis(3, "ry");
    IterVar rx = reduceAxis(3, "rx");
    Tensor conv =
        compute(
            "Conv",
            shape(n, k, h, w),
            (b, f, i, j) ->
                sum(
                    padded
                        .at(b, rc.var(), i.add(ry.var()), j.add(rx.var()))
                        .mul(weight.at(f, rc.var(), ry.var(), rx.var())),
                    rc,
                    ry,
                    rx));
    Tensor bn =
        compute(
            "BatchNorm",
            shape(n, k, h, w),
            (b, f, i, j) -> conv.at(b, f, i, j).mul(gamma.at(f)).add(beta.at(f)));
    Tensor swish =
        compute(
            "Swish",
            shape(n, k, h, w),
            (b, f, i, j) -> {
              Expr y = bn.at(b, f, i, j);
              return y.div(f32(1).add(exp(f32(0).sub(y))));
            });
    return List.of(swish);
  }

  @Test
  void picksStayWithinTheStatementBoundAlsoOverSymbolicShapes() {
    // Over symbolic dims every unrolled point of a register tile carries a tail guard: without the
    // bound the climb took this conv's C kernel to 1010 statements, which gcc compiled in 170 s.
    List<Workloads> all = new java.util.ArrayList<>(Workloads.all());
    all.add(Workloads.of("symbolic conv + bn + swish", symbolicConvBnSwish().get(0)));
    for (Workloads wl : all) {
      for (Target t : List.of(Target.C, Target.CUDA, Target.OPENCL, Target.JAVA)) {
        Schedule s = AutoScheduler.untuned(t, wl.outputs());
        int statements =
            AutoScheduler.statements(Lower.lower(s, "k", OpSchedules.args(s), t, null));
        assertThat(statements).as(wl + " " + t).isLessThanOrEqualTo(AutoScheduler.MAX_STATEMENTS);
      }
    }
  }

  @Test
  void userRulesReplaceTheDefaults() {
    // Without the tiling rule, a matmul's reduction is left as the unscheduled loop nest.
    Workloads w = Workloads.all().get(1);
    List<SketchRule> rules = List.of(new InlineInjective(), new ElementwiseRoot());
    Schedule s =
        AutoScheduler.generate(
            Target.C, w.outputs(), dev.kernelgen.spec.Knobs.defaults(), rules, java.util.Map.of());
    assertThat(s.trace().steps()).isEmpty();
    Schedule d = AutoScheduler.generate(Target.C, w.outputs(), dev.kernelgen.spec.Knobs.defaults());
    assertThat(d.trace().toString()).contains("cache_write").contains("parallel");
  }
}
