package dev.kernelgen.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.measure.WallClockTiming;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class OrtRunnerTest {
  static Stream<Arguments> raggedWorkloads() {
    Stream.Builder<Arguments> b = Stream.builder();
    for (Padding padding : Padding.values()) {
      for (int stride : new int[] {1, 2}) {
        for (int kernel : new int[] {3, 5}) {
          for (boolean fused : new boolean[] {false, true}) {
            b.add(Arguments.of(Workload.of(2, 3, 11, 7, 2, kernel, stride, padding), fused));
          }
        }
      }
    }
    return b.build();
  }

  @ParameterizedTest(name = "{0} fused={1}")
  @MethodSource("raggedWorkloads")
  void ortMatchesJavaLoops(Workload w, boolean fused) throws Exception {
    Random random = new Random(7);
    float[] in = random(random, w.inputSize());
    float[] filter = random(random, w.filterSize());
    float[] scale = random(random, w.outChannels());
    float[] shift = random(random, w.outChannels());
    float[] expected = new float[w.outputSize()];
    JavaLoops.of(w, fused).run(in, filter, scale, shift, expected);
    try (OrtRunner ort = OrtRunner.of(w, fused, filter, scale, shift)) {
      float[] got = ort.run(in);
      assertThat(got).containsExactly(expected, org.assertj.core.data.Offset.offset(1e-5f));
      // A second run on new input: the pinned tensors are reused, not stale.
      float[] in2 = random(random, w.inputSize());
      JavaLoops.of(w, fused).run(in2, filter, scale, shift, expected);
      assertThat(ort.run(in2))
          .containsExactly(expected, org.assertj.core.data.Offset.offset(1e-5f));
    }
    if (fused) {
      // Relu must have clipped something, or the fused check proves little.
      assertThat(expected).contains(0f);
    }
  }

  @Test
  void javaLoopsOnAHandWorkedCase() {
    // 1 channel, 3x3 ones, K=3 ones, SAME: each output counts the in-bounds taps.
    Workload w = Workload.of(1, 1, 3, 3, 1, 3, 1, Padding.SAME);
    float[] ones = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    float[] out = new float[9];
    JavaLoops.depthwise(w, ones, ones, out);
    assertThat(out).containsExactly(4, 6, 4, 6, 9, 6, 4, 6, 4);

    // Multiplier 2: output channel q uses filter slice [0][q]; scale/shift/relu per channel.
    Workload m2 = Workload.of(1, 1, 3, 3, 2, 1, 1, Padding.VALID);
    float[] in = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    float[] out2 = new float[18];
    JavaLoops.fused(m2, in, new float[] {1, -1}, new float[] {1, 1}, new float[] {0, 4}, out2);
    assertThat(out2).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 3, 2, 1, 0, 0, 0, 0, 0, 0);
  }

  @Test
  void medianTimingRuns() throws Exception {
    Workload w = Workload.of(1, 4, 9, 9, 1, 3, 1, Padding.SAME);
    float[] filter = new float[w.filterSize()];
    try (OrtRunner ort = OrtRunner.of(w, false, filter, null, null)) {
      double us =
          new WallClockTiming(0, 1_000_000, 3, 5).medianMicros(ort.timed(new float[w.inputSize()]));
      assertThat(us).isPositive().isLessThan(1e6);
    }
  }

  @Test
  void sideBySideTimingKeepsTheTwoApart() {
    // Two spins of 0.2 and 2 ms, timed in alternating rounds: each median is its own.
    double[] t =
        new WallClockTiming(0, 50_000_000, 5, 50).sideBySide(() -> spin(200), () -> spin(2000), 5);
    assertThat(t[0]).isGreaterThanOrEqualTo(200).isLessThan(1000);
    assertThat(t[1]).isGreaterThanOrEqualTo(2000).isGreaterThan(4 * t[0]);
  }

  @Test
  void sideBySideTimingOfThreeKeepsEachApart() {
    // ORT, C and the generated Java are timed in turn so: each median is still its own.
    double[] t =
        new WallClockTiming(0, 30_000_000, 5, 30)
            .sideBySide(5, () -> spin(200), () -> spin(2000), () -> spin(800));
    assertThat(t).hasSize(3);
    assertThat(t[0]).isGreaterThanOrEqualTo(200).isLessThan(t[2]);
    assertThat(t[2]).isGreaterThanOrEqualTo(800).isLessThan(t[1]);
    assertThat(t[1]).isGreaterThanOrEqualTo(2000);
  }

  private static void spin(long micros) {
    long end = System.nanoTime() + micros * 1000;
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }

  private static float[] random(Random random, int n) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = random.nextFloat() * 2 - 1;
    }
    return a;
  }
}
