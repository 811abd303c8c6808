package dev.kernelgen.tune;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The schedules a search has measured, by the knobs they read ({@link TuningTask#readKnobs}): two
 * configurations that read the same knobs with the same values build the same schedule (a sketch
 * ignores another sketch's knobs), so the second costs no trial.
 */
final class KnownSchedules {
  private final TuningTask task;
  private final Map<String, Measurement> bySchedule = new HashMap<>();

  KnownSchedules(TuningTask task) {
    this.task = task;
  }

  /** Records {@code m} as its schedule's measurement, unless that schedule has one already. */
  void add(Measurement m) {
    key(m.config()).ifPresent(k -> bySchedule.putIfAbsent(k, m));
  }

  /**
   * {@code batch} without the configurations whose schedule was measured already under another
   * configuration, or comes twice in the batch: each of the former is entered in {@code seen} with
   * the earlier measurement's result, so that the search does not propose it again. A configuration
   * whose schedule cannot be built stays, for the measurer to report.
   */
  List<Configuration> unmeasured(List<Configuration> batch, Map<String, Measurement> seen) {
    List<Configuration> keep = new ArrayList<>();
    Set<String> inBatch = new HashSet<>();
    for (Configuration c : batch) {
      Optional<String> key = key(c);
      Measurement same = key.map(bySchedule::get).orElse(null);
      if (same != null) {
        seen.put(
            c.key(),
            new Measurement(
                c,
                same.status(),
                same.medianUs(),
                same.minUs(),
                same.trace(),
                same.detail(),
                same.features()));
      } else if (key.isEmpty() || inBatch.add(key.get())) {
        keep.add(c);
      }
    }
    return keep;
  }

  private Optional<String> key(Configuration c) {
    try {
      return Optional.of(task.readKnobs(c).key());
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }
}
