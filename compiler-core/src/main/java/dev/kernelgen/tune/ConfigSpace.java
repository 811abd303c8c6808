package dev.kernelgen.tune;

import dev.kernelgen.diag.UserError;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The configurations of a schedule: the product of its knobs' choices (as {@link
 * dev.kernelgen.spec.Knobs#space()} lists them). Points are numbered in mixed radix, the last knob
 * fastest, so that small spaces can be enumerated and large ones sampled by index.
 */
public final class ConfigSpace {
  private final List<String> names;
  private final List<List<Integer>> choices;
  // Each knob's choices in ascending order: neighbours and coordinates follow the values' order,
  // whatever order (default first) the schedule listed them in.
  private final List<List<Integer>> ordered;

  public ConfigSpace(Map<String, List<Integer>> knobs) {
    Map<String, List<Integer>> sorted = new TreeMap<>(knobs);
    this.names = List.copyOf(sorted.keySet());
    List<List<Integer>> c = new ArrayList<>();
    for (String n : names) {
      List<Integer> cs = List.copyOf(sorted.get(n));
      UserError.check(!cs.isEmpty(), "knob '%s' has no choices", n);
      c.add(cs);
    }
    this.choices = List.copyOf(c);
    this.ordered = c.stream().map(cs -> cs.stream().sorted().toList()).toList();
  }

  /** The knobs and their choices, sorted by name. */
  public Map<String, List<Integer>> knobs() {
    Map<String, List<Integer>> m = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      m.put(names.get(i), choices.get(i));
    }
    return Collections.unmodifiableMap(m);
  }

  /** The number of configurations, saturating at {@link Long#MAX_VALUE}. */
  public long size() {
    long n = 1;
    for (List<Integer> c : choices) {
      if (n > Long.MAX_VALUE / c.size()) {
        return Long.MAX_VALUE;
      }
      n *= c.size();
    }
    return n;
  }

  /** Configuration number {@code index} (0 is every knob's default). */
  public Configuration get(long index) {
    UserError.check(index >= 0 && index < size(), "configuration %d is outside the space", index);
    Map<String, Integer> v = new TreeMap<>();
    for (int i = names.size() - 1; i >= 0; i--) {
      int n = choices.get(i).size();
      v.put(names.get(i), choices.get(i).get((int) (index % n)));
      index /= n;
    }
    return Configuration.of(v);
  }

  /** The default configuration: each knob's first choice. */
  public Configuration defaults() {
    return get(0);
  }

  /** Whether {@code c} sets exactly this space's knobs to some of their choices. */
  public boolean contains(Configuration c) {
    if (!c.values().keySet().equals(new java.util.TreeSet<>(names))) {
      return false;
    }
    for (int i = 0; i < names.size(); i++) {
      if (!choices.get(i).contains(c.values().get(names.get(i)))) {
        return false;
      }
    }
    return true;
  }

  /** A configuration drawn uniformly. */
  public Configuration random(Random r) {
    Map<String, Integer> v = new TreeMap<>();
    for (int i = 0; i < names.size(); i++) {
      List<Integer> c = choices.get(i);
      v.put(names.get(i), c.get(r.nextInt(c.size())));
    }
    return Configuration.of(v);
  }

  /**
   * A neighbour of {@code c}: one knob moved to an adjacent choice (choices are usually listed in
   * order of size), or now and then to any choice, so the walk can leave a valley.
   */
  public Configuration neighbour(Configuration c, Random r) {
    if (names.isEmpty()) {
      return c;
    }
    Map<String, Integer> v = new TreeMap<>(c.values());
    for (int attempt = 0; attempt < 8; attempt++) {
      int k = r.nextInt(names.size());
      List<Integer> cs = ordered.get(k);
      if (cs.size() < 2) {
        continue;
      }
      int at = cs.indexOf(v.get(names.get(k)));
      int next;
      if (r.nextInt(4) == 0) {
        next = r.nextInt(cs.size());
      } else {
        next = at + (r.nextBoolean() ? 1 : -1);
        next = Math.floorMod(next, cs.size());
      }
      if (next != at) {
        v.put(names.get(k), cs.get(next));
        return Configuration.of(v);
      }
    }
    return c;
  }

  /**
   * The configuration as coordinates in [0, 1], one per knob (the position of its value among the
   * choices): the cost model's features.
   */
  public double[] coordinates(Configuration c) {
    double[] x = new double[names.size()];
    for (int i = 0; i < names.size(); i++) {
      List<Integer> cs = ordered.get(i);
      int at = cs.indexOf(c.values().get(names.get(i)));
      x[i] = cs.size() < 2 ? 0 : (double) at / (cs.size() - 1);
    }
    return x;
  }

  @Override
  public String toString() {
    return knobs() + " (" + size() + " configurations)";
  }
}
