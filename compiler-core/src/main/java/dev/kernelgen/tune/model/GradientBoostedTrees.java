package dev.kernelgen.tune.model;

import dev.kernelgen.diag.UserError;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * Gradient-boosted regression trees with squared loss (XGBoost's {@code hist} method, small):
 * features are cut into at most {@code bins} quantile bins, each round fits a {@link
 * RegressionTree} of at most {@code depth} levels to the residuals of a random {@code subsample} of
 * the rows and {@code colsample} of the features, and adds it scaled by the learning rate. A model
 * is immutable; {@link #fit} makes a new one (the tuner refits after each batch of measurements:
 * with a few thousand rows a fit takes milliseconds). Deterministic for a seed.
 */
public final class GradientBoostedTrees {

  /**
   * How to fit.
   *
   * @param trees boosting rounds
   * @param depth the deepest a tree grows
   * @param learningRate the shrinkage of each tree
   * @param subsample the fraction of rows each tree sees
   * @param colsample the fraction of features each tree may split on
   * @param minLeafWeight the least summed sample weight of a leaf
   * @param lambda the L2 penalty on leaf values
   * @param bins the most histogram bins per feature
   * @param seed of the subsampling
   */
  public record Params(
      int trees,
      int depth,
      double learningRate,
      double subsample,
      double colsample,
      double minLeafWeight,
      double lambda,
      int bins,
      long seed) {
    public Params {
      UserError.check(trees > 0 && depth > 0 && bins >= 2, "bad tree parameters");
      UserError.check(
          learningRate > 0 && subsample > 0 && subsample <= 1 && colsample > 0 && colsample <= 1,
          "bad boosting parameters");
    }

    /** 100 trees of depth 6, rate 0.15, 80% rows and features, 64 bins. */
    public static Params defaults() {
      return new Params(100, 6, 0.15, 0.8, 0.8, 1.0, 1.0, 64, 1);
    }

    public Params withTrees(int t) {
      return new Params(
          t, depth, learningRate, subsample, colsample, minLeafWeight, lambda, bins, seed);
    }
  }

  private final double base;
  private final List<RegressionTree> trees;
  private final int features;

  private GradientBoostedTrees(double base, List<RegressionTree> trees, int features) {
    this.base = base;
    this.trees = List.copyOf(trees);
    this.features = features;
  }

  /** Fits {@code y} on rows {@code x}, each of weight 1. */
  public static GradientBoostedTrees fit(double[][] x, double[] y, Params p) {
    double[] w = new double[y.length];
    Arrays.fill(w, 1);
    return fit(x, y, w, p);
  }

  /** Fits {@code y} on rows {@code x} with sample weights {@code w}. */
  public static GradientBoostedTrees fit(double[][] x, double[] y, double[] w, Params p) {
    UserError.check(
        x.length == y.length && y.length == w.length, "rows, targets and weights differ");
    UserError.check(x.length > 0, "no training rows");
    int n = x.length;
    int m = x[0].length;
    double wsum = 0;
    double ysum = 0;
    for (int i = 0; i < n; i++) {
      wsum += w[i];
      ysum += w[i] * y[i];
    }
    double base = ysum / wsum;
    double[][] edges = new double[m][];
    for (int f = 0; f < m; f++) {
      edges[f] = edges(x, f, p.bins());
    }
    int[][] bins = new int[n][m];
    for (int i = 0; i < n; i++) {
      for (int f = 0; f < m; f++) {
        bins[i][f] = bin(edges[f], x[i][f]);
      }
    }
    double[] pred = new double[n];
    Arrays.fill(pred, base);
    double[] grad = new double[n];
    Random random = new Random(p.seed());
    List<RegressionTree> trees = new ArrayList<>();
    RegressionTree.Data data = new RegressionTree.Data(bins, edges, grad, w);
    int[] all = new int[n];
    for (int i = 0; i < n; i++) {
      all[i] = i;
    }
    int[] allFeatures = new int[m];
    for (int f = 0; f < m; f++) {
      allFeatures[f] = f;
    }
    for (int t = 0; t < p.trees(); t++) {
      for (int i = 0; i < n; i++) {
        grad[i] = pred[i] - y[i];
      }
      int[] rows = sample(all, p.subsample(), random);
      int[] cols = sample(allFeatures, p.colsample(), random);
      RegressionTree tree =
          RegressionTree.grow(data, rows, cols, p.depth(), p.lambda(), p.minLeafWeight());
      tree.scale(p.learningRate());
      trees.add(tree);
      for (int i = 0; i < n; i++) {
        pred[i] += tree.predict(x[i]);
      }
    }
    return new GradientBoostedTrees(base, trees, m);
  }

  /** The prediction for {@code x}. */
  public double predict(double[] x) {
    UserError.check(x.length == features, "%d features, the model has %d", x.length, features);
    double s = base;
    for (RegressionTree t : trees) {
      s += t.predict(x);
    }
    return s;
  }

  /** The number of trees. */
  public int size() {
    return trees.size();
  }

  /** Bin boundaries of feature {@code f}: midpoints between quantiles of its distinct values. */
  static double[] edges(double[][] x, int f, int maxBins) {
    TreeSet<Double> distinct = new TreeSet<>();
    for (double[] row : x) {
      distinct.add(row[f]);
    }
    Double[] v = distinct.toArray(new Double[0]);
    if (v.length < 2) {
      return new double[0];
    }
    int cuts = Math.min(v.length - 1, maxBins - 1);
    double[] e = new double[cuts];
    for (int c = 0; c < cuts; c++) {
      // Boundary after the value at quantile (c + 1) / (cuts + 1) of the distinct values.
      int at = (int) ((long) (c + 1) * (v.length - 1) / (cuts + 1));
      at = Math.min(Math.max(at, 0), v.length - 2);
      e[c] = (v[at] + v[at + 1]) / 2;
    }
    return Arrays.stream(e).distinct().sorted().toArray();
  }

  /** The bin of {@code v}: the number of boundaries below it. */
  static int bin(double[] edges, double v) {
    int lo = 0;
    int hi = edges.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (v <= edges[mid]) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  private static int[] sample(int[] all, double fraction, Random random) {
    if (fraction >= 1) {
      return all;
    }
    int k = Math.max(1, (int) Math.round(all.length * fraction));
    int[] a = all.clone();
    for (int i = 0; i < k; i++) {
      int j = i + random.nextInt(a.length - i);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
    int[] out = Arrays.copyOf(a, k);
    Arrays.sort(out);
    return out;
  }
}
