package dev.kernelgen.schedule;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.IterVar;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The schedule primitives in the order they were applied, by stage and axis names: printable, and
 * replayable on a fresh schedule of the same operator (what the tuner searches and the tuning log
 * stores).
 */
public final class Trace {
  /** One primitive applied to one stage. */
  public record Step(String stage, String primitive, List<String> args) {
    @Override
    public String toString() {
      return "s[" + stage + "]." + primitive + "(" + String.join(", ", args) + ")";
    }
  }

  private final List<Step> steps = new ArrayList<>();

  void record(Stage stage, String primitive, String... args) {
    steps.add(new Step(stage.name(), primitive, List.copyOf(Arrays.asList(args))));
  }

  public List<Step> steps() {
    return List.copyOf(steps);
  }

  /** Applies these steps to {@code target}, a fresh schedule of the same operator. */
  public static void replay(List<Step> steps, Schedule target) {
    for (Step st : steps) {
      apply(st, target);
    }
  }

  private static void apply(Step st, Schedule s) {
    Stage stage = s.stage(st.stage());
    List<String> a = st.args();
    switch (st.primitive()) {
      case "split" -> {
        IterVar iv = stage.leaf(a.get(0));
        String[] kv = a.get(1).split("=");
        long n = Long.parseLong(kv[1]);
        if (kv[0].equals("factor")) {
          stage.split(iv, n);
        } else {
          stage.splitNparts(iv, n);
        }
      }
      case "fuse" -> stage.fuse(stage.leaf(a.get(0)), stage.leaf(a.get(1)));
      case "reorder" -> stage.reorder(a.stream().map(stage::leaf).toArray(IterVar[]::new));
      case "compute_at" -> {
        Stage parent = s.stage(a.get(0));
        stage.computeAt(parent, parent.leaf(a.get(1)));
      }
      case "compute_inline" -> stage.computeInline();
      case "compute_root" -> stage.computeRoot();
      case "bind" -> stage.bind(stage.leaf(a.get(0)), a.get(1));
      case "unroll" -> stage.unroll(stage.leaf(a.get(0)));
      case "vectorize" -> stage.vectorize(stage.leaf(a.get(0)));
      case "vectorize_reduction" -> stage.vectorizeReduction(stage.leaf(a.get(0)));
      case "parallel" -> stage.parallel(stage.leaf(a.get(0)));
      case "pragma" -> stage.pragma(stage.leaf(a.get(0)), a.get(1));
      case "set_scope" -> stage.setScope(a.get(0));
      case "reorder_storage" ->
          stage.reorderStorage(a.stream().map(stage::rootAxis).toArray(IterVar[]::new));
      case "double_buffer" -> stage.doubleBuffer();
      case "storage_align" ->
          stage.storageAlign(
              stage.rootAxis(a.get(0)), Integer.parseInt(a.get(1)), Integer.parseInt(a.get(2)));
      case "storage_deinterleave" ->
          stage.storageDeinterleave(stage.rootAxis(a.get(0)), Integer.parseInt(a.get(1)));
      case "cache_read" ->
          s.cacheRead(
              stage.tensor(),
              a.get(0),
              a.subList(1, a.size()).stream()
                  .map(n -> s.stage(n).tensor())
                  .toArray(dev.kernelgen.te.Tensor[]::new));
      case "cache_write" -> s.cacheWrite(stage.tensor(), a.get(0));
      case "rfactor" ->
          s.rfactor(stage.tensor(), reduceAxis(stage, a.get(0)), Integer.parseInt(a.get(1)));
      case "rfactor_parts" ->
          s.rfactorParts(stage.tensor(), reduceAxis(stage, a.get(0)), Integer.parseInt(a.get(1)));
      default ->
          throw new UserError("unknown schedule primitive '" + st.primitive() + "' in trace");
    }
  }

  private static IterVar reduceAxis(Stage stage, String name) {
    return stage.reduceAxis().stream()
        .filter(iv -> iv.name().equals(name))
        .findFirst()
        .orElseThrow(
            () -> new UserError("stage '" + stage.name() + "' has no reduce axis '" + name + "'"));
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    for (Step st : steps) {
      b.append(st).append('\n');
    }
    return b.toString();
  }
}
