package dev.kernelgen.topi;

import dev.kernelgen.diag.UserError;

/**
 * Padding of a 2-d window operator: explicit amounts per side, or computed from a mode as
 * TensorFlow and TVM do ({@code SAME}: output size {@code ceil(in / stride)}, the extra row or
 * column at the bottom and right; {@code VALID}: none).
 */
public record Padding(int top, int left, int bottom, int right) {
  public Padding {
    UserError.check(
        top >= 0 && left >= 0 && bottom >= 0 && right >= 0,
        "padding must not be negative: %d, %d, %d, %d",
        top,
        left,
        bottom,
        right);
  }

  public static Padding valid() {
    return new Padding(0, 0, 0, 0);
  }

  /** SAME padding for an input of {@code inH x inW}. */
  public static Padding same(
      int inH, int inW, int kernelH, int kernelW, int strideH, int strideW, int dilation) {
    int effH = (kernelH - 1) * dilation + 1;
    int effW = (kernelW - 1) * dilation + 1;
    int outH = Math.ceilDiv(inH, strideH);
    int outW = Math.ceilDiv(inW, strideW);
    int padH = Math.max((outH - 1) * strideH + effH - inH, 0);
    int padW = Math.max((outW - 1) * strideW + effW - inW, 0);
    return new Padding(padH / 2, padW / 2, padH - padH / 2, padW - padW / 2);
  }

  /** {@code SAME}, {@code VALID}. */
  public static Padding of(
      String mode,
      int inH,
      int inW,
      int kernelH,
      int kernelW,
      int strideH,
      int strideW,
      int dilation) {
    return switch (mode.toUpperCase()) {
      case "SAME" -> same(inH, inW, kernelH, kernelW, strideH, strideW, dilation);
      case "VALID" -> valid();
      default -> throw new UserError("unknown padding mode '" + mode + "' (SAME or VALID)");
    };
  }
}
