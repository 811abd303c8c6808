package dev.kernelgen.autosched;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every sketch of the generated schedules, at the untuned pick and at random annotations drawn with
 * a fixed seed, against the oracle on ragged shapes: CPU schedules on the IR interpreter and C,
 * Java schedules in Java, GPU schedules on the IR interpreter (barrier-correct threads).
 */
@Execution(
    ExecutionMode
        .CONCURRENT) // its cases are independent; the longest class, it would otherwise end the run
// on one core
class GeneratedScheduleTest {
  static Stream<Workloads> cases() {
    return Workloads.all().stream();
  }

  /** The configurations checked: the untuned pick, three random ones of the rules, the floor. */
  static List<Configuration> configs(Target target, List<Tensor> outputs) {
    List<Configuration> out = new ArrayList<>();
    out.add(
        AutoScheduler.untunedConfig(
            target, outputs, SketchRules.defaults(), new AnalyticPredictor()));
    ConfigSpace space = AutoScheduler.space(target, outputs);
    Random r = new Random(42);
    for (int k = 0; k < 40 && out.size() < 4; k++) {
      Map<String, Integer> v = new TreeMap<>(space.random(r).values());
      v.put(AutoScheduler.SKETCH, AutoScheduler.RULES);
      try {
        AutoScheduler.generate(target, outputs, Knobs.configured(v));
      } catch (UserError e) {
        continue; // too many threads per block: not a point of the space
      }
      out.add(Configuration.of(v));
    }
    Map<String, Integer> naive = new TreeMap<>(space.defaults().values());
    naive.put(AutoScheduler.SKETCH, AutoScheduler.NAIVE);
    out.add(Configuration.of(naive));
    return out;
  }

  private static Schedule schedule(Target t, Workloads w, Configuration c) {
    return AutoScheduler.generate(t, w.outputs(), Knobs.configured(c.values()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void cpuSketchesMatchTheOracle(Workloads w) {
    for (Configuration c : configs(Target.C, w.outputs())) {
      Schedule s = schedule(Target.C, w, c);
      try {
        Check.check(
            s,
            OpSchedules.args(s),
            w.dims(),
            EnumSet.of(Check.Backend.IR, Check.Backend.C),
            1e-4,
            1e-4);
      } catch (AssertionError e) {
        throw new AssertionError(w + " at " + c + ": " + e.getMessage(), e);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void javaPickMatchesTheOracle(Workloads w) {
    Schedule s = AutoScheduler.untuned(Target.JAVA, w.outputs());
    Check.check(s, OpSchedules.args(s), w.dims(), EnumSet.of(Check.Backend.JAVA), 1e-4, 1e-4);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void gpuSketchesMatchTheOracle(Workloads w) {
    for (Configuration c : configs(Target.CUDA, w.outputs())) {
      try {
        GpuCheck.check(schedule(Target.CUDA, w, c), w.dims());
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(w + " at " + c + ": " + e.getMessage(), e);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void untunedPicksAreIdentical(Workloads w) {
    for (Target t : Target.values()) {
      Configuration a =
          AutoScheduler.untunedConfig(
              t, w.outputs(), SketchRules.defaults(), new AnalyticPredictor());
      Configuration b =
          AutoScheduler.untunedConfig(
              t, w.outputs(), SketchRules.defaults(), new AnalyticPredictor());
      assertEquals(a, b, t + " pick");
      assertEquals(
          AutoScheduler.untuned(t, w.outputs()).trace().toString(),
          AutoScheduler.untuned(t, w.outputs()).trace().toString(),
          t + " trace");
    }
  }
}
