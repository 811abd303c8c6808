package dev.kernelgen.lower;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.LaunchGeometry;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.tir.PrimFunc;
import java.util.List;

/**
 * An operator lowered for one target, whole: what the code generators print and the launcher calls.
 * {@code host} is the lowered function over the operator's arguments; on C and Java it is also the
 * one kernel (no launch geometry), on GPU targets it is split into device kernels, each with its
 * launch geometry, launched in order with the {@code temporaries} that the host allocates in device
 * memory between them.
 *
 * @param kernels the functions a code generator prints, in launch order
 * @param temporaries the device buffers the host provides (GPU targets only)
 */
public record LoweredModule(
    Target target, PrimFunc host, List<Kernel> kernels, List<Temporary> temporaries) {
  public LoweredModule {
    kernels = List.copyOf(kernels);
    temporaries = List.copyOf(temporaries);
  }

  /** One kernel and its launch geometry (null on C and Java, which loop in one call). */
  public record Kernel(PrimFunc func, LaunchGeometry geometry) {}

  /** A buffer in device memory of {@code size} elements, allocated by the host. */
  public record Temporary(Buffer buffer, Expr size) {}

  /** The kernels' functions, in launch order: what a code generator prints. */
  public List<PrimFunc> functions() {
    return kernels.stream().map(Kernel::func).toList();
  }

  /** Whether the kernels run on a GPU (CUDA, OpenCL), launched over a grid. */
  public boolean isDevice() {
    return target == Target.CUDA || target == Target.OPENCL;
  }
}
