/**
 * The build of kernel libraries from spec classes, without Maven: {@link
 * dev.kernelgen.driver.KernelDriver} takes a {@link dev.kernelgen.driver.GenerateRequest} (loaded
 * spec classes, targets, output directory, native toolchain, knob configurations), writes the
 * kernels and a manifest per library, and returns a {@link dev.kernelgen.driver.LibraryModel} per
 * library from which the Maven plugin generates the launcher classes.
 */
package dev.kernelgen.driver;
