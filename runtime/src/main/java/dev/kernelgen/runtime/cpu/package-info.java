/**
 * The C backend: this machine's CPU runs C kernel libraries through the JDK's FFM API ({@link
 * dev.kernelgen.runtime.cpu.CpuDevice}). The library of the best ISA level the CPU supports is
 * chosen ({@link dev.kernelgen.runtime.cpu.CpuIsa}), extracted to a verified private cache ({@link
 * dev.kernelgen.runtime.cpu.NativeLibraryCache}) and loaded for the life of the process; when the
 * loader refuses it, the library's ELF dependencies say which one the machine lacks. Buffers are
 * host memory ({@link dev.kernelgen.runtime.HostBuffer}) that kernels read in place.
 */
package dev.kernelgen.runtime.cpu;
