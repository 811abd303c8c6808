/** The annotations a user puts on kernel spec classes, and the names of the targets. */
package dev.kernelgen.annotations;
