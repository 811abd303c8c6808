package dev.kernelgen.runtime.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CpuIsaTest {
  static final Set<String> V2 =
      Set.of("cx16", "lahf_lm", "popcnt", "pni", "sse4_1", "sse4_2", "ssse3");
  static final Set<String> V3 =
      union(V2, Set.of("avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"));
  static final Set<String> V4 =
      union(V3, Set.of("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"));
  static final List<String> ALL = List.of("x86-64-v2", "x86-64-v3", "x86-64-v4");

  static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> s = new HashSet<>(a);
    s.addAll(b);
    return s;
  }

  @Test
  void levelsFollowThePsAbiFeatureSets() {
    assertThat(CpuIsa.level(Set.of("sse2"), true)).isEqualTo(1);
    assertThat(CpuIsa.level(V2, true)).isEqualTo(2);
    assertThat(CpuIsa.level(V3, true)).isEqualTo(3);
    assertThat(CpuIsa.level(V4, true)).isEqualTo(4);
    // A Zen 3: AVX2 and FMA but no AVX-512.
    assertThat(CpuIsa.level(union(V3, Set.of("avx512f")), true)).isEqualTo(3);
    // AVX-512 without the v3 set (a hypervisor hiding BMI2) is not v4.
    Set<String> noBmi2 = new HashSet<>(V4);
    noBmi2.remove("bmi2");
    assertThat(CpuIsa.level(noBmi2, true)).isEqualTo(2);
    assertThat(CpuIsa.level(V4, false)).isZero();
  }

  @Test
  void theBestLevelUnderTheMachineAndTheCapIsChosen() {
    assertThat(CpuIsa.choose(ALL, 4, null)).contains("x86-64-v4");
    assertThat(CpuIsa.choose(ALL, 3, null)).contains("x86-64-v3");
    assertThat(CpuIsa.choose(ALL, 4, "x86-64-v3")).contains("x86-64-v3");
    assertThat(CpuIsa.choose(ALL, 4, "x86-64-v2")).contains("x86-64-v2");
    assertThat(CpuIsa.choose(ALL, 3, "x86-64-v4")).contains("x86-64-v3");
    assertThat(CpuIsa.choose(ALL, 4, "x86-64")).isEmpty();
    assertThat(CpuIsa.choose(ALL, 1, null)).isEmpty();
    assertThat(CpuIsa.choose(List.of("x86-64-v4"), 3, null)).isEmpty();
    assertThat(CpuIsa.choose(ALL, 0, null)).as("not an x86 machine").isEmpty();
    // native: only when nothing else fits and nothing caps.
    assertThat(CpuIsa.choose(List.of("native", "x86-64-v2"), 4, null)).contains("x86-64-v2");
    assertThat(CpuIsa.choose(List.of("native"), 4, null)).contains("native");
    assertThat(CpuIsa.choose(List.of("native"), 4, "x86-64-v3")).isEqualTo(Optional.empty());
    assertThatThrownBy(() -> CpuIsa.choose(ALL, 4, "avx2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("kernelgen.cpu.maxIsa=avx2 is not one of");
  }

  @Test
  void thisMachinesLevelIsRead() {
    String arch = System.getProperty("os.arch");
    if (arch.equals("amd64") || arch.equals("x86_64")) {
      assertThat(CpuIsa.machineLevel()).isBetween(1, 4);
      assertThat(CpuIsa.machineLevelName()).startsWith("x86-64");
    } else {
      assertThat(CpuIsa.machineLevel()).isZero();
    }
  }

  /** A benchmark compiling its own library targets the capped level only when it is lower. */
  @Test
  void theCappedLevelIsTheCapBelowThisMachinesOwn() {
    String old = System.getProperty(CpuIsa.MAX_ISA_PROPERTY);
    try {
      System.clearProperty(CpuIsa.MAX_ISA_PROPERTY);
      assertThat(CpuIsa.cappedLevel()).isEmpty();
      System.setProperty(CpuIsa.MAX_ISA_PROPERTY, "x86-64-v9");
      if (CpuIsa.machineLevel() > 0) {
        assertThatThrownBy(CpuIsa::cappedLevel)
            .isInstanceOf(dev.kernelgen.runtime.DeviceException.class)
            .hasMessageContaining("x86-64-v9 is not one of");
      }
      System.setProperty(CpuIsa.MAX_ISA_PROPERTY, "x86-64");
      assertThat(CpuIsa.cappedLevel())
          .isEqualTo(CpuIsa.machineLevel() > 1 ? Optional.of("x86-64") : Optional.<String>empty());
      System.setProperty(CpuIsa.MAX_ISA_PROPERTY, "x86-64-v4");
      assertThat(CpuIsa.cappedLevel()).isEmpty();
    } finally {
      if (old == null) {
        System.clearProperty(CpuIsa.MAX_ISA_PROPERTY);
      } else {
        System.setProperty(CpuIsa.MAX_ISA_PROPERTY, old);
      }
    }
  }

  @Test
  void anAarch64MachineRunsTheArmLibraryAndAnX86MachineNever() {
    List<String> both = List.of("x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a");
    assertThat(CpuIsa.isAarch64("aarch64")).isTrue();
    assertThat(CpuIsa.isAarch64("amd64")).isFalse();
    assertThat(CpuIsa.chooseAarch64(both)).contains("armv8-a");
    // A later Arm level needs extensions this CPU's level does not say; x86 ones never run.
    assertThat(CpuIsa.chooseAarch64(List.of("x86-64-v2", "armv8.2-a"))).isEmpty();
    for (int machine = 2; machine <= 4; machine++) {
      assertThat(CpuIsa.choose(List.of("armv8-a"), machine, null))
          .as("x86 level %s", machine)
          .isEmpty();
      assertThat(CpuIsa.choose(both, machine, null)).get().asString().startsWith("x86-64");
    }
  }
}
