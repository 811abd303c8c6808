package dev.kernelgen.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.diag.UserError;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Under the runtime's cap ({@code -Dkernelgen.cpu.maxIsa}), tuning measures C kernels at the level
 * the runtime will run, not at the build CPU's best.
 */
class IsaLevelsCapTest {
  static final List<String> LEVELS = List.of("x86-64-v2", "x86-64-v3", "x86-64-v4");

  @Test
  void aCapBelowTheMachinesLevelIsTheLevelMeasured() {
    assertThat(IsaLevels.capped("x86-64-v4", LEVELS, null)).isEqualTo("x86-64-v4");
    assertThat(IsaLevels.capped("x86-64-v4", LEVELS, " ")).isEqualTo("x86-64-v4");
    assertThat(IsaLevels.capped("x86-64-v4", LEVELS, "x86-64-v3")).isEqualTo("x86-64-v3");
    assertThat(IsaLevels.capped("x86-64-v4", LEVELS, "x86-64-v2")).isEqualTo("x86-64-v2");
    // A cap at or above the machine's level changes nothing.
    assertThat(IsaLevels.capped("x86-64-v3", LEVELS, "x86-64-v4")).isEqualTo("x86-64-v3");
    // A level the build does not compile is not measured: the best compiled one stays.
    assertThat(IsaLevels.capped("x86-64-v4", List.of("x86-64-v4"), "x86-64-v3"))
        .isEqualTo("x86-64-v4");
    // Off x86-64 (native) there is nothing to cap.
    assertThat(IsaLevels.capped("native", LEVELS, "x86-64-v3")).isEqualTo("native");
  }

  @Test
  void aCapThatIsNoLevelIsAUserErrorNamingIt() {
    assertThatThrownBy(() -> IsaLevels.capped("x86-64-v4", LEVELS, "avx2"))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("kernelgen.cpu.maxIsa=avx2 is not one of");
  }
}
