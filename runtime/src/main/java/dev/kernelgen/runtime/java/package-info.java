/**
 * The Java backend: the JVM itself runs generated Java kernels, public static methods called
 * through method handles ({@link dev.kernelgen.runtime.java.JavaDevice}). Needs no native toolchain
 * and no driver.
 */
package dev.kernelgen.runtime.java;
