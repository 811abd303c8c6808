/** The operator library: common operators written in the tensor-expression DSL. */
package dev.kernelgen.topi;
