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
 *
 * <p>A wide descent also moves one knob up to any larger value and another down to the largest that
 * keeps their product from growing (threads over 11 columns x 16 channels to 55 x 3): for GPU
 * reductions with little reuse, whose model weighs whole warp runs and tiles that divide their
 * extents, the divisors of an extent of 55 (1, 5, 11, 55) lie between ragged values that no smaller
 * step crosses. An LRN over [8,96,55,55] on an H100: 9.5 us so, against its naive kernel's 7.8; 7.0
 * with the wide descent. (On the other GPU reductions it moved six picks, four slower: a strided
 * pointwise convolution 19.2 -> 37.3 us; their model is not kept so close by measurement.)
 */
final class Climb {
  private final ConfigSpace space;
  private final ToDoubleFunction<Configuration> costOf;
  private final Predicate<Configuration> fits;
  private Configuration best;
  private double bestCost;
  private boolean improved;
  private boolean wide;

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

  /**
   * Where the descent from {@code start} (of cost {@code startCost}) ends, and its cost; {@code
   * wide}: with the wide exchange moves.
   */
  static Map.Entry<Configuration, Double> from(
      ConfigSpace space,
      Configuration start,
      double startCost,
      ToDoubleFunction<Configuration> costOf,
      Predicate<Configuration> fits,
      boolean wide) {
    Climb c = new Climb(space, start, startCost, costOf, fits);
    c.wide = wide;
    for (int round = 0; round < UntunedPick.CLIMB_ROUNDS; round++) {
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
        if (wide) {
          wideExchange(a, va, b, vb);
        }
      }
    }
  }

  /** {@code a} up to each larger value, {@code b} down to the largest that keeps the product. */
  private void wideExchange(String a, int va, String b, int vb) {
    for (int na : space.knobs().get(a)) {
      if (na <= va || na == va * 2) {
        continue;
      }
      int nb = 0;
      for (int x : space.knobs().get(b)) {
        if (x < vb && (long) na * x <= (long) va * vb) {
          nb = Math.max(nb, x);
        }
      }
      if (nb > 0) {
        offer(Map.of(a, na, b, nb));
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

  /**
   * {@code c} with one knob at a time halved (the cheapest such move by the predicted cost) until
   * it fits, in at most {@value #REPAIR_STEPS} moves; null where it does not come to fit.
   */
  static Configuration shrinkToFit(
      ConfigSpace space,
      Configuration c,
      ToDoubleFunction<Configuration> costOf,
      java.util.function.Predicate<Configuration> fits) {
    for (int step = 0; step < REPAIR_STEPS; step++) {
      if (fits.test(c)) {
        return c;
      }
      Configuration next = null;
      double nextCost = Double.POSITIVE_INFINITY;
      for (var knob : space.knobs().entrySet()) {
        int v = c.values().get(knob.getKey());
        if (knob.getKey().equals(AutoScheduler.SKETCH)
            || v % 2 != 0
            || !knob.getValue().contains(v / 2)) {
          continue;
        }
        Map<String, Integer> m = new TreeMap<>(c.values());
        m.put(knob.getKey(), v / 2);
        Configuration h = Configuration.of(m);
        double cost = costOf.applyAsDouble(h);
        if (!Double.isNaN(cost) && cost < nextCost) {
          next = h;
          nextCost = cost;
        }
      }
      if (next == null) {
        return null;
      }
      c = next;
    }
    return fits.test(c) ? c : null;
  }

  static final int REPAIR_STEPS = 6;
}
