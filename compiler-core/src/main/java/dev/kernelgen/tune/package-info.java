/**
 * Auto-tuning: the configuration space of a schedule's knobs ({@link ConfigSpace}), the search over
 * it ({@link Tuner}: exhaustive for small spaces, random sampling and simulated annealing over a
 * nearest-neighbour cost model for large ones, with a trial budget and early stopping), the checks
 * that reject a configuration before it is measured ({@link GpuLimits}), measurement ({@link
 * Measurer}; the measure module's {@code CHarnessMeasurer} runs C kernels in a separate timed
 * process, so a crashing candidate is a failed trial, not a dead build), and the tuning log ({@link
 * TuningLog}, JSON lines that the user commits and that {@code generate} reads to pick the best
 * configuration per operator, target, device and shape).
 *
 * <p>Measurement is an interface because what runs kernels on a device lives in the runtime module,
 * which the compiler does not depend on: the Maven plugin and the benchmarks supply measurers for
 * CUDA and OpenCL devices.
 */
package dev.kernelgen.tune;
