/**
 * The CUDA backend, through JCuda's driver API ({@code libcuda} alone on the machine): the device
 * and its primary context ({@link dev.kernelgen.runtime.cuda.CudaDevice}), its memory, the loading
 * of fatbins, cubins and PTX, modules and their functions, event timers and graphs ({@link
 * dev.kernelgen.runtime.cuda.CudaGraph}). Only this package and {@code .opencl} load a GPU driver's
 * classes: {@link dev.kernelgen.runtime.Devices} reaches it through {@link
 * dev.kernelgen.runtime.cuda.CudaProbe} when CUDA is asked for, never otherwise.
 */
package dev.kernelgen.runtime.cuda;
