package dev.kernelgen.autosched;

/**
 * Estimates the cost of a generated schedule without running it: what the untuned pick minimises
 * ({@link AutoScheduler#untunedConfig}). {@link AnalyticPredictor} is the shipped model; a learned
 * model (trained on tuning records) can take its place. It must be deterministic, so that two
 * builds pick the same schedule.
 */
public interface Predictor {
  /** The estimated cost of {@code c}, in arbitrary units: lower is faster. */
  double cost(Candidate c);
}
