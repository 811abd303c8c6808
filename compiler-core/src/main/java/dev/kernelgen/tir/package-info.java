/**
 * The loop IR: statements over flat buffers ({@link dev.kernelgen.te.Buffer}, below this package)
 * (loops with kinds and thread tags, stores, allocations, barriers), the realize/provide forms that
 * exist before storage flattening, a mutator that keeps unchanged nodes, and a printer.
 */
package dev.kernelgen.tir;
