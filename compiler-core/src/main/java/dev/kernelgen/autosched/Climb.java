package dev.kernelgen.autosched;

import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * The untuned pick's coordinate descent by predicted cost: from a configuration, one knob at a
 * time, or one knob doubled and another halved, while the cost drops and the kernel fits.
 */
final class Climb {
  private final ConfigSpace space;
  private final ToDoubleFunction<Configuration> costOf;
  private final Predicate<Configuration> fits;
  private Configuration best;
  private double bestCost;
  private boolean improved;

  private Climb(
      ConfigSpace space,
      Configuration start,
      double startCost,
      ToDoubleFunction<Configuration> costOf,
      Predicate<Configuration> fits) {
    this.space = space;
    this.costOf = costOf;
    this.fits = fits;
    this.best = start;
    this.bestCost = startCost;
  }

  /** Where the descent from {@code start} (of cost {@code startCost}) ends, and its cost. */
  static Map.Entry<Configuration, Double> from(
      ConfigSpace space,
      Configuration start,
      double startCost,
      ToDoubleFunction<Configuration> costOf,
      Predicate<Configuration> fits) {
    Climb c = new Climb(space, start, startCost, costOf, fits);
    for (int round = 0; round < AutoScheduler.CLIMB_ROUNDS; round++) {
      c.improved = false;
      c.round();
      if (!c.improved) {
        break;
      }
    }
    return Map.entry(c.best, c.bestCost);
  }

  private void round() {
    for (var knob : space.knobs().entrySet()) {
      if (knob.getKey().equals(AutoScheduler.SKETCH)) {
        continue;
      }
      for (int v : knob.getValue()) {
        offer(Map.of(knob.getKey(), v));
      }
    }
    // Exchange moves: one knob doubled and another halved, the tile's size kept (a 4 x 1 register
    // tile to 2 x 2), which one knob at a time cannot reach without passing through a worse tile.
    for (String a : space.knobs().keySet()) {
      for (String b : space.knobs().keySet()) {
        if (a.equals(b) || a.equals(AutoScheduler.SKETCH) || b.equals(AutoScheduler.SKETCH)) {
          continue;
        }
        int va = best.values().get(a);
        int vb = best.values().get(b);
        if (vb % 2 == 0
            && space.knobs().get(a).contains(va * 2)
            && space.knobs().get(b).contains(vb / 2)) {
          offer(Map.of(a, va * 2, b, vb / 2));
        }
      }
    }
  }

  /** Takes {@code best} with {@code changes} made, where that lowers the cost and fits. */
  private void offer(Map<String, Integer> changes) {
    Map<String, Integer> m = new TreeMap<>(best.values());
    m.putAll(changes);
    Configuration c = Configuration.of(m);
    double cost = costOf.applyAsDouble(c);
    if (!Double.isNaN(cost) && cost < bestCost * (1 - 1e-9) && fits.test(c)) {
      best = c;
      bestCost = cost;
      improved = true;
    }
  }
}
