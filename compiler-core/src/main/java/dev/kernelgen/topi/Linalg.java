package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;

/** Matrix products: matmul, dense (a fully connected layer) and batched matmul. */
public final class Linalg {
  private Linalg() {}

  /** {@code C[i, j] = sum_k A[i, k] * B[k, j]}. */
  public static Tensor matmul(Tensor a, Tensor b) {
    check2d("matmul", a);
    check2d("matmul", b);
    sameDim("matmul", a, 1, b, 0);
    IterVar k = reduceAxis(a.shape().get(1), "k");
    return Transform.tagged(
        compute(
            "MatMul",
            shape(a.shape().get(0), b.shape().get(1)),
            (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k)),
        OpSchedules.MATMUL);
  }

  /** {@code Y[i, j] = sum_k X[i, k] * W[j, k]}: weights stored as {@code [out, in]}, as TVM's. */
  public static Tensor dense(Tensor x, Tensor w) {
    check2d("dense", x);
    check2d("dense", w);
    sameDim("dense", x, 1, w, 1);
    IterVar k = reduceAxis(x.shape().get(1), "k");
    return Transform.tagged(
        compute(
            "Dense",
            shape(x.shape().get(0), w.shape().get(0)),
            (i, j) -> sum(x.at(i, k.var()).mul(w.at(j, k.var())), k)),
        OpSchedules.MATMUL);
  }

  /** {@code C[b, i, j] = sum_k A[b, i, k] * B[b, k, j]}. */
  public static Tensor batchMatmul(Tensor a, Tensor b) {
    UserError.check(
        a.ndim() == 3 && b.ndim() == 3,
        "batch_matmul needs [B, M, K] and [B, K, N]: '%s' has %d dims, '%s' %d",
        a.name(),
        a.ndim(),
        b.name(),
        b.ndim());
    sameDim("batch_matmul", a, 0, b, 0);
    sameDim("batch_matmul", a, 2, b, 1);
    IterVar k = reduceAxis(a.shape().get(2), "k");
    return compute(
        "BatchMatMul",
        shape(a.shape().get(0), a.shape().get(1), b.shape().get(2)),
        (bb, i, j) -> sum(a.at(bb, i, k.var()).mul(b.at(bb, k.var(), j)), k));
  }

  private static void check2d(String op, Tensor t) {
    UserError.check(
        t.ndim() == 2, "%s: '%s' must be a matrix, has %d dims", op, t.name(), t.ndim());
  }

  static void sameDim(String op, Tensor a, int da, Tensor b, int db) {
    Expr x = a.shape().get(da);
    Expr y = b.shape().get(db);
    UserError.check(
        Simplifier.simplify(x.sub(y)) instanceof IntImm z && z.value() == 0,
        "%s: dim %d of '%s' is %s but dim %d of '%s' is %s",
        op,
        da,
        a.name(),
        x.show(),
        db,
        b.name(),
        y.show());
  }
}
