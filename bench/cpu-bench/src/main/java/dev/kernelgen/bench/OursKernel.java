package dev.kernelgen.bench;

/**
 * Where kernelgen's generated kernels plug into the benchmark: a factory of {@link DepthwiseImpl}
 * per workload.
 *
 * <p>{@link CpuBench#main} finds one through {@link java.util.ServiceLoader} (a class named in
 * {@code META-INF/services/dev.kernelgen.bench.OursKernel} on the class path); {@link CpuBench#run}
 * also takes one directly. With none, the "ours" column is null.
 */
@FunctionalInterface
public interface OursKernel {
  /**
   * The implementation of {@code workload}, followed by scale, shift and relu when {@code fused};
   * null when this workload is not supported (reported as null, not as a failure). Compiling or
   * loading happens here, outside the timed region.
   */
  DepthwiseImpl create(Workload workload, boolean fused);

  /** A short label for tables and logs. */
  default String name() {
    return getClass().getSimpleName();
  }
}
