package dev.kernelgen.tune;

import java.util.List;
import java.util.Map;

/**
 * Measures configurations of a task on one device. An implementation compiles the batch's
 * candidates in parallel where it can (compilers run as separate processes), then runs them one at
 * a time (runs must not share the device), each with warm-up and repeats, checks each against the
 * oracle once, and reports a failure as a {@link Measurement} rather than throwing.
 */
public interface Measurer extends AutoCloseable {
  /** The device's name as the tuning log records it (for example {@code "NVIDIA H200"}). */
  String deviceName();

  /**
   * Driver and toolchain versions, for the log (keys such as {@code driver}, {@code toolchain}).
   */
  Map<String, String> versions();

  /** The measurements of {@code batch}, in its order. */
  List<Measurement> measure(TuningTask task, List<Configuration> batch);

  /** Frees what the measurer keeps between batches (reference data, temporary files). */
  @Override
  default void close() {}
}
