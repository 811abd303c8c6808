package dev.kernelgen.tune;

import java.util.ArrayList;
import java.util.List;

/**
 * A nearest-neighbour model of the log of a configuration's time, fit on the points measured so
 * far: the prediction is the inverse-distance-weighted mean over the {@code k} nearest measured
 * points, in the space's coordinates. Failed points count as slower than the slowest success, so
 * the search steers away from them. Cheap, needs no training, and good enough to rank neighbours
 * for simulated annealing; a learned model (TVM's XGBoost) would pay off only for far larger
 * spaces.
 */
final class CostModel {
  private final ConfigSpace space;
  private final int k;
  private final List<double[]> xs = new ArrayList<>();
  private final List<Double> ys = new ArrayList<>();
  private final List<double[]> failedXs = new ArrayList<>();
  private double worst = 0;

  CostModel(ConfigSpace space, int k) {
    this.space = space;
    this.k = k;
  }

  void add(Measurement m) {
    if (!space.contains(m.config())) {
      return;
    }
    double[] x = space.coordinates(m.config());
    if (m.isOk()) {
      double y = Math.log(Math.max(m.medianUs(), 1e-3));
      xs.add(x);
      ys.add(y);
      worst = Math.max(worst, y);
    } else {
      failedXs.add(x);
    }
  }

  int size() {
    return xs.size() + failedXs.size();
  }

  /** The predicted log time of {@code c}; lower is better. */
  double predict(Configuration c) {
    double[] x = space.coordinates(c);
    int n = xs.size() + failedXs.size();
    if (n == 0) {
      return 0;
    }
    double[] d = new double[n];
    double[] y = new double[n];
    for (int i = 0; i < xs.size(); i++) {
      d[i] = dist(x, xs.get(i));
      y[i] = ys.get(i);
    }
    for (int i = 0; i < failedXs.size(); i++) {
      d[xs.size() + i] = dist(x, failedXs.get(i));
      y[xs.size() + i] = worst + 1;
    }
    // Partial selection of the k nearest.
    Integer[] idx = new Integer[n];
    for (int i = 0; i < n; i++) {
      idx[i] = i;
    }
    java.util.Arrays.sort(idx, (a, b) -> Double.compare(d[a], d[b]));
    double wsum = 0;
    double ysum = 0;
    for (int j = 0; j < Math.min(k, n); j++) {
      int i = idx[j];
      double w = 1 / (d[i] * d[i] + 1e-6);
      wsum += w;
      ysum += w * y[i];
    }
    return ysum / wsum;
  }

  private static double dist(double[] a, double[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      double t = a[i] - b[i];
      s += t * t;
    }
    return Math.sqrt(s);
  }
}
