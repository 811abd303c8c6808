/**
 * The CPU benchmark of depthwise convolution: the peers that generated kernels are measured
 * against.
 *
 * <p>Two peers are timed on the same workloads (NCHW float32, filter {@code [C, multiplier, K,
 * K]}): ONNX Runtime, fed a model that {@link dev.kernelgen.bench.OnnxModel} encodes by hand, and
 * {@link dev.kernelgen.bench.JavaLoops}, the plain Java loop that is also the correctness
 * reference. Generated kernels enter through {@link dev.kernelgen.bench.OursKernel}; {@link
 * dev.kernelgen.bench.CpuBench} runs everything and writes the figures as JSON.
 */
package dev.kernelgen.bench;
