/**
 * Other algorithms for an operation, as rewrites of the compute DAG that give the same result with
 * fewer operations: Winograd's minimal filtering for 3x3 convolutions ({@link
 * dev.kernelgen.algo.Winograd}), and {@link dev.kernelgen.algo.ConvRewrite}, which finds the direct
 * convolutions of any DAG (the library's or a user's own loop) and rewrites them. Below {@code
 * topi} (whose {@code conv2dWinograd} builds its stages here) and {@code autosched} (which offers
 * the rewritten DAG as a sketch of its own); depends only on {@code te} and {@code arith}.
 */
package dev.kernelgen.algo;
