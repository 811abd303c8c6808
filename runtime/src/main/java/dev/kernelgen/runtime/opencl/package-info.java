/**
 * The OpenCL backend, through JOCL: the device with its own context and in-order profiling queue
 * ({@link dev.kernelgen.runtime.opencl.OpenClDevice}), its memory, programs built from source and
 * cached per device, their kernels, and timers from the kernels' profiling events. {@link
 * dev.kernelgen.runtime.Devices} reaches it through {@link
 * dev.kernelgen.runtime.opencl.OpenClProbe} when OpenCL is asked for, never otherwise.
 *
 * <p>Threads: the setting of a kernel's arguments and its enqueue are one step per kernel.
 */
package dev.kernelgen.runtime.opencl;
