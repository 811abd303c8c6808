package dev.kernelgen.measure;

import dev.kernelgen.tune.Measurement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link Runner} measured of one built candidate: OK with its median and fastest sample in
 * microseconds, or how it failed and why, and the timing protocol it ran under. Serializable
 * ({@link #toJson}).
 */
public record RunResult(
    Measurement.Status status,
    double medianUs,
    double minUs,
    String detail,
    TimingProtocol timing) {
  public RunResult {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(timing, "timing");
    detail = detail == null ? "" : detail;
  }

  public static RunResult ok(double medianUs, double minUs, TimingProtocol timing) {
    return new RunResult(Measurement.Status.OK, medianUs, minUs, "", timing);
  }

  public static RunResult failed(Measurement.Status status, String why, TimingProtocol timing) {
    return new RunResult(status, Double.NaN, Double.NaN, why, timing);
  }

  public boolean ok() {
    return status == Measurement.Status.OK;
  }

  /** The tuning trial of {@code build} this result is. */
  public Measurement toMeasurement(BuildResult build) {
    return ok()
        ? Measurement.ok(build.config(), medianUs, minUs, build.trace())
        : Measurement.failed(build.config(), status, build.trace(), detail);
  }

  public Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("status", status.name());
    j.put("medianUs", medianUs);
    j.put("minUs", minUs);
    j.put("detail", detail);
    j.put("timing", timing.toJson());
    return j;
  }

  public static RunResult fromJson(Object o) {
    Map<?, ?> j = (Map<?, ?>) o;
    return new RunResult(
        Measurement.Status.valueOf((String) j.get("status")),
        number(j.get("medianUs")),
        number(j.get("minUs")),
        (String) j.get("detail"),
        TimingProtocol.fromJson((Map<?, ?>) j.get("timing")));
  }

  /** A number as JSON holds it: NaN is written as null. */
  static double number(Object o) {
    return o == null ? Double.NaN : ((Number) o).doubleValue();
  }
}
