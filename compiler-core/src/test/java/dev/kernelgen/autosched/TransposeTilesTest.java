package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Transform;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** An elementwise stage that reads an operand transposed is written in tiles on the CPU. */
class TransposeTilesTest {
  private static Tensor ph(String name, Object... shape) {
    return TE.placeholder(name, FLOAT32, shape);
  }

  private static Map<String, Integer> pick(Target t, Tensor out) {
    return AutoScheduler.untunedConfig(
            t, List.of(out), SketchRules.defaults(), new AnalyticPredictor())
        .values();
  }

  private static Integer tile(Target t, Tensor out) {
    return pick(t, out).entrySet().stream()
        .filter(e -> e.getKey().endsWith(".tile"))
        .map(Map.Entry::getValue)
        .findFirst()
        .orElse(null);
  }

  /** NHWC to NCHW, as a user writes it. */
  static Tensor nhwcToNchw(int n, int h, int w, int c) {
    Tensor x = ph("Nhwc", n, h, w, c);
    return TE.compute("Nchw", TE.shape(n, c, h, w), (b, ch, y, xx) -> x.at(b, y, xx, ch));
  }

  static Stream<Object[]> cases() {
    return Stream.of(
        new Object[] {
          "transpose 3x70x45 (ragged tiles)", Transform.transpose(ph("V", 3, 70, 45), 0, 2, 1)
        },
        new Object[] {"transpose 2-d 64x48", Transform.transpose(ph("M", 64, 48), 1, 0)},
        new Object[] {"nhwc to nchw 2x9x37x19", nhwcToNchw(2, 9, 37, 19)},
        new Object[] {
          "transpose of a relu, plus a bias per column",
          Elementwise.add(
              Transform.transpose(Elementwise.relu(ph("R", 40, 33)), 1, 0), ph("Bias", 40))
        });
  }

  /** The pick tiles, and every tile size and the rows matches the oracle, in C and in Java. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyTileMatchesTheOracle(String name, Tensor out) {
    assertThat(tile(Target.C, out)).isEqualTo(16);
    assertThat(tile(Target.JAVA, out)).isEqualTo(16);
    for (Target t : List.of(Target.C, Target.JAVA)) {
      for (int size : new int[] {16, 32, 8, 0}) {
        Map<String, Integer> values = new TreeMap<>(pick(t, out));
        values.replaceAll((k, v) -> k.endsWith(".tile") ? size : v);
        Schedule s = AutoScheduler.generate(t, List.of(out), Knobs.configured(values));
        Check.Backend b = t == Target.C ? Check.Backend.C : Check.Backend.JAVA;
        Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(b), 0, 0);
      }
    }
  }

  /**
   * On GPUs the pick tiles by 32; every tile size and the rows, lowered for CUDA, matches the
   * oracle on the loop-IR interpreter (each block's threads concurrent, shared memory and
   * barriers).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyGpuTileMatchesTheOracle(String name, Tensor out) {
    assertThat(tile(Target.CUDA, out)).isEqualTo(32);
    assertThat(tile(Target.OPENCL, out)).isEqualTo(32);
    for (int size : new int[] {32, 16, 0}) {
      Map<String, Integer> values = new TreeMap<>(pick(Target.CUDA, out));
      values.replaceAll((k, v) -> k.endsWith(".tile") ? size : v);
      GpuCheck.check(
          AutoScheduler.generate(Target.CUDA, List.of(out), Knobs.configured(values)), Map.of());
    }
  }

  /**
   * The transposed operand is copied per tile at a pitch of 17 floats, along its rows, and the
   * output's rows are written from the copy.
   */
  @Test
  void theTileIsCopiedAtAPitchOutOfStepWithTheSets() {
    Tensor v = ph("V", 4, 128, 96);
    Tensor out = Transform.transpose(v, 0, 2, 1);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    String c =
        CCodegen.generate(List.of(Lower.lower(s, "k", List.of(v, out), Target.C, null)), "m");
    assertThat(c).contains("V_local[272]").contains("#pragma omp parallel for");
  }

  /** Not transposed (the last axis kept: a permute of the outer ones), short, or a reduction. */
  @Test
  void readsAlongTheRowKeepTheRows() {
    Tensor x = ph("X", 16, 64, 64, 32);
    Tensor permute = TE.compute("P", TE.shape(16, 64, 64, 32), (a, b, c, d) -> x.at(a, c, b, d));
    assertThat(tile(Target.C, permute)).isNull();
    assertThat(tile(Target.C, Transform.transpose(ph("S", 64, 8), 1, 0))).isNull();
    assertThat(tile(Target.C, Elementwise.add(ph("A", 40, 33), ph("B", 40, 33)))).isNull();
  }
}
