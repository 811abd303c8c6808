package dev.kernelgen.autosched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The untuned pick is a point of the space and takes little time: alone, since it asserts a time
 * (the rest of the pick's tests, {@link UntunedPickTest}, run beside others).
 */
@Isolated("asserts the time a pick takes")
class UntunedPickTimeTest {
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
}
