/**
 * Code generators that print a lowered {@link dev.kernelgen.tir.PrimFunc} (flat buffers, no
 * realize/provide left) as C, Java, CUDA C or OpenCL C source, one source file per kernel library,
 * and the wrappers of the native toolchains ({@code cc}, {@code nvcc}) that compile it.
 *
 * <p>All four printers share one C-like base in two layers, each an exhaustive switch over its
 * nodes: {@code CLikeExprPrinter} prints expressions (and the helpers they call), {@code
 * CLikePrinter} statements and the module. Names of the IR ({@code i.outer}, {@code A.shared}) are
 * sanitized to identifiers and made unique per function, because the IR distinguishes variables by
 * identity, not by name. Output is deterministic: helpers are emitted in sorted order and names are
 * assigned in traversal order.
 *
 * <p>Integer division in the IR has floor semantics, which C's {@code /} and {@code %} do not have
 * for negative operands, so every target calls a small helper (or {@code Math.floorDiv}).
 *
 * <p>The CPU targets (C, Java) run GPU-scheduled IR with its thread-bound loops as serial loops,
 * which is only correct without barriers: a barrier inside a thread-bound loop is a user error
 * there, rather than a silently wrong result.
 */
package dev.kernelgen.codegen;
