/**
 * The one compile-and-measure path: a candidate schedule is lowered, printed, compiled and run on a
 * device, checked against the tensor-expression oracle and timed. {@link
 * dev.kernelgen.measure.CHarnessMeasurer} measures C kernels, each in a child process of its own (a
 * crash or a hang is a failed trial); {@link dev.kernelgen.measure.DeviceMeasurer} measures CUDA
 * and OpenCL kernels through the runtime. Both implement {@link dev.kernelgen.tune.Measurer}, the
 * interface the search in {@code compiler-core}'s {@code tune} package drives. No other main code
 * compiles candidates or times kernels ({@code NoOtherMeasurementPathTest}).
 */
package dev.kernelgen.measure;
