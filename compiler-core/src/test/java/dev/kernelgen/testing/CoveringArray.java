package dev.kernelgen.testing;

import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A covering array of strength {@code t} over a configuration space: configurations such that every
 * choice of values for any {@code t} knobs appears in at least one of them (combinatorial
 * interaction testing). Faults in generated code come from a few knobs interacting; a strength-3
 * array of a 432-point space has about a tenth of its points, so a test compiles those and leaves
 * the whole space to the {@code exhaustive} tier. Built greedily and deterministically: each step
 * takes the first configuration of the space (in its own order) that covers the most tuples not yet
 * covered.
 */
public final class CoveringArray {
  private CoveringArray() {}

  /** The configurations, in the order chosen; the whole space when it has at most t knobs. */
  public static List<Configuration> of(ConfigSpace space, int strength) {
    List<String> knobs = new ArrayList<>(space.knobs().keySet());
    int t = Math.min(strength, knobs.size());
    List<Configuration> all = new ArrayList<>();
    for (long i = 0; i < space.size(); i++) {
      all.add(space.get(i));
    }
    List<int[]> groups = new ArrayList<>();
    combinations(knobs.size(), t, 0, new int[t], 0, groups);
    // The tuples each configuration covers, computed once.
    List<List<String>> covers = new ArrayList<>();
    Set<String> uncovered = new HashSet<>();
    for (Configuration c : all) {
      List<String> covered = tuples(c, knobs, groups);
      covers.add(covered);
      uncovered.addAll(covered);
    }
    List<Configuration> out = new ArrayList<>();
    boolean[] taken = new boolean[all.size()];
    while (!uncovered.isEmpty()) {
      int best = -1;
      int bestGain = 0;
      for (int i = 0; i < all.size(); i++) {
        if (taken[i]) {
          continue;
        }
        int gain = 0;
        for (String x : covers.get(i)) {
          gain += uncovered.contains(x) ? 1 : 0;
        }
        if (gain > bestGain) {
          best = i;
          bestGain = gain;
        }
      }
      taken[best] = true;
      out.add(all.get(best));
      uncovered.removeAll(covers.get(best));
    }
    return out;
  }

  /** The t-tuples a configuration covers, as "knob=value,knob=value" keys. */
  static List<String> tuples(Configuration c, List<String> knobs, List<int[]> groups) {
    List<String> out = new ArrayList<>(groups.size());
    for (int[] g : groups) {
      StringBuilder b = new StringBuilder();
      for (int k : g) {
        b.append(knobs.get(k)).append('=').append(c.values().get(knobs.get(k))).append(',');
      }
      out.add(b.toString());
    }
    return out;
  }

  private static void combinations(int n, int t, int from, int[] cur, int depth, List<int[]> out) {
    if (depth == t) {
      out.add(cur.clone());
      return;
    }
    for (int k = from; k < n; k++) {
      cur[depth] = k;
      combinations(n, t, k + 1, cur, depth + 1, out);
    }
  }
}
