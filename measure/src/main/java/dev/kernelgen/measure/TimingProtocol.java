package dev.kernelgen.measure;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How a measurer times a candidate: {@code warmup} untimed calls, then {@code repeats} timed
 * samples of which the median is the result (and the minimum is kept beside it), on {@code clock};
 * {@code cacheFlush}: whether caches are flushed before each sample (no measurer flushes today: the
 * tuned kernels are timed warm, as the launchers call them in a loop). Every tuning record carries
 * it, as {@code versions.timing}, so that records timed differently are told apart.
 */
public record TimingProtocol(int warmup, int repeats, String clock, boolean cacheFlush) {
  public TimingProtocol {
    if (warmup < 0 || repeats < 1) {
      throw new IllegalArgumentException(
          "warm-up " + warmup + " and repeats " + repeats + ": need warm-up >= 0, repeats >= 1");
    }
  }

  /** The key of the protocol in a measurer's versions, and so in every tuning record. */
  public static final String VERSION_KEY = "timing";

  /** One line, as records store it: {@code warmup 3, median of 10, clock ..., no cache flush}. */
  public String describe() {
    return String.format(
        Locale.ROOT,
        "warmup %d, median of %d, %s, %s",
        warmup,
        repeats,
        clock,
        cacheFlush ? "cache flushed" : "no cache flush");
  }

  /** The protocol as a JSON object ({@link dev.kernelgen.json.Json}), for a remote runner. */
  public Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("warmup", warmup);
    j.put("repeats", repeats);
    j.put("clock", clock);
    j.put("cacheFlush", cacheFlush);
    return j;
  }

  /** The protocol read back from {@link #toJson()}'s object. */
  public static TimingProtocol fromJson(Map<?, ?> j) {
    return new TimingProtocol(
        ((Number) j.get("warmup")).intValue(),
        ((Number) j.get("repeats")).intValue(),
        (String) j.get("clock"),
        (Boolean) j.get("cacheFlush"));
  }
}
