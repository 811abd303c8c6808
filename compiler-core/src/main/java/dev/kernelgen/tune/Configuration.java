package dev.kernelgen.tune;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** One point of a configuration space: a value per knob, sorted by knob name. */
public record Configuration(SortedMap<String, Integer> values) {
  public Configuration {
    values = Collections.unmodifiableSortedMap(new TreeMap<>(values));
  }

  public static Configuration of(Map<String, Integer> values) {
    return new Configuration(new TreeMap<>(values));
  }

  /** {@code a=1,b=2}: stable, used to recognise configurations already measured. */
  public String key() {
    return values.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(","));
  }

  @Override
  public String toString() {
    return "{" + key() + "}";
  }
}
