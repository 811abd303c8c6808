package dev.kernelgen.topi;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Reducer;
import dev.kernelgen.te.Tensor;
import java.util.List;
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;

/**
 * Every operator of the library in one place: {@code Topi.relu(x)}, {@code Topi.conv2dNchw(...)},
 * {@code Topi.softmax(x, 1)}. Each delegates to the class that defines it ({@link Elementwise},
 * {@link Nn}, {@link Conv}, {@link Linalg}, {@link Pooling}, {@link Reduction}, {@link Transform}),
 * where its code shows how it is written in the DSL; the default schedules are in {@code
 * OpSchedules} and {@code DepthwiseSchedules}. A test checks that no public operator is missing.
 */
public final class Topi {
  private Topi() {}

  // Elementwise
  /**
   * {@code f(a, b)} with broadcasting. See {@link Elementwise#binary(String, Tensor, Tensor,
   * BinaryOperator)}.
   */
  public static Tensor binary(String name, Tensor a, Tensor b, BinaryOperator<Expr> f) {
    return Elementwise.binary(name, a, b, f);
  }

  /** {@code f(x)} elementwise. See {@link Elementwise#unary(String, Tensor, UnaryOperator)}. */
  public static Tensor unary(String name, Tensor x, UnaryOperator<Expr> f) {
    return Elementwise.unary(name, x, f);
  }

  /** See {@link Elementwise#add(Tensor, Tensor)}. */
  public static Tensor add(Tensor a, Tensor b) {
    return Elementwise.add(a, b);
  }

  /** See {@link Elementwise#sub(Tensor, Tensor)}. */
  public static Tensor sub(Tensor a, Tensor b) {
    return Elementwise.sub(a, b);
  }

  /** See {@link Elementwise#mul(Tensor, Tensor)}. */
  public static Tensor mul(Tensor a, Tensor b) {
    return Elementwise.mul(a, b);
  }

  /**
   * Float division (integer tensors: floor division). See {@link Elementwise#div(Tensor, Tensor)}.
   */
  public static Tensor div(Tensor a, Tensor b) {
    return Elementwise.div(a, b);
  }

  /** See {@link Elementwise#maximum(Tensor, Tensor)}. */
  public static Tensor maximum(Tensor a, Tensor b) {
    return Elementwise.maximum(a, b);
  }

  /** See {@link Elementwise#minimum(Tensor, Tensor)}. */
  public static Tensor minimum(Tensor a, Tensor b) {
    return Elementwise.minimum(a, b);
  }

  /** {@code min(max(x, 0), 6)}. See {@link Elementwise#relu6(Tensor)}. */
  public static Tensor relu6(Tensor x) {
    return Elementwise.relu6(x);
  }

  /** {@code 1 / (1 + exp(-x))}. See {@link Elementwise#sigmoid(Tensor)}. */
  public static Tensor sigmoid(Tensor x) {
    return Elementwise.sigmoid(x);
  }

  /** See {@link Elementwise#tanh(Tensor)}. */
  public static Tensor tanh(Tensor x) {
    return Elementwise.tanh(x);
  }

  /** See {@link Elementwise#exp(Tensor)}. */
  public static Tensor exp(Tensor x) {
    return Elementwise.exp(x);
  }

  /**
   * {@code x * s} for a scalar constant {@code s}. See {@link Elementwise#scale(Tensor, double)}.
   */
  public static Tensor scale(Tensor x, double s) {
    return Elementwise.scale(x, s);
  }

  /**
   * {@code x + s} for a scalar constant {@code s}. See {@link Elementwise#addScalar(Tensor,
   * double)}.
   */
  public static Tensor addScalar(Tensor x, double s) {
    return Elementwise.addScalar(x, s);
  }

  /**
   * Per-channel {@code x * scale[c] + shift[c]} along axis {@code axis} of {@code x} (1 for NCHW, 3
   * for NHWC). See {@link Elementwise#scaleShift(Tensor, Tensor, Tensor, int)}.
   */
  public static Tensor scaleShift(Tensor x, Tensor scale, Tensor shift, int axis) {
    return Elementwise.scaleShift(x, scale, shift, axis);
  }

  /**
   * Batch normalization in inference: {@code (x - mean[c]) / sqrt(var[c] + eps) * gamma[c] +
   * beta[c]} along channel axis {@code axis}. See {@link Elementwise#batchNormInference(Tensor,
   * Tensor, Tensor, Tensor, Tensor, double, int)}.
   */
  public static Tensor batchNormInference(
      Tensor x, Tensor gamma, Tensor beta, Tensor mean, Tensor var, double eps, int axis) {
    return Elementwise.batchNormInference(x, gamma, beta, mean, var, eps, axis);
  }

  // Nn
  /**
   * Zero padding of the two last dims of an NCHW tensor: the article's {@code PaddedInput}. See
   * {@link Nn#pad2d(Tensor, Padding, String)}.
   */
  public static Tensor pad2d(Tensor input, Padding p, String name) {
    return Nn.pad2d(input, p, name);
  }

