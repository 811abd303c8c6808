/**
 * The Maven goals of kernelgen. Mojos only turn their parameters into immutable settings and hand
 * them to Maven-free code ({@link dev.kernelgen.maven.generate}).
 */
package dev.kernelgen.maven;
