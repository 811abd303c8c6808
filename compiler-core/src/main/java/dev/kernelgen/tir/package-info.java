/**
 * The loop IR: statements over flat buffers (loops with kinds and thread tags, stores, allocations,
 * barriers), the realize/provide forms that exist before storage flattening, a mutator that keeps
 * unchanged nodes, and a printer.
 */
package dev.kernelgen.tir;
