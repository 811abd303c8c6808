package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tune.ReferenceCache;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The reference data of each task measured: the inputs of {@link ReferenceCache#inputs} and the
 * expected outputs, computed once per task and written to a {@link ReferenceData} directory that
 * runners read. The outputs come from the {@link ReferenceCache} when one is set and holds them,
 * else from the oracle, else (the interpreter oracle and a task of more than {@code
 * interpreterLimit} element operations) from the naive loop nest run in the C harness, its float32
 * sums accumulated in float64 as the interpreter does ({@link WideSums}).
 */
final class References {
  /** A task's reference data: its directory, inputs and expected outputs. */
  record Entry(Path dir, List<NDArray> inputs, List<NDArray> outputs) {}

  private final Map<TuningTask, Entry> entries = new HashMap<>();
  private final CHarnessMeasurer.Oracle oracle;
  private final boolean interpreterOracle;
  private final BiFunction<TuningTask, Path, List<NDArray>> naive;
  private ReferenceCache cache;
  private long interpreterLimit = CHarnessMeasurer.INTERPRETER_LIMIT;

  /**
   * @param naive runs a task's naive loop nest on the inputs in a directory: its outputs
   */
  References(
      CHarnessMeasurer.Oracle oracle,
      boolean interpreterOracle,
      BiFunction<TuningTask, Path, List<NDArray>> naive) {
    this.oracle = oracle;
    this.interpreterOracle = interpreterOracle;
    this.naive = naive;
  }

  synchronized void cacheIn(ReferenceCache c) {
    this.cache = c;
  }

  synchronized void interpreterLimit(long elementOps) {
    this.interpreterLimit = elementOps;
  }

  synchronized Entry of(TuningTask task) {
    Entry e = entries.get(task);
    if (e == null) {
      List<NDArray> inputs = ReferenceCache.inputs(task);
      Path dir = ReferenceData.write(inputs, null);
      List<NDArray> outputs = expected(task, inputs, dir);
      ReferenceData.writeExpected(dir, outputs);
      e = new Entry(dir, inputs, outputs);
      entries.put(task, e);
    }
    return e;
  }

  /** The expected outputs: cached, else the oracle's, else (large tasks) the naive loop nest's. */
  private List<NDArray> expected(TuningTask t, List<NDArray> inputs, Path data) {
    if (cache != null) {
      var hit = cache.load(t);
      if (hit.isPresent()) {
        return hit.get();
      }
    }
    List<NDArray> out;
    String source;
    if (interpreterOracle && naiveOps(t) > interpreterLimit) {
      out = naive.apply(t, data);
      source = "naive-c";
    } else {
      out = oracle.outputs(t, inputs);
      source = interpreterOracle ? "interpreter" : "oracle";
    }
    if (cache != null) {
      cache.store(t, out, source);
    }
    return out;
  }

  /** Floating-point operations plus loads of the task's naive loop nest. */
  static double naiveOps(TuningTask t) {
    double[] x = dev.kernelgen.tune.features.LoopFeatures.of(naiveFunc(t));
    var names = dev.kernelgen.tune.features.LoopFeatures.NAMES;
    return Math.pow(2, x[names.indexOf("flops")]) + Math.pow(2, x[names.indexOf("loads")]);
  }

  /** The compute definition's own loop nest, no primitive applied, lowered for C. */
  static PrimFunc naiveFunc(TuningTask t) {
    return dev.kernelgen.lower.Lower.lower(
        Schedule.create(t.def().outputs()), t.kernelName(), t.def().args(), Target.C, null);
  }

  /** The naive loop nest that computes a large task's reference: its float32 sums in float64. */
  static PrimFunc referenceFunc(TuningTask t) {
    OperatorDef wide = WideSums.of(t.def());
    return dev.kernelgen.lower.Lower.lower(
        Schedule.create(wide.outputs()), t.kernelName(), wide.args(), Target.C, null);
  }

  /** Deletes every task's directory; later tasks write theirs again. */
  synchronized void clear() {
    for (Entry e : entries.values()) {
      ReferenceData.deleteTree(e.dir());
    }
    entries.clear();
  }

  synchronized List<Path> directories() {
    return entries.values().stream().map(Entry::dir).toList();
  }
}