  /**
   * Depthwise 2-d convolution, NCHW: {@code Output[b, c, i, j] = sum over di, dj of Padded[b, c /
   * multiplier, i * stride_h + di * dilation, j * stride_w + dj * dilation] * Filter[c /
   * multiplier, c % multiplier, di, dj]}, with filter {@code [C, multiplier, KH, KW]}. See {@link
   * Nn#depthwiseConv2dNchw(Tensor, Tensor, int, int, Padding, int)}.
   */
  public static Tensor depthwiseConv2dNchw(
      Tensor input, Tensor filter, int strideH, int strideW, Padding padding, int dilation) {
    return Nn.depthwiseConv2dNchw(input, filter, strideH, strideW, padding, dilation);
  }

  /**
   * Per-channel {@code y = x * scale[c] + shift[c]} on an NCHW tensor. See {@link
   * Nn#scaleShift(Tensor, Tensor, Tensor)}.
   */
  public static Tensor scaleShift(Tensor x, Tensor scale, Tensor shift) {
    return Nn.scaleShift(x, scale, shift);
  }

  /**
   * Layer normalisation over the last {@code dims} axes. See {@link Nn#layerNorm(Tensor, Tensor,
   * Tensor, int, double)}.
   */
  public static Tensor layerNorm(Tensor x, Tensor gamma, Tensor beta, int dims, double eps) {
    return Nn.layerNorm(x, gamma, beta, dims, eps);
  }

  /** {@code max(x, 0)}, elementwise. See {@link Nn#relu(Tensor)}. */
  public static Tensor relu(Tensor x) {
    return Nn.relu(x);
  }

  // Conv
  /**
   * {@code Out[b, f, i, j] = sum over c, di, dj of Padded[b, c, i * sh + di * dil, j * sw + dj *
   * dil] * Filter[f, c, di, dj]}, filter {@code [F, C, KH, KW]}. See {@link Conv#conv2dNchw(Tensor,
   * Tensor, int, int, Padding, int)}.
   */
  public static Tensor conv2dNchw(
      Tensor input, Tensor filter, int strideH, int strideW, Padding padding, int dilation) {
    return Conv.conv2dNchw(input, filter, strideH, strideW, padding, dilation);
  }

  /**
   * {@code conv2dNchw(input, filter, 1, 1, padding, 1)} for a 3x3 filter by Winograd's F(m x m, 3 x
   * 3), {@code m} 2 or 4: fewer multiplications, in four stages. See {@link
   * Winograd#conv2dNchw(Tensor, Tensor, Padding, int)}.
   */
  public static Tensor conv2dWinograd(Tensor input, Tensor filter, Padding padding, int m) {
    return Winograd.conv2dNchw(input, filter, padding, m);
  }

  /**
   * Depthwise convolution in NHWC: {@code Out[b, i, j, c] = sum over di, dj of Padded[b, i * sh +
   * di * dil, j * sw + dj * dil, c / m] * Filter[di, dj, c / m, c % m]}, filter {@code [KH, KW, C,
   * m]} (TensorFlow's layout). See {@link Conv#depthwiseConv2dNhwc(Tensor, Tensor, int, int,
   * Padding, int)}.
   */
  public static Tensor depthwiseConv2dNhwc(
      Tensor input, Tensor filter, int strideH, int strideW, Padding padding, int dilation) {
    return Conv.depthwiseConv2dNhwc(input, filter, strideH, strideW, padding, dilation);
  }

  // Linalg
  /** {@code C[i, j] = sum_k A[i, k] * B[k, j]}. See {@link Linalg#matmul(Tensor, Tensor)}. */
  public static Tensor matmul(Tensor a, Tensor b) {
    return Linalg.matmul(a, b);
  }

  /**
   * {@code Y[i, j] = sum_k X[i, k] * W[j, k]}: weights stored as {@code [out, in]}, as TVM's. See
   * {@link Linalg#dense(Tensor, Tensor)}.
   */
  public static Tensor dense(Tensor x, Tensor w) {
    return Linalg.dense(x, w);
  }

  /**
   * {@code C[b, i, j] = sum_k A[b, i, k] * B[b, k, j]}. See {@link Linalg#batchMatmul(Tensor,
   * Tensor)}.
   */
  public static Tensor batchMatmul(Tensor a, Tensor b) {
    return Linalg.batchMatmul(a, b);
  }

  // Pooling
  /** See {@link Pooling#maxPool2d(Tensor, int, int, int, int, Padding)}. */
  public static Tensor maxPool2d(
      Tensor x, int kh, int kw, int strideH, int strideW, Padding padding) {
    return Pooling.maxPool2d(x, kh, kw, strideH, strideW, padding);
  }

