/**
 * Property tests: random legal schedule sequences of real operators, each lowered and run on the IR
 * interpreter, generated C and generated Java against the tensor-expression oracle.
 */
package dev.kernelgen.properties;
