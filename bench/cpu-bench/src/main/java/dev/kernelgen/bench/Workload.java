package dev.kernelgen.bench;

/**
 * One depthwise convolution problem: input {@code [n, c, h, w]}, filter {@code [c, multiplier,
 * kernel, kernel]}, output {@code [n, c * multiplier, outH, outW]}.
 *
 * <p>Output channel {@code c * multiplier + q} reads input channel {@code c} through filter slice
 * {@code [c][q]}. Pad amounts follow TensorFlow and TVM for SAME: {@code out = ceil(in / stride)},
 * {@code padTotal = max((out - 1) * stride + K - in, 0)}, the smaller half before.
 */
public record Workload(
    String name,
    int n,
    int c,
    int h,
    int w,
    int multiplier,
    int kernel,
    int stride,
    Padding padding,
    int padTop,
    int padLeft,
    int padBottom,
    int padRight,
    int outH,
    int outW) {

  public Workload {
    if (n <= 0 || c <= 0 || h <= 0 || w <= 0) {
      throw new IllegalArgumentException(
          "input shape must be positive, got " + n + "x" + c + "x" + h + "x" + w);
    }
    if (multiplier <= 0 || kernel <= 0 || stride <= 0) {
      throw new IllegalArgumentException(
          "multiplier, kernel and stride must be positive, got m="
              + multiplier
              + " k="
              + kernel
              + " s="
              + stride);
    }
    if (outH <= 0 || outW <= 0) {
      throw new IllegalArgumentException(
          "kernel " + kernel + " does not fit in input " + h + "x" + w + " with " + padding);
    }
  }

  /** The workload with pads and output size computed from the padding mode. */
  public static Workload of(
      int n, int c, int h, int w, int multiplier, int kernel, int stride, Padding padding) {
    int outH = outSize(h, kernel, stride, padding);
    int outW = outSize(w, kernel, stride, padding);
    int padH = padding == Padding.SAME ? Math.max((outH - 1) * stride + kernel - h, 0) : 0;
    int padW = padding == Padding.SAME ? Math.max((outW - 1) * stride + kernel - w, 0) : 0;
    String name =
        n
            + "x"
            + c
            + "x"
            + h
            + "x"
            + w
            + " k"
            + kernel
            + " m"
            + multiplier
            + " s"
            + stride
            + " "
            + padding;
    return new Workload(
        name,
        n,
        c,
        h,
        w,
        multiplier,
        kernel,
        stride,
        padding,
        padH / 2,
        padW / 2,
        padH - padH / 2,
        padW - padW / 2,
        outH,
        outW);
  }

  private static int outSize(int in, int kernel, int stride, Padding padding) {
    return switch (padding) {
      case SAME -> Math.ceilDiv(in, stride);
      case VALID -> in < kernel ? 0 : Math.ceilDiv(in - kernel + 1, stride);
    };
  }

  /** Output channels, {@code c * multiplier}. */
  public int outChannels() {
    return c * multiplier;
  }

  public int inputSize() {
    return n * c * h * w;
  }

  /** Filter elements, {@code c * multiplier * kernel * kernel}. */
  public int filterSize() {
    return c * multiplier * kernel * kernel;
  }

  public int outputSize() {
    return n * outChannels() * outH * outW;
  }

  public long[] inputShape() {
    return new long[] {n, c, h, w};
  }

  public long[] outputShape() {
    return new long[] {n, outChannels(), outH, outW};
  }
}
