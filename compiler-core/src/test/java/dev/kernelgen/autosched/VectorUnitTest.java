package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.tune.Configuration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The untuned C pick sized for each ISA level's vector unit: its own register tiles on AVX2, the
 * same space for any unit, and any unit's pick equal to the definition.
 */
class VectorUnitTest {
  private static List<Tensor> matmul(int m, int k, int n) {
    return List.of(Linalg.matmul(placeholder("A", FLOAT32, m, k), placeholder("B", FLOAT32, k, n)));
  }

  private static List<Tensor> convRelu(int c, int h, int w, int f) {
    Tensor x = placeholder("X", FLOAT32, 1, c, h, w);
    Tensor wt = placeholder("W", FLOAT32, f, c, 3, 3);
    return List.of(Elementwise.relu(Conv.conv2dNchw(x, wt, 1, 1, new Padding(1, 1, 1, 1), 1)));
  }

  private static Configuration pick(VectorUnit unit, List<Tensor> outputs) {
    return AutoScheduler.untunedConfig(
        Target.C, unit, outputs, SketchRules.defaults(), new AnalyticPredictor());
  }

  @Test
  void eachIsaLevelHasItsUnit() {
    assertThat(VectorUnit.ofIsaLevel("x86-64-v4")).isEqualTo(VectorUnit.AVX512);
    assertThat(VectorUnit.ofIsaLevel("x86-64-v3")).isEqualTo(new VectorUnit(8, 16));
    // SSE's 16 registers as AVX2's: its pick is ranked for AVX2's unit (measured better than 4
    // lanes).
    assertThat(VectorUnit.ofIsaLevel("x86-64-v2")).isEqualTo(VectorUnit.AVX2);
    assertThat(VectorUnit.ofIsaLevel("x86-64")).isEqualTo(VectorUnit.AVX2);
    // Other levels keep the default, the pick every build made before levels had units.
    assertThat(VectorUnit.ofIsaLevel("native")).isEqualTo(VectorUnit.AVX512);
    // Neon's register file holds what AVX2's does (32 x 4 floats, 16 x 8).
    assertThat(VectorUnit.ofIsaLevel("armv8-a")).isEqualTo(VectorUnit.AVX2);
    assertThat(VectorUnit.ofIsaLevel("armv8.2-a")).isEqualTo(VectorUnit.AVX2);
    assertThat(VectorUnit.AVX2.accumulatorRegisters()).isEqualTo(12);
    assertThat(VectorUnit.AVX512.accumulatorRegisters()).isEqualTo(28);
    assertThatThrownBy(() -> new VectorUnit(8, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more than 4 registers");
  }

  @Test
  void theSpaceIsTheSameOnEveryLevelSoThatRecordsOfOneApplyToAll() {
    for (List<Tensor> op : List.of(matmul(256, 256, 256), convRelu(32, 28, 28, 32))) {
      var space = AutoScheduler.spaceOf(Target.C, VectorUnit.AVX512, op, SketchRules.defaults());
      for (VectorUnit u : List.of(VectorUnit.AVX2, new VectorUnit(4, 16), new VectorUnit(4, 32))) {
        assertThat(AutoScheduler.spaceOf(Target.C, u, op, SketchRules.defaults())).isEqualTo(space);
      }
    }
  }

  @Test
  void avx2sPickIsItsOwnAndFitsItsRegisters() {
    List<Tensor> op = matmul(256, 256, 256);
    Configuration avx512 = pick(VectorUnit.AVX512, op);
    Configuration avx2 = pick(VectorUnit.AVX2, op);
    assertThat(avx2).isNotEqualTo(avx512);
    // AVX-512's pick spills on AVX2 (more accumulators than its 12 registers); AVX2's fits.
    assertThat(pressure(VectorUnit.AVX2, op, avx512)).isGreaterThan(1);
    assertThat(pressure(VectorUnit.AVX2, op, avx2)).isLessThanOrEqualTo(1);
    assertThat(pressure(VectorUnit.AVX512, op, avx512)).isLessThanOrEqualTo(1);
    // Deterministic, as generate needs: the same pick twice.
    assertThat(pick(VectorUnit.AVX2, op)).isEqualTo(avx2);
  }

  /** The largest register pressure the notes of {@code c} give for {@code unit}. */
  private static double pressure(VectorUnit unit, List<Tensor> op, Configuration c) {
    return AutoScheduler.notes(Target.C, unit, op, c).entrySet().stream()
        .filter(e -> e.getKey().endsWith("/cpu.register_pressure"))
        .mapToDouble(Map.Entry::getValue)
        .max()
        .orElse(0);
  }

  @Test
  void aScansAccumulatorsAreNotWeighedAsRegisters() {
    // A prefix sum's inner loop has a bound that varies per step: its tile lives in memory.
    Tensor x = placeholder("X", FLOAT32, 64, 256);
    var k = TE.reduceAxis(256, "k");
    Tensor prefix =
        TE.compute(
            "Prefix",
            TE.shape(64, 256),
            (i, j) -> TE.sum(TE.select(k.var().le(j), x.at(i, k.var()), 0.0), k));
    List<Tensor> op = List.of(prefix);
    Configuration c = pick(VectorUnit.AVX2, op);
    assertThat(AutoScheduler.notes(Target.C, VectorUnit.AVX2, op, c).keySet())
        .noneMatch(n -> n.endsWith("/cpu.register_pressure"))
        .anyMatch(n -> n.endsWith("/cpu.lane_fill"));
  }

  @Test
  void everyLevelsPickMatchesTheDefinitionOnRaggedShapes() {
    List<List<Tensor>> ops =
        List.of(matmul(37, 53, 45), convRelu(6, 13, 11, 12), matmul(5, 200, 19));
    for (List<Tensor> op : ops) {
      for (VectorUnit u : List.of(VectorUnit.AVX2, new VectorUnit(4, 16), new VectorUnit(4, 32))) {
        var s = AutoScheduler.schedule(Target.C, u, op, Knobs.defaults());
        List<Tensor> args = new ArrayList<>(s.inputs());
        args.addAll(s.outputs());
        Check.check(s, args, Map.of(), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
      }
    }
  }
}
