package dev.kernelgen.tune.search;

import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Ansor's evolutionary search, over any {@link ConfigSpace}. The initial population is the best
 * measured configurations plus configurations sampled from the space; each generation breeds
 * children by mutation (one knob moved to an adjacent choice, which for a split knob moves a factor
 * between tile levels, or to any choice) or by crossover (each knob from one of two parents),
 * parents chosen by tournaments on fitness, fitness being the cost model's predicted time; the best
 * of parents and children survive. Of the batch to measure, all but an epsilon fraction are the
 * best unmeasured candidates the evolution met; the rest are drawn at random, so that a wrong model
 * cannot keep the search from a region forever. Candidates whose schedules do not lower are never
 * proposed. Deterministic for the {@link Random} it is given.
 *
 * @param population the population size
 * @param generations generations per batch
 * @param mutation the probability that a child is a mutant rather than a crossover
 * @param epsilon the fraction of each batch drawn at random
 * @param elites measured configurations put in the initial population
 */
public record EvolutionarySearch(
    int population, int generations, double mutation, double epsilon, int elites) {

  /** Ansor's proportions, scaled to small spaces: 64 by 4 generations, 85% mutants, 10% random. */
  public static EvolutionarySearch defaults() {
    return new EvolutionarySearch(64, 4, 0.85, 0.1, 8);
  }

  /**
   * The next {@code want} configurations to measure: unmeasured, valid (lowerable), distinct.
   *
   * @param seen what was measured (of this task), by configuration key
   */
  public List<Configuration> propose(
      ConfigSpace space,
      CandidateFeatures features,
      LearnedCostModel model,
      Map<String, Measurement> seen,
      int want,
      Random random) {
    Map<String, Configuration> out = new LinkedHashMap<>();
    Configuration def = space.defaults();
    if (!seen.containsKey(def.key()) && features.of(def) != null) {
      out.put(def.key(), def);
    }
    int randomCount = model.trained() ? (int) Math.ceil(epsilon * want) : want;
    addRandom(space, features, seen, out, Math.min(want, out.size() + randomCount), random);
    if (out.size() >= want || !model.trained()) {
      return List.copyOf(out.values());
    }
    // Fitness of every candidate met, by key; lower is better.
    Map<String, Double> score = new LinkedHashMap<>();
    Map<String, Configuration> byKey = new LinkedHashMap<>();
    List<Configuration> pop = new ArrayList<>();
    seen.values().stream()
        .filter(Measurement::isOk)
        .sorted(Comparator.comparingDouble(Measurement::medianUs))
        .limit(elites)
        .forEach(m -> pop.add(m.config()));
    int guard = 0;
    while (pop.size() < population && guard++ < 20 * population) {
      Configuration c = space.random(random);
      if (features.of(c) != null) {
        pop.add(c);
      }
    }
    List<Configuration> current = rank(space, distinct(pop), features, model, score, byKey);
    for (int g = 0; g < generations && !current.isEmpty(); g++) {
      List<Configuration> children = new ArrayList<>();
      int tries = 0;
      while (children.size() < population && tries++ < 4 * population) {
        Configuration child;
        if (current.size() < 2 || random.nextDouble() < mutation) {
          child = space.neighbour(tournament(current, score, random), random);
        } else {
          child =
              crossover(
                  tournament(current, score, random), tournament(current, score, random), random);
        }
        if (features.of(child) != null) {
          children.add(child);
        }
      }
      List<Configuration> all = new ArrayList<>(current);
      all.addAll(children);
      current = rank(space, distinct(all), features, model, score, byKey);
      if (current.size() > population) {
        current = new ArrayList<>(current.subList(0, population));
      }
    }
    score.entrySet().stream()
        .filter(e -> !seen.containsKey(e.getKey()) && !out.containsKey(e.getKey()))
        .sorted(Map.Entry.comparingByValue())
        .limit(want - out.size())
        .forEach(e -> out.put(e.getKey(), byKey.get(e.getKey())));
    // A nearly explored space: fill up at random.
    addRandom(space, features, seen, out, want, random);
    return List.copyOf(out.values());
  }

  private static void addRandom(
      ConfigSpace space,
      CandidateFeatures features,
      Map<String, Measurement> seen,
      Map<String, Configuration> out,
      int upTo,
      Random random) {
    int guard = 0;
    while (out.size() < upTo && guard++ < 200 * Math.max(1, upTo)) {
      Configuration c = space.random(random);
      if (!seen.containsKey(c.key()) && !out.containsKey(c.key()) && features.of(c) != null) {
        out.put(c.key(), c);
      }
    }
  }

  private static List<Configuration> distinct(List<Configuration> cs) {
    Map<String, Configuration> m = new LinkedHashMap<>();
    cs.forEach(c -> m.putIfAbsent(c.key(), c));
    return new ArrayList<>(m.values());
  }

  /** {@code cs} sorted by predicted time (recording each score), fastest first. */
  private static List<Configuration> rank(
      ConfigSpace space,
      List<Configuration> cs,
      CandidateFeatures features,
      LearnedCostModel model,
      Map<String, Double> score,
      Map<String, Configuration> byKey) {
    for (Configuration c : cs) {
      score.computeIfAbsent(c.key(), k -> model.predict(features.of(c), space.coordinates(c)));
      byKey.putIfAbsent(c.key(), c);
    }
    List<Configuration> out = new ArrayList<>(cs);
    out.sort(Comparator.comparingDouble(c -> score.get(c.key())));
    return out;
  }

  /** The fitter of two members drawn at random. */
  private static Configuration tournament(
      List<Configuration> pop, Map<String, Double> score, Random random) {
    Configuration a = pop.get(random.nextInt(pop.size()));
    Configuration b = pop.get(random.nextInt(pop.size()));
    return score.get(a.key()) <= score.get(b.key()) ? a : b;
  }

  /** Each knob's value from one of the parents, chosen at random. */
  static Configuration crossover(Configuration a, Configuration b, Random random) {
    Map<String, Integer> v = new TreeMap<>();
    for (Map.Entry<String, Integer> e : a.values().entrySet()) {
      v.put(e.getKey(), random.nextBoolean() ? e.getValue() : b.values().get(e.getKey()));
    }
    return Configuration.of(v);
  }
}
