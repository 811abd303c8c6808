package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Pooling;
import dev.kernelgen.tune.Configuration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * GPU tiles of reductions with little reuse whose register tile slides along a window (a depthwise
 * filter's rows {@code y + di}, a pooling window's {@code 2y + di}): knob {@code window} loads what
 * a thread's tile reads into registers once, each element with its bounds check.
 */
class SlidingWindowTest {
  private static Tensor seedFused(int batch) {
    Tensor input = placeholder("input", FLOAT32, batch, 256, 96, 96);
    Tensor filter = placeholder("filter", FLOAT32, 256, 1, 3, 3);
    Tensor conv = Nn.depthwiseConv2dNchw(input, filter, 1, 1, new Padding(1, 1, 1, 1), 1);
    return Nn.relu(
        Nn.scaleShift(
            conv, placeholder("scale", FLOAT32, 256), placeholder("shift", FLOAT32, 256)));
  }

  private static String cuda(Schedule s) {
    var dm = SplitHostDevice.split(Lower.lower(s, "k", OpSchedules.args(s), Target.CUDA, null));
    return CudaCodegen.generate(dm.kernels(), "m");
  }

  @Test
  void theSeedsFusedDepthwisePickLoadsEachThreadsWindowOnce() {
    // A thread per output loaded 9 inputs per output, and 8 rows a thread without the window 72
    // for 8 outputs (each tap's load under its own bounds check, not merged by nvcc); with it 30.
    // The fused depthwise [32,256,96,96] on an H100: 345 us a thread per output, 219-231 us with 8
    // rows a thread.
    for (int batch : new int[] {1, 32}) {
      Tensor out = seedFused(batch);
      Configuration pick =
          AutoScheduler.untunedConfig(
              Target.CUDA, List.of(out), SketchRules.defaults(), new AnalyticPredictor());
      assertThat(pick.values())
          .as("batch " + batch)
          .containsEntry(AutoScheduler.SKETCH, AutoScheduler.RULES)
          .containsEntry("DepthwiseConv2d.window", 1);
      assertThat(pick.values().get("DepthwiseConv2d.reg2")).as(pick.key()).isGreaterThan(1);
      String src = cuda(AutoScheduler.untuned(Target.CUDA, List.of(out)));
      assertThat(src).contains("float PaddedInput_local[");
      String taps = src.substring(src.indexOf("DepthwiseConv2d[0] = DepthwiseConv2d[0] +"));
      taps = taps.substring(0, taps.indexOf("Relu["));
      assertThat(taps).as("the multiply-adds").doesNotContain("Input[").contains("_local[");
    }
  }

  /**
   * A 7x7 depthwise filter (49 steps, more than {@link AnalyticPredictor#LITTLE_REUSE}) reuses its
   * input through overlapping windows only, its filter small: a reduction with little reuse,
   * weighed against the naive kernel (the pick on an H100 was a tile of 8 outputs a thread, 17.6 us
   * against the naive kernel's 6.6). A convolution over channels of the same window stays a tiled
   * one.
   */
  @Test
  void aLongWindowWithoutOtherReuseHasLittleReuse() {
    Tensor dw = CpuRowWindowTest.selectPadded7x7(96, 56, 56);
    Configuration pick =
        AutoScheduler.untunedConfig(
            Target.CUDA, List.of(dw), SketchRules.defaults(), new AnalyticPredictor());
    assertThat(AutoScheduler.space(Target.CUDA, List.of(dw)).knobs())
        .containsKey("Depthwise7.window");
    assertThat(pick.values().get("Depthwise7.reg1") * pick.values().get("Depthwise7.reg3"))
        .as(pick.key())
        .isLessThan(8);
    Tensor conv =
        dev.kernelgen.topi.Conv.conv2dNchw(
            placeholder("In", FLOAT32, 1, 16, 28, 28),
            placeholder("W", FLOAT32, 16, 16, 7, 7),
            1,
            1,
            new Padding(3, 3, 3, 3),
            1);
    assertThat(AutoScheduler.space(Target.CUDA, List.of(conv)).knobs().keySet())
        .noneMatch(k -> k.endsWith(".window"));
  }

  @Test
  void windowsOverRaggedTilesMatchTheOracle() {
    // A depthwise convolution and a stride-2 max pool over shapes no tile divides, 4 rows and 2
    // channels a thread, each with and without the window.
    Tensor in = placeholder("Input", FLOAT32, 2, 5, 13, 11);
    Tensor dw =
        Nn.depthwiseConv2dNchw(
            in,
            placeholder("DwFilter", FLOAT32, 5, 1, 3, 3),
            1,
            1,
            Padding.same(13, 11, 3, 3, 1, 1, 1),
            1);
    Tensor image = placeholder("Image", FLOAT32, 1, 3, 15, 9);
    Tensor pool = Pooling.maxPool2d(image, 3, 3, 2, 2, Padding.same(15, 9, 3, 3, 2, 2, 1));
    for (Tensor out : List.of(dw, pool)) {
      String stage = out.name().equals(dw.name()) ? dw.name() : reductionOf(out);
      for (int window : new int[] {1, 0}) {
        var space = AutoScheduler.space(Target.CUDA, List.of(out));
        Map<String, Integer> k = new TreeMap<>(space.defaults().values());
        k.put(AutoScheduler.SKETCH, AutoScheduler.RULES);
        for (var e :
            Map.of("reg1", 2, "reg2", 4, "reg3", 1, "threads2", 2, "threads3", 4, "window", window)
                .entrySet()) {
          List<Integer> choices = space.knobs().get(stage + "." + e.getKey());
          assertThat(choices).as(stage + "." + e.getKey()).contains(e.getValue());
          k.put(stage + "." + e.getKey(), e.getValue());
        }
        Schedule s = AutoScheduler.generate(Target.CUDA, List.of(out), Knobs.configured(k));
        assertThat(s.trace().toString().contains("cache_read(local"))
            .as(out.name() + " " + k)
            .isEqualTo(window == 1);
        GpuCheck.check(s, Map.of());
      }
    }
  }

  /** The reduction stage whose knobs tile {@code out} (the pooling's max). */
  private static String reductionOf(Tensor out) {
    return AutoScheduler.space(Target.CUDA, List.of(out)).knobs().keySet().stream()
        .filter(n -> n.endsWith(".window"))
        .map(n -> n.substring(0, n.indexOf('.')))
        .findFirst()
        .orElseThrow();
  }
}
