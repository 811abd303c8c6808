package dev.kernelgen.tune.model;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/** How well predictions order candidates: what a search needs of its cost model. */
public final class Ranking {
  private Ranking() {}

  /** Spearman's rank correlation of {@code a} and {@code b} (ties get their mean rank). */
  public static double spearman(double[] a, double[] b) {
    double[] ra = ranks(a);
    double[] rb = ranks(b);
    double ma = Arrays.stream(ra).average().orElse(0);
    double mb = Arrays.stream(rb).average().orElse(0);
    double sab = 0;
    double saa = 0;
    double sbb = 0;
    for (int i = 0; i < ra.length; i++) {
      sab += (ra[i] - ma) * (rb[i] - mb);
      saa += (ra[i] - ma) * (ra[i] - ma);
      sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    return saa == 0 || sbb == 0 ? 0 : sab / Math.sqrt(saa * sbb);
  }

  /**
   * The fraction of the {@code k} smallest {@code actual} values among the {@code k} smallest
   * {@code predicted} ones (top-k recall, lower is better for both).
   */
  public static double topKRecall(double[] predicted, double[] actual, int k) {
    int[] p = smallest(predicted, k);
    int[] a = smallest(actual, k);
    long hits = Arrays.stream(p).filter(i -> Arrays.stream(a).anyMatch(j -> j == i)).count();
    return (double) hits / Math.min(k, actual.length);
  }

  private static int[] smallest(double[] v, int k) {
    return IntStream.range(0, v.length)
        .boxed()
        .sorted(Comparator.comparingDouble(i -> v[i]))
        .limit(k)
        .mapToInt(Integer::intValue)
        .toArray();
  }

  static double[] ranks(double[] v) {
    Integer[] idx = IntStream.range(0, v.length).boxed().toArray(Integer[]::new);
    Arrays.sort(idx, Comparator.comparingDouble(i -> v[i]));
    double[] r = new double[v.length];
    int i = 0;
    while (i < idx.length) {
      int j = i;
      while (j + 1 < idx.length && v[idx[j + 1]] == v[idx[i]]) {
        j++;
      }
      for (int k = i; k <= j; k++) {
        r[idx[k]] = (i + j) / 2.0;
      }
      i = j + 1;
    }
    return r;
  }
}
