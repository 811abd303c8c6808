package dev.kernelgen.tune;

import java.util.List;
import java.util.Objects;

/**
 * What measuring one configuration gave.
 *
 * @param medianUs median time of one call in microseconds (NaN unless {@link Status#OK})
 * @param minUs fastest call in microseconds (NaN unless OK)
 * @param trace the schedule's trace for this configuration (empty when it could not be built)
 * @param detail why it failed, or empty
 * @param features the candidate's {@link dev.kernelgen.tune.features.LoopFeatures} (empty when not
 *     computed), kept in its record so that later searches can learn from it (transfer)
 */
public record Measurement(
    Configuration config,
    Status status,
    double medianUs,
    double minUs,
    List<String> trace,
    String detail,
    List<Double> features) {

  /** How a trial ended. */
  public enum Status {
    /** Ran, matched the oracle, timed. */
    OK,
    /** Rejected before measuring: over the device's limits, or the schedule does not apply. */
    INVALID,
    /** The compiler (ours, cc, nvcc, the OpenCL driver) rejected it. */
    COMPILE_ERROR,
    /** It crashed or the device reported an error. */
    RUNTIME_ERROR,
    /** It ran but its output differs from the oracle's. */
    WRONG,
    /** It ran longer than allowed. */
    TIMEOUT
  }

  public Measurement {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(status, "status");
    trace = List.copyOf(trace);
    detail = detail == null ? "" : detail;
    features = features == null ? List.of() : List.copyOf(features);
  }

  /** A measurement without features. */
  public Measurement(
      Configuration config,
      Status status,
      double medianUs,
      double minUs,
      List<String> trace,
      String detail) {
    this(config, status, medianUs, minUs, trace, detail, List.of());
  }

  /** This measurement with the candidate's features. */
  public Measurement withFeatures(double[] x) {
    return new Measurement(
        config,
        status,
        medianUs,
        minUs,
        trace,
        detail,
        x == null ? List.of() : java.util.Arrays.stream(x).boxed().toList());
  }

  public static Measurement ok(Configuration c, double medianUs, double minUs, List<String> trace) {
    return new Measurement(c, Status.OK, medianUs, minUs, trace, "");
  }

  public static Measurement failed(
      Configuration c, Status status, List<String> trace, String detail) {
    return new Measurement(c, status, Double.NaN, Double.NaN, trace, detail);
  }

  public boolean isOk() {
    return status == Status.OK;
  }
}
