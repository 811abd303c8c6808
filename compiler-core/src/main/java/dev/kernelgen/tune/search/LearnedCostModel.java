package dev.kernelgen.tune.search;

import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.features.LoopFeatures;
import dev.kernelgen.tune.model.GradientBoostedTrees;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Predicts a candidate's time from its {@link LoopFeatures} with gradient-boosted trees.
 *
 * <p>The trees learn {@code ln(time) - ln(work)}, the log time per unit of work, where work is the
 * candidate's floating-point operations (its global bytes accessed when it computes nothing): the
 * target is then much the same for two shapes of one operator with the same tiling, so records of
 * other shapes and operators teach the model about a new one (transfer). What is left differs
 * between tasks by a constant (one shape runs at a better rate than another with every tiling), so
 * each task's targets are centred on their own median before the fit, as Ansor normalises
 * throughput per task: the trees learn how much faster or slower than its task's typical candidate
 * a candidate is, which is what ranks the candidates of the current task. (Without it, on measured
 * C matmuls, 128^3's records taught a model with 8 rows of 256^3 a Spearman of 0.50 on the rest of
 * 256^3, where the two shapes' times of the same configurations rank alike at 0.89.) A failed
 * candidate (over the device's limits, compile error, crash, wrong result, timeout) is learned as
 * twice as slow as the slowest success, so the search steers away from it. The model is refit from
 * all its rows by {@link #fit}, which the tuner calls after each batch.
 *
 * <p>A row is the loop features followed by the current space's knob coordinates ({@link
 * dev.kernelgen.tune.ConfigSpace#coordinates}; -1 in rows of other tasks): a knob that does not
 * show in the loops (a compiler flag, a knob the schedule ignores at this shape) can still be
 * learned from the task's own measurements, while the loop features carry over between tasks.
 */
public final class LearnedCostModel {
  /** Rows needed before the model predicts; with fewer, {@link #trained} is false. */
  public static final int MIN_ROWS = 8;

  private final GradientBoostedTrees.Params params;
  private final int knobs;
  private final List<double[]> xs = new ArrayList<>();
  private final List<Double> ys = new ArrayList<>(); // NaN: a failure
  private final List<Double> ws = new ArrayList<>();
  private final List<String> tasks = new ArrayList<>(); // "" for the current task's rows
  private GradientBoostedTrees trees;
  private int transferred;
  private int own;

  /**
   * @param knobs the number of knobs of the current space
   */
  public LearnedCostModel(GradientBoostedTrees.Params params, int knobs) {
    this.params = params;
    this.knobs = knobs;
  }

  /**
   * Adds a measurement of the current task with features {@code x} and knob coordinates {@code
   * coords}.
   */
  public void add(Measurement m, double[] x, double[] coords) {
    if (x == null) {
      return;
    }
    add(row(x, coords), m.isOk() ? m.medianUs() : Double.NaN, 1, "");
    own++;
  }

  private double[] row(double[] x, double[] coords) {
    double[] r = java.util.Arrays.copyOf(x, LoopFeatures.SIZE + knobs);
    for (int i = 0; i < knobs; i++) {
      r[LoopFeatures.SIZE + i] = coords == null ? -1 : coords[i];
    }
    return r;
  }

  /**
   * Adds a record of an earlier search (another operator or shape) that stores features of the
   * current feature set; returns whether it did.
   */
  public boolean addTransfer(TuningRecord r, double weight) {
    return addTransfer(r, weight, null);
  }

  /**
   * As {@link #addTransfer(TuningRecord, double)}, with the record's knob coordinates in the
   * current space where its configuration is a point of it ({@code coords}; null where not): the
   * same knobs of another shape's space, whose effect the loops may not show (a vector width, an
   * unroll), then teach the model as the task's own rows do.
   */
  public boolean addTransfer(TuningRecord r, double weight, double[] coords) {
    if (!r.featureSet().equals(LoopFeatures.VERSION) || r.features().size() != LoopFeatures.SIZE) {
      return false;
    }
    double[] x = r.features().stream().mapToDouble(Double::doubleValue).toArray();
    String task = r.operator() + " " + r.target() + " " + r.device() + " " + r.shape();
    add(row(x, coords), r.isOk() ? r.medianUs() : Double.NaN, weight, task);
    transferred++;
    return true;
  }

  private void add(double[] x, double us, double weight, String task) {
    xs.add(x);
    ys.add(Double.isNaN(us) ? Double.NaN : Math.log(Math.max(us, 1e-3)) - logWork(x));
    ws.add(weight);
    tasks.add(task);
  }

  /** Each task's median target over its successful rows. */
  private Map<String, Double> medians() {
    Map<String, List<Double>> byTask = new HashMap<>();
    for (int i = 0; i < ys.size(); i++) {
      if (!Double.isNaN(ys.get(i))) {
        byTask.computeIfAbsent(tasks.get(i), k -> new ArrayList<>()).add(ys.get(i));
      }
    }
    Map<String, Double> out = new HashMap<>();
    byTask.forEach(
        (task, v) -> {
          v.sort(null);
          int n = v.size();
          out.put(task, n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2);
        });
    return out;
  }

  /** ln of the work of a candidate with features {@code x}. */
  static double logWork(double[] x) {
    double log2 = Math.max(x[LoopFeatures.NAMES.indexOf("flops")], x[22]);
    return log2 * Math.log(2);
  }

  /** Refits the trees on every row so far (a no-op below {@link #MIN_ROWS} rows). */
  public void fit() {
    if (xs.size() < MIN_ROWS) {
      return;
    }
    Map<String, Double> medians = medians();
    if (medians.isEmpty()) {
      return;
    }
    int n = xs.size();
    double[] centred = new double[n];
    double worst = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      centred[i] = ys.get(i) - medians.getOrDefault(tasks.get(i), Double.NaN);
      if (!Double.isNaN(centred[i])) {
        worst = Math.max(worst, centred[i]);
      }
    }
    double[][] x = xs.toArray(new double[0][]);
    double[] y = new double[n];
    double[] w = new double[n];
    for (int i = 0; i < n; i++) {
      y[i] = Double.isNaN(centred[i]) ? worst + Math.log(2) : centred[i];
      w[i] = ws.get(i);
    }
    trees = GradientBoostedTrees.fit(x, y, w, params);
  }

  /** Whether the model has been fit. */
  public boolean trained() {
    return trees != null;
  }

  /**
   * The predicted ln(time in us) of a candidate of the current task with features {@code x} and
   * knob coordinates {@code coords}, up to a constant of the task: lower is faster, which is all
   * that ranking the task's candidates needs.
   */
  public double predict(double[] x, double[] coords) {
    return trees == null ? 0 : trees.predict(row(x, coords)) + logWork(x);
  }

  /** Rows from the current task. */
  public int own() {
    return own;
  }

  /** Rows from earlier records. */
  public int transferred() {
    return transferred;
  }
}
