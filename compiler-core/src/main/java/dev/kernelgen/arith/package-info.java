/**
 * Arithmetic analysis of index expressions: simplification, constant bounds, proofs.
 *
 * <p>{@link dev.kernelgen.arith.Simplifier} is the whole public API, with {@link
 * dev.kernelgen.arith.ConstIntBound} for bounds. Inside: {@code LinearForm} is the canonical form
 * of integer sums ({@code sum(coeff * term) + constant}, as TVM's canonical simplifier), {@code
 * ExprSimplifier} the rewrite rules (floor division and modulo, min/max, comparisons decided by
 * bounding {@code a - b}) with {@code ConstantFolding} and {@code LogicRules}, {@code
 * BoundAnalyzer} the constant interval analysis, and {@code StmtSimplifier} the statement pass that
 * tracks loop and let bounds.
 *
 * <p>Rules assume that index arithmetic does not overflow (as TVM and Halide do); constant folding
 * that would overflow the dtype is not done, so the printed IR keeps what the source said.
 */
package dev.kernelgen.arith;
