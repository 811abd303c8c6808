/**
 * Generation of launcher classes with JavaPoet, from the {@link dev.kernelgen.driver.LibraryModel}
 * the driver returns; Maven-free and tested without Maven. One class per library, one method per
 * operator (for host tensors and for device tensors), shape and dtype checks, dispatch to
 * specialized kernels, launch geometry from the actual dims.
 */
package dev.kernelgen.maven.launcher;
