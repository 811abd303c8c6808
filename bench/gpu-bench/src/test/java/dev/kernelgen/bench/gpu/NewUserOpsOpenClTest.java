package dev.kernelgen.bench.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The untuned OpenCL picks of the latest new-user sweep ({@link NewUserOpsE}: operators no rule was
 * written for) run by the OpenCL driver (PoCL here) against the oracle on random data. (Their C
 * picks are checked and timed by {@code bench/cpu.sh floor OUT --set new-user}.)
 */
class NewUserOpsOpenClTest {
  private static OpenClDevice device;

  @BeforeAll
  static void open() {
    device = OpenClTests.deviceOrSkip();
  }

  static Stream<Arguments> operators() {
    return NewUserOpsE.operators().stream().map(op -> Arguments.of(op.name(), op));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("operators")
  void theUntunedPickMatchesTheOracle(String name, FloorBench.Op op) {
    Schedule s = op.pick().apply(Target.OPENCL);
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    assertThat(OracleCheck.check(device, s, args, "new_user_" + name)).isNull();
  }
}
