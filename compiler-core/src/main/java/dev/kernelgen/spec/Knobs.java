package dev.kernelgen.spec;

import dev.kernelgen.diag.UserError;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The tunable choices of one schedule. Each {@link #knob} names a choice and lists its candidate
 * values; it returns the configured value, else the first candidate (the default). Asking records
 * the choice, so that after a schedule ran its configuration space and the values it used are
 * known: the build records them beside the kernels, and the tuner searches the space.
 *
 * <p>Not thread-safe: one instance per schedule run.
 */
public final class Knobs {
  private final Map<String, Integer> configured;
  private final Map<String, List<Integer>> space = new LinkedHashMap<>();
  private final Map<String, Integer> chosen = new LinkedHashMap<>();

  private Knobs(Map<String, Integer> configured) {
    this.configured = Collections.unmodifiableMap(new TreeMap<>(configured));
  }

  /** Knobs that take every default. */
  public static Knobs defaults() {
    return new Knobs(Map.of());
  }

  /** Knobs that take the given values where given, defaults elsewhere. */
  public static Knobs configured(Map<String, Integer> values) {
    return new Knobs(values);
  }

  /**
   * The value of knob {@code name}: the configured one, else {@code choices[0]}.
   *
   * @throws UserError when there are no choices, the same knob is asked with other choices, or the
   *     configured value is not among the choices
   */
  public int knob(String name, int... choices) {
    UserError.check(
        name != null && name.matches("[A-Za-z_][A-Za-z0-9_.]*"),
        "knob name '%s' is not an identifier",
        name);
    UserError.check(choices.length > 0, "knob '%s' has no choices", name);
    List<Integer> c = new ArrayList<>();
    for (int v : choices) {
      UserError.check(!c.contains(v), "knob '%s' lists choice %d twice", name, v);
      c.add(v);
    }
    List<Integer> before = space.putIfAbsent(name, List.copyOf(c));
    UserError.check(
        before == null || before.equals(c),
        "knob '%s' is asked twice with different choices: %s and %s",
        name,
        before,
        c);
    int value = choices[0];
    Integer v = configured.get(name);
    if (v != null) {
      UserError.check(
          c.contains(v),
          "knob '%s' is configured to %d, which is not among its choices %s",
          name,
          v,
          Arrays.toString(choices));
      value = v;
    }
    chosen.put(name, value);
    return value;
  }

  /** Every knob asked so far with its choices, in the order first asked. */
  public Map<String, List<Integer>> space() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(space));
  }

  /** The value each knob asked so far took, in the order first asked. */
  public Map<String, Integer> chosen() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(chosen));
  }

  /** Whether any knob took a configured value rather than its default. */
  public boolean isConfigured() {
    for (var e : chosen.entrySet()) {
      if (configured.containsKey(e.getKey())) {
        return true;
      }
    }
    return false;
  }

  /** The configured values that no knob asked for: a stale configuration. */
  public List<String> unused() {
    List<String> out = new ArrayList<>();
    for (String k : configured.keySet()) {
      if (!space.containsKey(k)) {
        out.add(k);
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return chosen.toString();
  }
}
