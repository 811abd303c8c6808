package dev.kernelgen.tune.search;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.TuningTask;
import dev.kernelgen.tune.features.LoopFeatures;
import java.util.HashMap;
import java.util.Map;

/**
 * The features of a task's candidates, each computed once: the candidate's schedule is built,
 * lowered for the task's target and walked. A candidate whose schedule or lowering fails has none
 * (null): it would be an invalid trial, and the search does not propose it.
 */
public final class CandidateFeatures {
  private final TuningTask task;
  private final Map<String, double[]> cache = new HashMap<>();
  private final Map<String, Boolean> invalid = new HashMap<>();

  public CandidateFeatures(TuningTask task) {
    this.task = task;
  }

  /** The features of {@code c}, or null when its schedule does not build or lower. */
  public double[] of(Configuration c) {
    String key = c.key();
    if (invalid.containsKey(key)) {
      return null;
    }
    double[] x = cache.get(key);
    if (x == null) {
      try {
        x = LoopFeatures.of(task.lower(task.schedule(c)));
      } catch (UserError | CompilerBug | ArithmeticException e) {
        invalid.put(key, true);
        return null;
      }
      cache.put(key, x);
    }
    return x;
  }

  /** How many candidates were lowered. */
  public int computed() {
    return cache.size() + invalid.size();
  }
}
