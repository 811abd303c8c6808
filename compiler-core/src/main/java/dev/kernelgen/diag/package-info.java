/** The two kinds of failure: {@link UserError} for bad input, {@link CompilerBug} for our bugs. */
package dev.kernelgen.diag;
