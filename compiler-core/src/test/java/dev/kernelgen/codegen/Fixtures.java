package dev.kernelgen.codegen;

import static dev.kernelgen.te.TE.cast;
import static dev.kernelgen.te.TE.select;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.Store;
import java.util.List;

/** Hand-built lowered functions, as the lowering pipeline would produce them. */
final class Fixtures {
  private Fixtures() {}

  static Buffer param(String name, DType t, Expr... shape) {
    return new Buffer(name, t, MemoryScope.GLOBAL, List.of(shape));
  }

  static For loop(Var v, Expr min, Expr extent, ForKind kind, String tag, Stmt body) {
    return new For(v, min, extent, kind, tag, List.of(), body);
  }

  /**
   * {@code C[i] = 2.5 * (A[i] + B[i])}, with a parallel outer loop over blocks of 8, a vectorized
   * inner loop into a local buffer (guarded by a select), and a second inner loop whose variable
   * has the same name as the first.
   */
  static PrimFunc vadd() {
    Var n = new Var("n");
    Buffer a = param("A", DType.FLOAT32, n);
    Buffer b = param("B", DType.FLOAT32, n);
    Buffer c = param("C", DType.FLOAT32, n);
    Buffer t = new Buffer("T.local", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Var io = new Var("i.outer");
    Var ii = new Var("i.inner");
    Var ii2 = new Var("i.inner");
    Var idx = new Var("idx");
    Stmt fill =
        loop(
            ii,
            IntImm.of(0),
            IntImm.of(8),
            ForKind.VECTORIZED,
            null,
            new LetStmt(
                idx,
                io.mul(8).add(ii),
                new Store(
                    t,
                    ii,
                    select(idx.lt(n), Load.of(a, idx).add(Load.of(b, idx)), FloatImm.f32(0)))));
    Expr j = io.mul(8).add(ii2);
    Stmt drain =
        For.serial(
            ii2,
            IntImm.of(0),
            IntImm.of(8),
            IfThenElse.of(j.lt(n), new Store(c, j, Load.of(t, ii2).mul(FloatImm.f32(2.5)))));
    Stmt body =
        loop(
            io,
            IntImm.of(0),
            n.add(7).floordiv(8),
            ForKind.PARALLEL,
            null,
            new Allocate(t, IntImm.of(8), Seq.of(fill, drain)));
    return new PrimFunc("vadd", List.of(a, b, c), List.of(n), body);
  }

  /**
   * {@code Q[i] = floordiv(X[i], Y[i]); R[i] = floormod(X[i], Y[i]); W[i] = floordiv(int64(X[i]),
   * -7L) + max(X[i], Y[i])} on int32 and int64: floor semantics with negative operands.
   */
  static PrimFunc floorDivMod() {
    Var n = new Var("n");
    Buffer x = param("X", DType.INT32, n);
    Buffer y = param("Y", DType.INT32, n);
    Buffer q = param("Q", DType.INT32, n);
    Buffer r = param("R", DType.INT32, n);
    Buffer w = param("W", DType.INT64, n);
    Var i = new Var("i");
    Expr xi = Load.of(x, i);
    Expr yi = Load.of(y, i);
    Stmt body =
        For.serial(
            i,
            IntImm.of(0),
            n,
            Seq.of(
                new Store(q, i, xi.floordiv(yi)),
                new Store(r, i, xi.floormod(yi)),
                new Store(
                    w,
                    i,
                    cast(DType.INT64, xi)
                        .floordiv(IntImm.of(DType.INT64, -7))
                        .add(cast(DType.INT64, xi.max(yi))))));
    return new PrimFunc("floor_div_mod", List.of(x, y, q, r, w), List.of(n), body);
  }

  /**
   * A GPU kernel: each block of 64 threads loads its part of A into shared memory, waits at a
   * barrier, and writes it reversed into B; a third thread loop of 32 (shorter than the block)
   * writes the block's first element to the first 32 entries of S.
   */
  static PrimFunc reverseBlocks() {
    Var n = new Var("n");
    Buffer a = param("A", DType.FLOAT32, n);
    Buffer b = param("B", DType.FLOAT32, n);
    Buffer s = new Buffer("A.shared", DType.FLOAT32, MemoryScope.SHARED, List.of());
    Var bx = new Var("i.outer");
    Var tx = new Var("i.inner");
    Var tx2 = new Var("i.inner");
    Var tx3 = new Var("k");
    Stmt load =
        loop(
            tx,
            IntImm.of(0),
            IntImm.of(64),
            ForKind.THREAD_BINDING,
            "threadIdx.x",
            IfThenElse.of(
                bx.mul(64).add(tx).lt(n), new Store(s, tx, Load.of(a, bx.mul(64).add(tx)))));
    Stmt write =
        loop(
            tx2,
            IntImm.of(0),
            IntImm.of(64),
            ForKind.THREAD_BINDING,
            "threadIdx.x",
            IfThenElse.of(
                bx.mul(64).add(tx2).lt(n),
                new Store(b, bx.mul(64).add(tx2), Load.of(s, IntImm.of(63).sub(tx2)))));
    Stmt third =
        loop(
            tx3,
            IntImm.of(0),
            IntImm.of(32),
            ForKind.THREAD_BINDING,
            "threadIdx.x",
            new Store(s, tx3, Load.of(s, IntImm.of(0))));
    Stmt body =
        loop(
            bx,
            IntImm.of(0),
            n.add(63).floordiv(64),
            ForKind.THREAD_BINDING,
            "blockIdx.x",
            new Allocate(
                s,
                IntImm.of(64),
                Seq.of(
                    load,
                    new Barrier(MemoryScope.SHARED),
                    write,
                    new Barrier(MemoryScope.SHARED),
                    third)));
    return new PrimFunc("reverse_blocks", List.of(a, b), List.of(n), body);
  }
}
