package dev.kernelgen.tune;

import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The proposals of {@link Tuner.Strategy#ANNEALING} (AutoTVM-like): simulated annealing over the
 * nearest-neighbour {@link CostModel} of the knobs' values, with random configurations mixed in.
 * The evolutionary strategy's counterpart is {@link dev.kernelgen.tune.search.EvolutionarySearch}.
 */
final class AnnealingSearch {
  private AnnealingSearch() {}

  /**
   * The next batch of a guided search: unmeasured configurations, most by simulated annealing on
   * the model from the best points so far, a quarter at random (all of them, and the default first,
   * while the model has too few points).
   */
  static List<Configuration> propose(
      ConfigSpace space, CostModel model, Map<String, Measurement> seen, int want, Random random) {
    Map<String, Configuration> out = new LinkedHashMap<>();
    Configuration def = space.defaults();
    if (!seen.containsKey(def.key())) {
      out.put(def.key(), def);
    }
    int randomCount = model.size() < 2 * want ? want : Math.max(1, want / 4);
    int guard = 0;
    while (out.size() < Math.min(want, randomCount) && guard++ < 1000 * want) {
      Configuration c = space.random(random);
      if (!seen.containsKey(c.key())) {
        out.putIfAbsent(c.key(), c);
      }
    }
    if (out.size() >= want) {
      return List.copyOf(out.values()).subList(0, want);
    }
    // Annealing chains from the best measured points; every point visited is a candidate, ranked
    // by the model.
    List<Measurement> starts =
        seen.values().stream()
            .filter(Measurement::isOk)
            .sorted(Comparator.comparingDouble(Measurement::medianUs))
            .limit(Math.max(1, want))
            .toList();
    Map<String, Double> candidates = new HashMap<>();
    Map<String, Configuration> byKey = new HashMap<>();
    int steps = 200;
    for (Measurement s : starts) {
      Configuration cur = s.config();
      double curCost = model.predict(cur);
      double temperature = 1.0;
      for (int i = 0; i < steps; i++) {
        Configuration next = space.neighbour(cur, random);
        double cost = model.predict(next);
        if (!seen.containsKey(next.key()) && !out.containsKey(next.key())) {
          candidates.put(next.key(), cost);
          byKey.put(next.key(), next);
        }
        if (cost < curCost || random.nextDouble() < Math.exp((curCost - cost) / temperature)) {
          cur = next;
          curCost = cost;
        }
        temperature *= 0.97;
      }
    }
    candidates.entrySet().stream()
        .sorted(Map.Entry.comparingByValue())
        .limit(want - out.size())
        .forEach(e -> out.put(e.getKey(), byKey.get(e.getKey())));
    // Few unvisited neighbours (a small, nearly explored space): fill up at random.
    guard = 0;
    while (out.size() < want && guard++ < 1000 * want) {
      Configuration c = space.random(random);
      if (!seen.containsKey(c.key())) {
        out.putIfAbsent(c.key(), c);
      }
    }
    return List.copyOf(out.values());
  }
}
