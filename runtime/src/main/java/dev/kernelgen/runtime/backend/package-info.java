/**
 * What the backends share, written once: the host-device copy loop, the skeleton of a loaded module
 * and its function cache, the devices whose memory is the host's, the marshalling of kernel
 * arguments by parameter kind, the pointers of host kernels and the wall-clock timer. Public only
 * because the backends sit in packages of their own ({@code dev.kernelgen.runtime.cuda}, {@code
 * .opencl}, {@code .cpu}, {@code .java}); not for users or generated launchers, which call {@code
 * dev.kernelgen.runtime} and {@code dev.kernelgen.runtime.launch}.
 */
package dev.kernelgen.runtime.backend;