  /** See {@link Pooling#avgPool2d(Tensor, int, int, int, int, Padding, boolean)}. */
  public static Tensor avgPool2d(
      Tensor x,
      int kh,
      int kw,
      int strideH,
      int strideW,
      Padding padding,
      boolean countIncludePad) {
    return Pooling.avgPool2d(x, kh, kw, strideH, strideW, padding, countIncludePad);
  }

  /**
   * The maximum over H and W, keeping them as dims of 1: {@code [N, C, 1, 1]}. See {@link
   * Pooling#globalMaxPool(Tensor)}.
   */
  public static Tensor globalMaxPool(Tensor x) {
    return Pooling.globalMaxPool(x);
  }

  /**
   * The mean over H and W, keeping them as dims of 1: {@code [N, C, 1, 1]}. See {@link
   * Pooling#globalAvgPool(Tensor)}.
   */
  public static Tensor globalAvgPool(Tensor x) {
    return Pooling.globalAvgPool(x);
  }

  // Reduction
  /** See {@link Reduction#sum(Tensor, boolean, int[])}. */
  public static Tensor sum(Tensor x, boolean keepDims, int... axes) {
    return Reduction.sum(x, keepDims, axes);
  }

  /** See {@link Reduction#max(Tensor, boolean, int[])}. */
  public static Tensor max(Tensor x, boolean keepDims, int... axes) {
    return Reduction.max(x, keepDims, axes);
  }

  /** See {@link Reduction#min(Tensor, boolean, int[])}. */
  public static Tensor min(Tensor x, boolean keepDims, int... axes) {
    return Reduction.min(x, keepDims, axes);
  }

  /**
   * The mean over {@code axes}: a sum, then an elementwise division by the count. See {@link
   * Reduction#mean(Tensor, boolean, int[])}.
   */
  public static Tensor mean(Tensor x, boolean keepDims, int... axes) {
    return Reduction.mean(x, keepDims, axes);
  }

  /**
   * {@code combiner} over {@code axes} of {@code x} (all axes when none are given); with {@code
   * keepDims} the reduced axes stay as dims of extent 1. See {@link Reduction#reduce(String,
   * Reducer, Tensor, boolean, int[])}.
   */
  public static Tensor reduce(
      String name, Reducer combiner, Tensor x, boolean keepDims, int... axes) {
    return Reduction.reduce(name, combiner, x, keepDims, axes);
  }

  /**
   * {@code exp(x - max) / sum(exp(x - max))} along {@code axis}. See {@link
   * Reduction#softmax(Tensor, int)}.
   */
  public static Tensor softmax(Tensor x, int axis) {
    return Reduction.softmax(x, axis);
  }

  /**
   * {@code x - max - log(sum(exp(x - max)))} along {@code axis}. See {@link
   * Reduction#logSoftmax(Tensor, int)}.
   */
  public static Tensor logSoftmax(Tensor x, int axis) {
    return Reduction.logSoftmax(x, axis);
  }

  /**
   * Softmax along the last axis of a matrix {@code [rows, cols]}, with each row's reductions split
   * into {@code lanes} partial reductions (lane {@code l} covers columns {@code l, l + lanes, ...})
   * and then combined: the formulation that GPU threads of a block (one per lane) compute together,
   * reading the row coalesced ({@link OpSchedules#softmaxLanesGpu}). The combined row maximum and
   * sum are replicated per lane ({@code [rows, lanes]}), so that every lane reads its own copy.
   * Equal to {@link #softmax} up to rounding. See {@link Reduction#softmaxLanes(Tensor, int)}.
   */
  public static Tensor softmaxLanes(Tensor x, int lanes) {
    return Reduction.softmaxLanes(x, lanes);
  }

  // Transform
  /**
   * The elements of {@code x} in row-major order, viewed with {@code shape}; the element counts
   * must agree (checked when both are constant). See {@link Transform#reshape(Tensor, List)}.
   */
  public static Tensor reshape(Tensor x, List<Expr> shape) {
    return Transform.reshape(x, shape);
  }

  /**
   * Output dim {@code d} is input dim {@code perm[d]}. See {@link Transform#transpose(Tensor,
   * int[])}.
   */
  public static Tensor transpose(Tensor x, int... perm) {
    return Transform.transpose(x, perm);
  }

  /** See {@link Transform#nchwToNhwc(Tensor)}. */
  public static Tensor nchwToNhwc(Tensor x) {
    return Transform.nchwToNhwc(x);
  }

  /** See {@link Transform#nhwcToNchw(Tensor)}. */
  public static Tensor nhwcToNchw(Tensor x) {
    return Transform.nhwcToNchw(x);
  }

  /**
   * {@code x} with {@code before[d]} and {@code after[d]} elements of {@code value} around dim d.
   * See {@link Transform#pad(Tensor, int[], int[], double)}.
   */
  public static Tensor pad(Tensor x, int[] before, int[] after, double value) {
    return Transform.pad(x, before, after, value);
  }
}
