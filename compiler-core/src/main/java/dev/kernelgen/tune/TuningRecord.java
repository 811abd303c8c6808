package dev.kernelgen.tune;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One line of a tuning log: a configuration of an operator measured on a device.
 *
 * @param operator {@code library/operator}
 * @param target {@code CUDA}, {@code OPENCL}, {@code C} or {@code JAVA}
 * @param device the device's name as its driver reports it
 * @param versions driver and toolchain versions ({@code driver}, {@code toolchain})
 * @param shape the shape of each argument, inputs then outputs
 * @param config the knob values
 * @param trace the schedule's primitives, one per entry
 * @param status a {@link Measurement.Status} name
 * @param medianUs median microseconds per call (NaN unless OK)
 * @param minUs fastest call (NaN unless OK)
 * @param detail why it failed, or empty
 * @param time when it was measured (ISO-8601), for people reading the log
 * @param featureSet the name of the feature set of {@code features} ({@link
 *     dev.kernelgen.tune.features.LoopFeatures#VERSION}), or empty
 * @param features the candidate's features of the lowered loop IR, or empty: a learned cost model
 *     trains on them for other operators and shapes without lowering their schedules again
 */
public record TuningRecord(
    String operator,
    String target,
    String device,
    Map<String, String> versions,
    List<List<Long>> shape,
    Configuration config,
    List<String> trace,
    String status,
    double medianUs,
    double minUs,
    String detail,
    String time,
    String featureSet,
    List<Double> features) {

  /** The format of the lines this version writes; lines of another format are skipped. */
  public static final int FORMAT = 1;

  public TuningRecord {
    Objects.requireNonNull(operator, "operator");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(device, "device");
    versions = Map.copyOf(versions);
    shape = shape.stream().map(List::copyOf).toList();
    Objects.requireNonNull(config, "config");
    trace = List.copyOf(trace);
    Objects.requireNonNull(status, "status");
    detail = detail == null ? "" : detail;
    time = time == null ? "" : time;
    featureSet = featureSet == null ? "" : featureSet;
    features = features == null ? List.of() : List.copyOf(features);
  }

  /** A record without features. */
  public TuningRecord(
      String operator,
      String target,
      String device,
      Map<String, String> versions,
      List<List<Long>> shape,
      Configuration config,
      List<String> trace,
      String status,
      double medianUs,
      double minUs,
      String detail,
      String time) {
    this(
        operator, target, device, versions, shape, config, trace, status, medianUs, minUs, detail,
        time, "", List.of());
  }

  /**
   * A batch of {@code task}'s measurements by {@code measurer} as tuning-log records, stamped with
   * the same time (seconds) and carrying each measurement's features: what every tuner run appends.
   */
  public static List<TuningRecord> of(TuningTask task, Measurer measurer, List<Measurement> batch) {
    String now =
        java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    List<TuningRecord> out = new ArrayList<>();
    for (Measurement x : batch) {
      out.add(
          new TuningRecord(
                  task.operator(),
                  task.target().name(),
                  measurer.deviceName(),
                  measurer.versions(),
                  task.shape(),
                  x.config(),
                  x.trace(),
                  x.status().name(),
                  x.medianUs(),
                  x.minUs(),
                  x.detail(),
                  now)
              .withFeatures(x));
    }
    return out;
  }

  /** This record with {@code m}'s features (of the current feature set), if it has any. */
  public TuningRecord withFeatures(Measurement m) {
    if (m.features().isEmpty()) {
      return this;
    }
    return new TuningRecord(
        operator,
        target,
        device,
        versions,
        shape,
        config,
        trace,
        status,
        medianUs,
        minUs,
        detail,
        time,
        dev.kernelgen.tune.features.LoopFeatures.VERSION,
        m.features());
  }

  public boolean isOk() {
    return status.equals(Measurement.Status.OK.name());
  }

  /** The record as one line of JSON, without the newline. */
  public String toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("format", FORMAT);
    j.put("operator", operator);
    j.put("target", target);
    j.put("device", device);
    j.put("versions", new TreeMap<>(versions));
    j.put("shape", shape);
    j.put("config", config.values());
    j.put("status", status);
    j.put("median_us", round(medianUs));
    j.put("min_us", round(minUs));
    j.put("trace", trace);
    if (!detail.isEmpty()) {
      j.put("detail", detail);
    }
    j.put("time", time);
    if (!features.isEmpty()) {
      j.put("feature_set", featureSet);
      j.put("features", features.stream().map(v -> Math.round(v * 1e4) / 1e4).toList());
    }
    return Json.line(j);
  }

  private static Double round(double us) {
    return Double.isNaN(us) ? null : Math.round(us * 1000) / 1000.0;
  }

  /**
   * Reads a line written by {@link #toJson}.
   *
   * @throws IllegalArgumentException when the line is not JSON, not of {@link #FORMAT}, lacks a
   *     member, has one of the wrong type, or is a successful record whose times are not positive
   */
  @SuppressWarnings("unchecked")
  public static TuningRecord parse(String line) {
    Object o = Json.parse(line);
    if (!(o instanceof Map<?, ?> m)) {
      throw new IllegalArgumentException("not a JSON object");
    }
    Object format = m.get("format");
    if (!(format instanceof Integer f) || f != FORMAT) {
      throw new IllegalArgumentException(
          "format " + format + " is not this version's format " + FORMAT);
    }
    try {
      Map<String, String> versions = new TreeMap<>();
      if (m.get("versions") instanceof Map<?, ?> vm) {
        vm.forEach((k, v) -> versions.put(String.valueOf(k), String.valueOf(v)));
      }
      List<List<Long>> shape = new ArrayList<>();
      for (Object dims : (List<Object>) require(m, "shape")) {
        List<Long> ds = new ArrayList<>();
        for (Object d : (List<Object>) dims) {
          ds.add(((Number) d).longValue());
        }
        shape.add(ds);
      }
      Map<String, Integer> config = new TreeMap<>();
      ((Map<String, Object>) require(m, "config"))
          .forEach((k, v) -> config.put(k, ((Number) v).intValue()));
      List<String> trace = new ArrayList<>();
      if (m.get("trace") instanceof List<?> tl) {
        tl.forEach(t -> trace.add(String.valueOf(t)));
      }
      String status = (String) require(m, "status");
      double median = number(m, "median_us");
      double min = number(m, "min_us");
      if (status.equals(Measurement.Status.OK.name()) && !(median > 0 && min > 0)) {
        throw new IllegalArgumentException(
            "a successful record needs positive times, has median_us "
                + m.get("median_us")
                + " and min_us "
                + m.get("min_us"));
      }
      return new TuningRecord(
          (String) require(m, "operator"),
          (String) require(m, "target"),
          (String) require(m, "device"),
          versions,
          shape,
          Configuration.of(config),
          trace,
          status,
          median,
          min,
          m.get("detail") instanceof String d ? d : "",
          m.get("time") instanceof String t ? t : "",
          m.get("feature_set") instanceof String fs ? fs : "",
          features(m));
    } catch (ClassCastException | NullPointerException | UserError e) {
      throw new IllegalArgumentException("a member has the wrong type: " + e.getMessage(), e);
    }
  }

  /** The stored feature vector, or empty (a null or non-number entry drops it: it is optional). */
  private static List<Double> features(Map<?, ?> m) {
    if (!(m.get("features") instanceof List<?> l)) {
      return List.of();
    }
    List<Double> out = new ArrayList<>();
    for (Object v : l) {
      if (!(v instanceof Number n)) {
        return List.of();
      }
      out.add(n.doubleValue());
    }
    return out;
  }

  private static Object require(Map<?, ?> m, String name) {
    Object v = m.get(name);
    if (v == null) {
      throw new IllegalArgumentException("member '" + name + "' is missing");
    }
    return v;
  }

  /** A time: a number, or NaN when absent or null (failed records have none). */
  private static double number(Map<?, ?> m, String name) {
    return switch (m.get(name)) {
      case null -> Double.NaN;
      case Number n -> n.doubleValue();
      case Object o ->
          throw new IllegalArgumentException("member '" + name + "' is not a number: " + o);
    };
  }
}
