/** Arithmetic analysis of index expressions: simplification, constant bounds, proofs. */
package dev.kernelgen.arith;
