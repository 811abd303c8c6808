/**
 * Tensor expressions: the scalar {@link dev.kernelgen.te.Expr} node list (shared with the loop IR),
 * tensors, placeholder and compute operations, iteration variables, reductions, and the DSL in
 * {@link dev.kernelgen.te.TE}.
 */
package dev.kernelgen.te;
