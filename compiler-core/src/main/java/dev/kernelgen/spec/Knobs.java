package dev.kernelgen.spec;

import dev.kernelgen.diag.UserError;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The tunable choices of one schedule. Each {@link #knob} names a choice and lists its candidate
 * values; it returns the configured value, else the first candidate (the default). Asking records
 * the choice, so that after a schedule ran its configuration space and the values it used are
 * known: the build records them beside the kernels, and the tuner searches the space.
 *
 * <p>Not thread-safe: one instance per schedule run.
 */
public final class Knobs {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");

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
    int value = declare(name, choices);
    chosen.put(name, value);
    return value;
  }

  /**
   * Enters knob {@code name} with its {@code choices} in the space, as {@link #knob} does, without
   * reading it: a schedule declares the knobs of the branches it did not take (another sketch's,
   * another layout's tiles), so that the space is the same for every configuration, while the knobs
   * it read ({@link #chosen}) tell which schedule it built: two configurations that read the same
   * values build the same schedule, and a search measures it once.
   *
   * @return the value the knob would take: the configured one, else {@code choices[0]}
   * @throws UserError as {@link #knob} does
   */
  public int declare(String name, int... choices) {
    UserError.check(
        name != null && IDENTIFIER.matcher(name).matches(),
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
    return value;
  }

  /** The configured values, whether or not a knob asked for them yet, sorted by name. */
  public Map<String, Integer> configuredValues() {
    return configured;
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

  /**
   * A split of {@code extent} into {@code parts} factors whose product is {@code extent}, chosen
   * among all such factorizations (outermost factor first): knob {@code name} takes the index of
   * the factorization in {@link #factorizations}, so that its default (index 0) is {@code [1, ...,
   * 1, extent]}. The schedule's trace shows the factors.
   */
  public long[] split(String name, long extent, int parts) {
    List<long[]> fs = factorizations(extent, parts);
    int[] choices = new int[fs.size()];
    for (int i = 0; i < choices.length; i++) {
      choices[i] = i;
    }
    return fs.get(knob(name, choices)).clone();
  }

  /** A divisor of {@code extent} (ascending from {@code 1}): knob {@code name} takes its value. */
  public int divisor(String name, long extent) {
    List<Long> ds = divisors(extent);
    int[] choices = new int[ds.size()];
    for (int i = 0; i < choices.length; i++) {
      choices[i] = Math.toIntExact(ds.get(i));
    }
    return knob(name, choices);
  }

  /** The divisors of {@code n}, ascending. */
  public static List<Long> divisors(long n) {
    UserError.check(n > 0, "cannot list the divisors of %d", n);
    List<Long> lo = new ArrayList<>();
    List<Long> hi = new ArrayList<>();
    for (long d = 1; d * d <= n; d++) {
      if (n % d == 0) {
        lo.add(d);
        if (d != n / d) {
          hi.add(0, n / d);
        }
      }
    }
    lo.addAll(hi);
    return lo;
  }

  /**
   * Every way to write {@code n} as an ordered product of {@code parts} positive factors, in
   * lexicographic order of the factors from the outermost: the first is {@code [1, ..., 1, n]}.
   */
  public static List<long[]> factorizations(long n, int parts) {
    UserError.check(parts >= 1, "a split needs at least one part, not %d", parts);
    List<long[]> out = new ArrayList<>();
    factor(n, parts, new long[parts], 0, out);
    return out;
  }

  private static void factor(long n, int parts, long[] cur, int at, List<long[]> out) {
    if (at == parts - 1) {
      cur[at] = n;
      out.add(cur.clone());
      return;
    }
    for (long d : divisors(n)) {
      cur[at] = d;
      factor(n / d, parts, cur, at + 1, out);
    }
  }

  @Override
  public String toString() {
    return chosen.toString();
  }
}
