/**
 * Tensor expressions: the scalar {@link dev.kernelgen.te.Expr} node list (shared with the loop IR),
 * tensors, placeholder and compute operations, iteration variables, reductions, and the DSL in
 * {@link dev.kernelgen.te.TE}; also the flat {@link dev.kernelgen.te.Buffer} (and its {@link
 * dev.kernelgen.te.MemoryScope}) that a lowered expression's {@link dev.kernelgen.te.Load} reads,
 * so that the loop IR ({@code tir}) depends on this package and never the reverse.
 */
package dev.kernelgen.te;
