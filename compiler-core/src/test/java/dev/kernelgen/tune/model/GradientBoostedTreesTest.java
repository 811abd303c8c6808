package dev.kernelgen.tune.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class GradientBoostedTreesTest {

  /** A nonlinear function of 3 of 6 features, with an interaction; the rest are noise. */
  private static double target(double[] x) {
    return 3 * Math.sin(x[0]) + x[1] * x[1] - 2 * (x[2] > 0.5 ? x[1] : 0);
  }

  private static double[][] rows(int n, Random r) {
    double[][] x = new double[n][6];
    for (double[] row : x) {
      for (int f = 0; f < row.length; f++) {
        row[f] = r.nextDouble() * 3 - 1;
      }
    }
    return x;
  }

  @Test
  void learnsANonlinearFunctionAndRanksUnseenPoints() {
    Random r = new Random(5);
    double[][] train = rows(600, r);
    double[] y = new double[train.length];
    for (int i = 0; i < y.length; i++) {
      y[i] = target(train[i]) + 0.05 * r.nextGaussian();
    }
    GradientBoostedTrees m =
        GradientBoostedTrees.fit(train, y, GradientBoostedTrees.Params.defaults());
    double[][] test = rows(300, r);
    double[] truth = new double[test.length];
    double[] pred = new double[test.length];
    double mean = 0;
    for (int i = 0; i < test.length; i++) {
      truth[i] = target(test[i]);
      pred[i] = m.predict(test[i]);
      mean += truth[i] / test.length;
    }
    double ssr = 0;
    double sst = 0;
    for (int i = 0; i < test.length; i++) {
      ssr += (truth[i] - pred[i]) * (truth[i] - pred[i]);
      sst += (truth[i] - mean) * (truth[i] - mean);
    }
    assertThat(1 - ssr / sst).as("R^2 on unseen points").isGreaterThan(0.9);
    assertThat(Ranking.spearman(pred, truth)).isGreaterThan(0.95);
    assertThat(Ranking.topKRecall(pred, truth, 30)).isGreaterThan(0.6);
  }

  @Test
  void shrinkageAndDepthMatter() {
    Random r = new Random(9);
    double[][] x = rows(400, r);
    double[] y = new double[x.length];
    for (int i = 0; i < y.length; i++) {
      y[i] = target(x[i]);
    }
    GradientBoostedTrees.Params p = GradientBoostedTrees.Params.defaults();
    // One tree of depth 1 (a stump) with shrinkage explains little.
    GradientBoostedTrees stump =
        GradientBoostedTrees.fit(
            x, y, new GradientBoostedTrees.Params(1, 1, 0.1, 1, 1, 1, 1, 64, 1));
    GradientBoostedTrees full = GradientBoostedTrees.fit(x, y, p);
    assertThat(mse(full, x, y)).isLessThan(mse(stump, x, y) / 10);
    assertThat(full.size()).isEqualTo(p.trees());
  }

  @Test
  void aFitIsDeterministicForASeed() {
    Random r = new Random(2);
    double[][] x = rows(200, r);
    double[] y = new double[x.length];
    for (int i = 0; i < y.length; i++) {
      y[i] = target(x[i]);
    }
    GradientBoostedTrees.Params p = GradientBoostedTrees.Params.defaults();
    GradientBoostedTrees a = GradientBoostedTrees.fit(x, y, p);
    GradientBoostedTrees b = GradientBoostedTrees.fit(x, y, p);
    GradientBoostedTrees c =
        GradientBoostedTrees.fit(
            x, y, new GradientBoostedTrees.Params(100, 6, 0.15, 0.8, 0.8, 1, 1, 64, 77));
    boolean differs = false;
    for (double[] row : rows(50, new Random(3))) {
      assertThat(a.predict(row)).isEqualTo(b.predict(row));
      differs |= a.predict(row) != c.predict(row);
    }
    assertThat(differs).as("another seed subsamples differently").isTrue();
  }

  @Test
  void weightsPullTheFitTowardsHeavyRows() {
    double[][] x = {{0}, {0}, {1}, {1}};
    double[] y = {0, 10, 5, 5};
    GradientBoostedTrees.Params p = new GradientBoostedTrees.Params(200, 2, 0.3, 1, 1, 0, 0, 8, 1);
    GradientBoostedTrees m = GradientBoostedTrees.fit(x, y, new double[] {9, 1, 1, 1}, p);
    assertThat(m.predict(new double[] {0}))
        .isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.05));
    assertThat(m.predict(new double[] {1}))
        .isCloseTo(5.0, org.assertj.core.data.Offset.offset(0.05));
  }

  @Test
  void binsSplitBetweenDistinctValues() {
    double[][] x = {{1}, {2}, {2}, {3}};
    assertThat(GradientBoostedTrees.edges(x, 0, 64)).containsExactly(1.5, 2.5);
    assertThat(GradientBoostedTrees.bin(new double[] {1.5, 2.5}, 2)).isEqualTo(1);
    assertThat(GradientBoostedTrees.edges(new double[][] {{4}, {4}}, 0, 64)).isEmpty();
    double[][] many = new double[1000][1];
    for (int i = 0; i < many.length; i++) {
      many[i][0] = i;
    }
    assertThat(GradientBoostedTrees.edges(many, 0, 16)).hasSize(15);
  }

  @Test
  void spearmanAndRecall() {
    assertThat(Ranking.spearman(new double[] {1, 2, 3}, new double[] {10, 20, 30})).isEqualTo(1.0);
    assertThat(Ranking.spearman(new double[] {1, 2, 3}, new double[] {3, 2, 1})).isEqualTo(-1.0);
    assertThat(Ranking.topKRecall(new double[] {1, 2, 3, 4}, new double[] {2, 1, 4, 3}, 2))
        .isEqualTo(1.0);
    assertThat(Ranking.topKRecall(new double[] {1, 2, 3, 4}, new double[] {4, 3, 2, 1}, 2))
        .isEqualTo(0.0);
  }

  private static double mse(GradientBoostedTrees m, double[][] x, double[] y) {
    double s = 0;
    for (int i = 0; i < y.length; i++) {
      double d = m.predict(x[i]) - y[i];
      s += d * d;
    }
    return s / y.length;
  }
}
