package dev.kernelgen.tune.model;

import java.util.ArrayList;
import java.util.List;

/**
 * One depth-limited regression tree, grown on binned features by XGBoost's exact-greedy gain over
 * histograms: a node's split maximises {@code G_L^2/(H_L+lambda) + G_R^2/(H_R+lambda) -
 * G^2/(H+lambda)} over every feature and bin boundary, where {@code G} and {@code H} are the sums
 * of the rows' gradients and weights; a leaf's value is {@code -G/(H+lambda)}.
 */
final class RegressionTree {
  // Node i: an inner node when feature[i] >= 0 (go left when x[feature] <= threshold), else a leaf.
  private final List<int[]> nodes = new ArrayList<>(); // {feature, left, right}
  private final List<double[]> values = new ArrayList<>(); // {threshold or leaf value}

  /** What one tree is grown from. */
  record Data(int[][] bins, double[][] edges, double[] grad, double[] weight) {}

  /**
   * Grows a tree over {@code rows} using the features in {@code features}.
   *
   * @param minWeight the least summed weight of a child
   */
  static RegressionTree grow(
      Data d, int[] rows, int[] features, int maxDepth, double lambda, double minWeight) {
    RegressionTree t = new RegressionTree();
    t.build(d, rows, features, 0, maxDepth, lambda, minWeight);
    return t;
  }

  private int build(
      Data d, int[] rows, int[] features, int depth, int maxDepth, double lambda, double minW) {
    double g = 0;
    double h = 0;
    for (int r : rows) {
      g += d.grad()[r] * d.weight()[r];
      h += d.weight()[r];
    }
    int id = nodes.size();
    nodes.add(new int[] {-1, -1, -1});
    values.add(new double[] {-g / (h + lambda)});
    if (depth >= maxDepth || h < 2 * minW) {
      return id;
    }
    double parent = g * g / (h + lambda);
    double bestGain = 1e-12;
    int bestFeature = -1;
    int bestBin = -1;
    for (int f : features) {
      int nb = d.edges()[f].length + 1;
      if (nb < 2) {
        continue;
      }
      double[] hg = new double[nb];
      double[] hh = new double[nb];
      for (int r : rows) {
        int b = d.bins()[r][f];
        hg[b] += d.grad()[r] * d.weight()[r];
        hh[b] += d.weight()[r];
      }
      double gl = 0;
      double hl = 0;
      for (int b = 0; b < nb - 1; b++) {
        gl += hg[b];
        hl += hh[b];
        double gr = g - gl;
        double hr = h - hl;
        if (hl < minW || hr < minW) {
          continue;
        }
        double gain = gl * gl / (hl + lambda) + gr * gr / (hr + lambda) - parent;
        if (gain > bestGain) {
          bestGain = gain;
          bestFeature = f;
          bestBin = b;
        }
      }
    }
    if (bestFeature < 0) {
      return id;
    }
    int nl = 0;
    for (int r : rows) {
      if (d.bins()[r][bestFeature] <= bestBin) {
        nl++;
      }
    }
    int[] left = new int[nl];
    int[] right = new int[rows.length - nl];
    int li = 0;
    int ri = 0;
    for (int r : rows) {
      if (d.bins()[r][bestFeature] <= bestBin) {
        left[li++] = r;
      } else {
        right[ri++] = r;
      }
    }
    nodes.get(id)[0] = bestFeature;
    values.get(id)[0] = d.edges()[bestFeature][bestBin];
    nodes.get(id)[1] = build(d, left, features, depth + 1, maxDepth, lambda, minW);
    nodes.get(id)[2] = build(d, right, features, depth + 1, maxDepth, lambda, minW);
    return id;
  }

  /** The leaf value for features {@code x}. */
  double predict(double[] x) {
    int i = 0;
    while (true) {
      int[] n = nodes.get(i);
      if (n[0] < 0) {
        return values.get(i)[0];
      }
      i = x[n[0]] <= values.get(i)[0] ? n[1] : n[2];
    }
  }

  /** Multiplies every leaf by {@code s} (shrinkage). */
  void scale(double s) {
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i)[0] < 0) {
        values.get(i)[0] *= s;
      }
    }
  }

  int size() {
    return nodes.size();
  }
}
