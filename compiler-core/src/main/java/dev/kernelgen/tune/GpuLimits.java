package dev.kernelgen.tune;

import dev.kernelgen.codegen.LaunchGeometry;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;

/**
 * A GPU's per-block limits, as the device reports them (CUDA's {@code MAX_THREADS_PER_BLOCK} and
 * {@code MAX_SHARED_MEMORY_PER_BLOCK}, OpenCL's {@code CL_DEVICE_MAX_WORK_GROUP_SIZE} and {@code
 * CL_DEVICE_LOCAL_MEM_SIZE}): a configuration over them cannot launch and is rejected before it is
 * compiled.
 */
public record GpuLimits(long maxThreadsPerBlock, long maxSharedBytesPerBlock) {

  /** Limits that every CUDA GPU since compute capability 2.0 meets. */
  public static GpuLimits cudaDefault() {
    return new GpuLimits(1024, 48 * 1024);
  }

  /**
   * Why the lowered {@code f} cannot run within these limits, or null when it can: the threads per
   * block of each kernel, and the sum of its shared allocations (elements times element size).
   */
  public String check(PrimFunc f) {
    for (PrimFunc k : SplitHostDevice.split(f).kernels()) {
      var threads = LaunchGeometry.of(k).threadsPerBlock();
      if (threads.isPresent() && threads.getAsLong() > maxThreadsPerBlock) {
        return "kernel "
            + k.name()
            + " uses "
            + threads.getAsLong()
            + " threads per block, more than the device's "
            + maxThreadsPerBlock;
      }
      long shared = sharedBytes(k.body());
      if (shared > maxSharedBytesPerBlock) {
        return "kernel "
            + k.name()
            + " uses "
            + shared
            + " bytes of shared memory per block, more than the device's "
            + maxSharedBytesPerBlock;
      }
    }
    return null;
  }

  /** Bytes of shared memory a kernel body allocates (sizes that are not constants count as 0). */
  public static long sharedBytes(Stmt body) {
    long[] sum = {0};
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        if (s instanceof Allocate a
            && a.buffer().scope() == MemoryScope.SHARED
            && a.size() instanceof IntImm n) {
          sum[0] += n.value() * a.buffer().dtype().bytes();
        }
        super.visit(s);
      }
    }.visit(body);
    return sum[0];
  }
}
