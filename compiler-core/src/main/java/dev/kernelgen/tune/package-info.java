/**
 * Auto-tuning: the configuration space of a schedule's knobs ({@link ConfigSpace}), the search over
 * it ({@link Tuner}: exhaustive for small spaces; for large ones, by default, Ansor's evolutionary
 * search over a learned cost model, or simulated annealing over a nearest-neighbour model; with a
 * trial budget and early stopping), the checks that reject a configuration before it is measured
 * ({@link GpuLimits}), measurement ({@link Measurer}; the measure module's {@code CHarnessMeasurer}
 * runs C kernels in a separate timed process, so a crashing candidate is a failed trial, not a dead
 * build), the expected outputs every candidate is checked against ({@link ReferenceCache}), and the
 * tuning log ({@link TuningLog}, JSON lines that the user commits and that {@code generate} reads
 * to pick the best configuration per operator, target, device and shape).
 *
 * <p>The learned search lives in three packages: {@link dev.kernelgen.tune.features} (what a
 * candidate's lowered loops look like, as a fixed-length vector), {@link dev.kernelgen.tune.model}
 * (gradient-boosted trees, our own, and why) and {@link dev.kernelgen.tune.search} (the model of a
 * task, warmed with other tasks' records, and the evolution). Records written by the evolutionary
 * search carry their candidate's features ({@code feature_set}, {@code features}), so that later
 * searches of other operators and shapes learn from them without lowering their schedules again.
 * The tuner reports after how many trials and seconds 90% of the final speed was reached ({@link
 * Tuner.Result#reachedLine}).
 *
 * <p>Measurement is an interface because what runs kernels on a device lives in the runtime module,
 * which the compiler does not depend on: the Maven plugin and the benchmarks supply measurers for
 * CUDA and OpenCL devices.
 */
package dev.kernelgen.tune;
