/**
 * What {@code kernels:tune} does, free of Maven: compiles the specs, lists the operators of fixed
 * shape per target, measures their configuration spaces on the devices present (C through {@link
 * dev.kernelgen.measure.CHarnessMeasurer}, CUDA and OpenCL through the runtime's devices with
 * {@link dev.kernelgen.measure.DeviceMeasurer}) and appends the trials to the tuning log of each
 * library.
 */
package dev.kernelgen.maven.tune;
