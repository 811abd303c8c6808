/**
 * Features of a candidate's lowered loop IR for the learned cost model, in the manner of Ansor's:
 * {@link LoopFeatures} walks the {@link dev.kernelgen.tir.PrimFunc} that {@link
 * dev.kernelgen.lower.Lower} makes of a candidate's schedule and summarises every store (its
 * arithmetic, the annotations of its loops, the memory its accesses touch at each loop level) and
 * the kernel as a whole (kernels, launch geometry, allocations) in a fixed-length vector of
 * numbers. No device and no C compiler is involved: a candidate costs its lowering plus one walk.
 */
package dev.kernelgen.tune.features;
