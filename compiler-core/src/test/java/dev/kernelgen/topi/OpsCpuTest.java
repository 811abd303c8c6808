package dev.kernelgen.topi;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.testing.Check;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every library operator, on ragged shapes, against the oracle on the IR interpreter, C and Java.
 */
@Execution(ExecutionMode.CONCURRENT) // its operators are independent
class OpsCpuTest {
  static Stream<Ops> cases() {
    return Ops.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void unscheduled(Ops op) {
    Check.check(Schedule.create(op.outputs()), op.dims());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void fusedCpuSchedule(Ops op) {
    Check.check(Fusion.schedule(Target.C, op.outputs()), op.dims());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void fusedJavaSchedule(Ops op) {
    Check.check(Fusion.schedule(Target.JAVA, op.outputs()), op.dims());
  }
}
