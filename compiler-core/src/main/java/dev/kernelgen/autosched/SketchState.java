package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.spec.Knobs;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The schedule a list of {@link SketchRule}s is building: the target, the knobs the rules ask,
 * which stages are scheduled, and the notes the rules leave for a {@link Predictor} (tile sizes,
 * parallel tasks, threads per block, as numbers a model can weigh).
 */
public final class SketchState {
  private final Schedule schedule;
  private final Target target;
  private final VectorUnit vectors;
  private final Knobs knobs;
  private final Map<String, Integer> preferred;
  private final Set<Stage> done = new HashSet<>();
  private final Map<String, Double> notes = new LinkedHashMap<>();
  private boolean declaring;

  /** Before every knob's name: an alternative DAG's ({@link AutoScheduler#WINOGRAD}), else "". */
  private final String prefix;

  SketchState(
      Schedule schedule,
      Target target,
      VectorUnit vectors,
      Knobs knobs,
      Map<String, Integer> preferred,
      String prefix) {
    this.schedule = schedule;
    this.target = target;
    this.vectors = vectors;
    this.knobs = knobs;
    this.preferred = preferred;
    this.prefix = prefix;
  }

  public Schedule schedule() {
    return schedule;
  }

  public Target target() {
    return target;
  }

  /** The vector unit C tiles are sized for (the ISA level's; AVX-512 by default). */
  public VectorUnit vectors() {
    return vectors;
  }

  /** Whether the target runs threads of GPU blocks (CUDA, OpenCL). */
  public boolean gpu() {
    return target == Target.CUDA || target == Target.OPENCL;
  }

  public boolean isDone(Stage st) {
    return done.contains(st);
  }

  public void done(Stage st) {
    done.add(st);
  }

  /**
   * Knob {@code name} of stage {@code st} (named {@code <stage>.<name>}): its configured value,
   * else the preferred one (the untuned pick) where it is among the choices, else the first choice.
   */
  public int knob(Stage st, String name, int... choices) {
    return knob(KnobNames.of(st, name), choices);
  }

  /** A knob of the whole operator: see {@link #knob(Stage, String, int...)}. */
  public int knob(String name, int... choices) {
    name = prefix + name;
    choices = preferredFirst(name, choices);
    return declaring ? knobs.declare(name, choices) : knobs.knob(name, choices);
  }

  /**
   * Knob {@code name} of stage {@code st} in the space but not read ({@link Knobs#declare}): the
   * knobs of a branch the rule did not take, so that configurations that differ only there are
   * known to build the same schedule.
   */
  public void declare(Stage st, String name, int... choices) {
    String n = prefix + KnobNames.of(st, name);
    knobs.declare(n, preferredFirst(n, choices));
  }

  /**
   * From here on every knob is declared, not read: the rules still run, so that their knobs are in
   * the space, but the schedule built is another sketch's (the naive floor).
   */
  void declareOnly() {
    declaring = true;
  }

  /** {@code choices} with knob {@code name}'s preferred value (the untuned pick) first. */
  private int[] preferredFirst(String name, int[] choices) {
    Integer p = preferred.get(name);
    return p != null ? first(p, choices) : choices;
  }

  private static int[] first(int p, int[] choices) {
    int at = -1;
    for (int k = 0; k < choices.length; k++) {
      if (choices[k] == p) {
        at = k;
      }
    }
    if (at <= 0) {
      return choices;
    }
    int[] r = new int[choices.length];
    r[0] = p;
    int n = 1;
    for (int c : choices) {
      if (c != p) {
        r[n++] = c;
      }
    }
    return r;
  }

  /**
   * Leaves a number about stage {@code st} for the predictor, under {@code <stage>/<key>}; the
   * values of one key add up.
   */
  public void note(Stage st, String key, double value) {
    notes.merge(st.name() + "/" + key, value, Double::sum);
  }

  /** The notes left so far, keyed {@code <stage>/<key>}. */
  public Map<String, Double> notes() {
    return Map.copyOf(notes);
  }
}
