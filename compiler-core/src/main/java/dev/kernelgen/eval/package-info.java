/**
 * Reference interpreters: the oracles that every kernelgen test compares with.
 *
 * <ul>
 *   <li>{@link dev.kernelgen.eval.NDArray}: a host tensor in native memory, with a comparison that
 *       reports where two tensors differ.
 *   <li>{@link dev.kernelgen.eval.TensorInterpreter}: evaluates tensor-expression definitions
 *       directly, element by element, every intermediate tensor materialized. It knows nothing of
 *       schedules, so it is the ground truth for them.
 *   <li>{@link dev.kernelgen.eval.IRInterpreter}: runs lowered loop IR without a native compiler,
 *       including GPU kernels: the threads of a block that synchronize at barriers run as virtual
 *       threads with a shared-memory region per block.
 * </ul>
 *
 * <p>Both interpreters compile (through {@code ExprCompiler}: {@code OperationCompiler} for the
 * tensor interpreter, {@code StmtCompiler} for the loop IR one) each expression once into a tree of
 * closures over slots of a frame (one {@code long[]} for integer and boolean values, one {@code
 * double[]} for floating-point values, one array of buffers) rather than walking the expression
 * tree per element: the oracle runs convolutions of about 10^8 multiply-adds in the tests. Integer
 * arithmetic follows the IR's dtypes exactly (int32 wraps, division and modulo floor); float32
 * operations round to float after each operation as C does, except sums: a float32 sum is kept in
 * double and rounded once, so that the oracle gives the sum's value rather than one summation
 * order's rounding errors (which grow with the reduction's length). Index expressions become linear
 * forms ({@code LinearIndex}) evaluated inline; the oracle proves reads in bounds from the ranges
 * of the axes where it can (and then skips the check), and runs the multiply-add loop of a sum of
 * products of reads by stepping offsets.
 */
package dev.kernelgen.eval;
