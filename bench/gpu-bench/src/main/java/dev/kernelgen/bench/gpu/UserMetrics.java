package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import java.util.List;

/**
 * Operators a user writes for metrics and post-processing (the floor table's last rows, after
 * {@link UserStencils}): a reduction whose body is not a product (squared distances), two
 * reductions of one row feeding an epilogue, a reduction masked from the other side (a suffix max),
 * a window both strided and dilated, a window over an activation computed before it, and a long 1-d
 * window (a FIR filter).
 */
final class UserMetrics {
  private UserMetrics() {}

  static List<FloorBench.Op> all() {
    return List.of(
        pairwiseDistances(),
        minMaxRows(),
        suffixMax(),
        depthwiseStridedDilated(),
        preActivationDepthwise(),
        firFilter());
  }

  /**
   * A 63-tap FIR filter over 16 signals, {@code y[b, i] = sum_t x[b, i + t] * h[t]}: [16, 20000]
   * (its C pick once ran 7x slower than its floor, each output's sum through memory).
   */
  static FloorBench.Op firFilter() {
    Tensor x = placeholder("X", FLOAT32, 16, 20062);
    Tensor h = placeholder("Taps", FLOAT32, 63);
    IterVar t = reduceAxis(63, "t");
    Tensor y =
        compute(
            "Fir", shape(16, 20000), (b, i) -> sum(x.at(b, i.add(t.var())).mul(h.at(t.var())), t));
    return FloorBench.Op.library("user_fir63_16x20000", List.of(x, h), y);
  }

  /** {@code d[i, j] = sum_k (a[i, k] - b[j, k])^2}: nearest-neighbour search, [1024, 1024, 64]. */
  static FloorBench.Op pairwiseDistances() {
    Tensor a = placeholder("A", FLOAT32, 1024, 64);
    Tensor b = placeholder("B", FLOAT32, 1024, 64);
    IterVar k = reduceAxis(64, "k");
    Tensor d =
        compute(
            "SqDist",
            shape(1024, 1024),
            (i, j) -> {
              Expr diff = a.at(i, k.var()).sub(b.at(j, k.var()));
              return sum(diff.mul(diff), k);
            });
    return FloorBench.Op.library("user_pairwise_sqdist_1024x1024x64", List.of(a, b), d);
  }

  /** Each row scaled to [0, 1] by its own min and max: [4096, 1024]. */
  static FloorBench.Op minMaxRows() {
    Tensor x = placeholder("X", FLOAT32, 4096, 1024);
    IterVar k1 = reduceAxis(1024, "k1");
    IterVar k2 = reduceAxis(1024, "k2");
    Tensor hi = compute("RowMax", shape(4096), i -> TE.max(x.at(i, k1.var()), k1));
    Tensor lo = compute("RowMin", shape(4096), i -> TE.min(x.at(i, k2.var()), k2));
    Tensor y =
        compute(
            "MinMax",
            x.shape(),
            (i, j) -> x.at(i, j).sub(lo.at(i)).div(hi.at(i).sub(lo.at(i)).add(1e-6)));
    return FloorBench.Op.library("user_minmax_rows_4096x1024", List.of(x), y);
  }

  /** The running max from the right, {@code y[i, j] = max_{k >= j} x[i, k]}: [256, 1024]. */
  static FloorBench.Op suffixMax() {
    Tensor x = placeholder("X", FLOAT32, 256, 1024);
    IterVar k = reduceAxis(1024, "k");
    Tensor y =
        compute(
            "SuffixMax",
            x.shape(),
            (i, j) -> TE.max(select(k.var().ge(j), x.at(i, k.var()), Double.NEGATIVE_INFINITY), k));
    return FloorBench.Op.library("user_suffix_max_256x1024", List.of(x), y);
  }

  /**
   * A 3x3 depthwise filter with stride 2 and dilation 2, its padding of 2 inside the sum: [1, 128,
   * 56, 56] to [1, 128, 28, 28].
   */
  static FloorBench.Op depthwiseStridedDilated() {
    Tensor x = placeholder("X", FLOAT32, 1, 128, 56, 56);
    Tensor w = placeholder("W", FLOAT32, 128, 3, 3);
    IterVar ky = reduceAxis(3, "ky");
    IterVar kx = reduceAxis(3, "kx");
    Tensor y =
        compute(
            "DepthwiseS2D2",
            shape(1, 128, 28, 28),
            (n, c, i, j) -> {
              Expr iy = i.mul(2).add(ky.var().mul(2)).sub(2);
              Expr ix = j.mul(2).add(kx.var().mul(2)).sub(2);
              Expr in =
                  select(
                      iy.ge(0).and(iy.lt(56)).and(ix.ge(0)).and(ix.lt(56)),
                      x.at(n, c, iy, ix),
                      0.0);
              return sum(in.mul(w.at(c, ky.var(), kx.var())), ky, kx);
            });
    return FloorBench.Op.library("user_depthwise_s2_d2_1x128x56x56", List.of(x, w), y);
  }

  /**
   * A pre-activation block's 3x3 depthwise filter: {@code relu(x * scale[c] + shift[c])} computed
   * as a stage, then read through a window with its padding of 1 inside the sum: [1, 128, 56, 56].
   */
  static FloorBench.Op preActivationDepthwise() {
    Tensor x = placeholder("X", FLOAT32, 1, 128, 56, 56);
    Tensor scale = placeholder("Scale", FLOAT32, 128);
    Tensor shift = placeholder("Shift", FLOAT32, 128);
    Tensor w = placeholder("W", FLOAT32, 128, 3, 3);
    Tensor act =
        compute(
            "Act",
            shape(1, 128, 56, 56),
            (n, c, i, j) -> TE.maximum(x.at(n, c, i, j).mul(scale.at(c)).add(shift.at(c)), 0.0));
    Tensor y = UserStencils.depthwiseSame("PreActDepthwise", act, w);
    return FloorBench.Op.library(
        "user_preact_depthwise_1x128x56x56", List.of(x, scale, shift, w), y);
  }
}
