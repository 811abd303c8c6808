package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tune.Configuration;
import java.util.List;
import java.util.Map;

/**
 * One point of a generated schedule's space, as a {@link Predictor} sees it: the operator, the
 * configuration, the schedule it gives (to lower for features of the loop IR), and the notes the
 * sketch rules left while building it.
 */
public record Candidate(
    Target target,
    List<Tensor> outputs,
    Configuration config,
    Schedule schedule,
    Map<String, Double> notes) {
  public Candidate {
    outputs = List.copyOf(outputs);
    notes = Map.copyOf(notes);
  }

  /** The notes per stage ({@code <stage>/<key>} split), stages in name order. */
  public Map<String, Map<String, Double>> stageNotes() {
    return byStage(notes);
  }

  /** {@code notes} per stage ({@code <stage>/<key>} split), stages in name order. */
  static Map<String, Map<String, Double>> byStage(Map<String, Double> notes) {
    Map<String, Map<String, Double>> out = new java.util.TreeMap<>();
    for (var e : notes.entrySet()) {
      int at = e.getKey().lastIndexOf('/');
      out.computeIfAbsent(e.getKey().substring(0, at), k -> new java.util.TreeMap<>())
          .put(e.getKey().substring(at + 1), e.getValue());
    }
    return out;
  }
}
