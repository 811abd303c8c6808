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

  /** The note {@code key}, or {@code orElse}. */
  public double note(String key, double orElse) {
    return notes.getOrDefault(key, orElse);
  }
}
