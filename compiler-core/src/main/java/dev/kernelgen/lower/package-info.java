/**
 * Lowering from a schedule to the loop IR: bound inference, loop-nest construction with attached
 * and inlined stages, and a visible list of small passes ({@link dev.kernelgen.lower.Lower}).
 */
package dev.kernelgen.lower;
