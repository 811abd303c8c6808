package dev.kernelgen.bench;

/**
 * One implementation of one workload, ready to run: reads NCHW {@code in}, filter {@code [C, m, K,
 * K]} and, when fused, per-output-channel {@code scale} and {@code shift}; writes NCHW {@code out}.
 * Arrays are sized for the workload the implementation was made for. A plain (unfused)
 * implementation ignores {@code scale} and {@code shift}, which may then be null.
 */
@FunctionalInterface
public interface DepthwiseImpl {
  void run(float[] in, float[] filter, float[] scale, float[] shift, float[] out);

  /**
   * The call to time, with the arguments bound. An implementation whose kernels read native memory
   * copies the inputs there once, here, as ONNX Runtime's tensors are made once before its timing;
   * the default runs {@link #run} on the arrays.
   */
  default Runnable prepare(float[] in, float[] filter, float[] scale, float[] shift, float[] out) {
    return () -> run(in, filter, scale, shift, out);
  }
}
