package dev.kernelgen.eval;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.INT32;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.ProducerStore;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.Store;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IRInterpreterTest {
  private static Buffer param(String name, Expr... shape) {
    return new Buffer(name, FLOAT32, MemoryScope.GLOBAL, List.of(shape));
  }

  private static For thread(Var v, String tag, long extent, Stmt body) {
    return new For(
        v, IntImm.of(0), IntImm.of(extent), ForKind.THREAD_BINDING, tag, List.of(), body);
  }

  @Test
  void vectorAdd() {
    Var n = TE.var("n");
    Buffer a = param("A", n);
    Buffer b = param("B", n);
    Buffer c = param("C", n);
    Var i = new Var("i");
    Stmt body = For.serial(i, IntImm.of(0), n, new Store(c, i, Load.of(a, i).add(Load.of(b, i))));
    PrimFunc f = new PrimFunc("vadd", List.of(a, b, c), List.of(n), body);
    NDArray av = NDArray.random(FLOAT32, 1, 37);
    NDArray bv = NDArray.random(FLOAT32, 2, 37);
    NDArray cv = NDArray.zeros(FLOAT32, 37);
    IRInterpreter.run(f, List.of(av, bv, cv), Map.of(n, 37L));
    for (int k = 0; k < 37; k++) {
      assertThat(cv.getDouble(k))
          .isEqualTo((double) ((float) av.getDouble(k) + (float) bv.getDouble(k)));
    }
  }

  @Test
  void vectorAddOnThreadsWithoutBarrierRunsSerially() {
    Buffer a = param("A", IntImm.of(64));
    Buffer c = param("C", IntImm.of(64));
    Var bx = new Var("bx");
    Var tx = new Var("tx");
    Expr g = bx.mul(16).add(tx);
    Stmt body =
        new For(
            bx,
            IntImm.of(0),
            IntImm.of(4),
            ForKind.THREAD_BINDING,
            "blockIdx.x",
            List.of(),
            thread(tx, "threadIdx.x", 16, new Store(c, g, Load.of(a, g).mul(2))));
    NDArray av = NDArray.random(FLOAT32, 3, 64);
    NDArray cv = NDArray.zeros(FLOAT32, 64);
    IRInterpreter.run(new PrimFunc("k", List.of(a, c), List.of(), body), List.of(av, cv), Map.of());
    for (int k = 0; k < 64; k++) {
      assertThat(cv.getDouble(k)).isEqualTo(av.getDouble(k) * 2);
    }
  }

  /** out[i] = i even ? t[0] + t[3] : -t[1], where t[j] = 2 * A[4i + j] in a local buffer. */
  @Test
  void allocateLetAndIf() {
    Buffer a = param("A", IntImm.of(12));
    Buffer out = param("Out", IntImm.of(3));
    Buffer t = new Buffer("t", FLOAT32, MemoryScope.LOCAL, List.of());
    Var i = new Var("i");
    Var j = new Var("j");
    Var base = new Var("base");
    Stmt fill =
        For.serial(j, IntImm.of(0), IntImm.of(4), new Store(t, j, Load.of(a, base.add(j)).mul(2)));
    Stmt pick =
        new IfThenElse(
            i.floormod(2).eq(IntImm.of(0)),
            new Store(out, i, Load.of(t, IntImm.of(0)).add(Load.of(t, IntImm.of(3)))),
            new Store(out, i, FloatImm.f32(0).sub(Load.of(t, IntImm.of(1)))));
    Stmt body =
        For.serial(
            i,
            IntImm.of(0),
            IntImm.of(3),
            new LetStmt(base, i.mul(4), new Allocate(t, IntImm.of(4), Seq.of(fill, pick))));
    NDArray av = NDArray.random(FLOAT32, 4, 12);
    NDArray ov = NDArray.zeros(FLOAT32, 3);
    IRInterpreter.run(
        new PrimFunc("k", List.of(a, out), List.of(), body), List.of(av, ov), Map.of());
    for (int k = 0; k < 3; k++) {
      double expected =
          k % 2 == 0
              ? (float) ((float) (av.getDouble(4 * k) * 2) + (float) (av.getDouble(4 * k + 3) * 2))
              : -(float) (av.getDouble(4 * k + 1) * 2);
      assertThat(ov.getDouble(k)).isEqualTo(expected);
    }
  }

  @Test
  void unwrittenAllocationReadsAsNaN() {
    Buffer out = param("Out", IntImm.of(2));
    Buffer t = new Buffer("t", FLOAT32, MemoryScope.LOCAL, List.of());
    Stmt body =
        new Allocate(
            t,
            IntImm.of(2),
            Seq.of(
                new Store(t, IntImm.of(0), FloatImm.f32(1)),
                new Store(out, IntImm.of(0), Load.of(t, IntImm.of(0))),
                new Store(out, IntImm.of(1), Load.of(t, IntImm.of(1)))));
    NDArray ov = NDArray.zeros(FLOAT32, 2);
    IRInterpreter.run(new PrimFunc("k", List.of(out), List.of(), body), List.of(ov), Map.of());
    assertThat(ov.getDouble(0)).isEqualTo(1);
    assertThat(ov.getDouble(1)).isNaN();
  }

  @Test
  void outOfBoundsAccessesNameBufferAndIndex() {
    Buffer a = param("A", IntImm.of(4));
    Buffer c = param("C", IntImm.of(4));
    Var i = new Var("i");
    Stmt readPastEnd =
        For.serial(i, IntImm.of(0), IntImm.of(4), new Store(c, i, Load.of(a, i.add(1))));
    assertThatThrownBy(
            () ->
                IRInterpreter.run(
                    new PrimFunc("k", List.of(a, c), List.of(), readPastEnd),
                    List.of(NDArray.zeros(FLOAT32, 4), NDArray.zeros(FLOAT32, 4)),
                    Map.of()))
        .isInstanceOf(CompilerBug.class)
        .hasMessageContaining("load from 'A' at index 4, outside [0, 4)");
    Stmt writeBefore =
        For.serial(i, IntImm.of(0), IntImm.of(4), new Store(c, i.sub(1), Load.of(a, i)));
    assertThatThrownBy(
            () ->
                IRInterpreter.run(
                    new PrimFunc("k", List.of(a, c), List.of(), writeBefore),
                    List.of(NDArray.zeros(FLOAT32, 4), NDArray.zeros(FLOAT32, 4)),
                    Map.of()))
        .isInstanceOf(CompilerBug.class)
        .hasMessageContaining("store to 'C' at index -1");
  }

  @Test
  void selectOnlyLoadsTheTakenBranch() {
    Buffer a = param("A", IntImm.of(4));
    Buffer c = param("C", IntImm.of(5));
    Var i = new Var("i");
    Stmt body =
        For.serial(
            i,
            IntImm.of(0),
            IntImm.of(5),
            new Store(c, i, new Select(i.ge(1), Load.of(a, i.sub(1)), FloatImm.f32(-1))));
    NDArray cv = NDArray.zeros(FLOAT32, 5);
    IRInterpreter.run(
        new PrimFunc("k", List.of(a, c), List.of(), body),
        List.of(NDArray.of(FLOAT32, new long[] {4}, 1, 2, 3, 4), cv),
        Map.of());
    NDArray.assertClose(NDArray.of(FLOAT32, new long[] {5}, -1, 1, 2, 3, 4), cv, 0, 0);
  }

  @Test
  void rejectsUnloweredAndUnflattenedIrAndBadArguments() {
    Tensor t = TE.placeholder("T", FLOAT32, 4);
    Buffer c = param("C", IntImm.of(4));
    Stmt tensorRead = new Store(c, IntImm.of(0), t.at(0));
    assertThatThrownBy(
            () ->
                IRInterpreter.run(
                    new PrimFunc("k", List.of(c), List.of(), tensorRead),
                    List.of(NDArray.zeros(FLOAT32, 4)),
                    Map.of()))
        .isInstanceOf(CompilerBug.class)
        .hasMessageContaining("must be lowered first");
    Stmt producerStore = new ProducerStore(t, List.of(IntImm.of(0)), FloatImm.f32(1));
    assertThatThrownBy(
            () ->
                IRInterpreter.run(
                    new PrimFunc("k", List.of(c), List.of(), producerStore),
                    List.of(NDArray.zeros(FLOAT32, 4)),
                    Map.of()))
        .isInstanceOf(CompilerBug.class)
        .hasMessageContaining("not flattened");
    Var n = TE.var("n");
    Buffer a = param("A", n);
    PrimFunc f =
        new PrimFunc("k", List.of(a), List.of(n), new Store(a, IntImm.of(0), FloatImm.f32(1)));
    assertThatThrownBy(() -> IRInterpreter.run(f, List.of(NDArray.zeros(FLOAT32, 3)), Map.of()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("no value for scalar 'n'");
    assertThatThrownBy(
            () -> IRInterpreter.run(f, List.of(NDArray.zeros(FLOAT32, 3)), Map.of(n, 4L)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("buffer 'A' has shape [4]");
    assertThatThrownBy(() -> IRInterpreter.run(f, List.of(NDArray.zeros(INT32, 4)), Map.of(n, 4L)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("buffer 'A' is float32");
  }

  /**
   * A block of 2 x 16 threads loads a tile of 32 elements (plus a halo of one on each side) into
   * shared memory cooperatively, waits at a barrier, then each thread writes {@code S[31 - t] +
   * S[t] + S[t + 2]}: reads of elements that other threads loaded, far away for {@code 31 - t}.
   * Without barrier semantics, thread 0 would read S[31] before thread 31 wrote it (NaN).
   */
  private static PrimFunc sharedKernel(boolean allocateInsideThreads, int n) {
    Buffer in = param("In", IntImm.of(n));
    Buffer out = param("Out", IntImm.of(n));
    Buffer s = new Buffer("S", FLOAT32, MemoryScope.SHARED, List.of());
    Var bx = new Var("bx");
    Var ty = new Var("ty");
    Var tx = new Var("tx");
    Var t = new Var("t");
    Var g = new Var("g");
    Stmt load =
        Seq.of(
            new Store(s, t.add(1), Load.of(in, g)),
            IfThenElse.of(
                t.eq(IntImm.of(0)),
                new Store(
                    s, IntImm.of(0), new Select(g.ge(1), Load.of(in, g.sub(1)), FloatImm.f32(0)))),
            IfThenElse.of(
                t.eq(IntImm.of(31)),
                new Store(
                    s,
                    IntImm.of(33),
                    new Select(g.add(1).lt(n), Load.of(in, g.add(1)), FloatImm.f32(0)))));
    Stmt compute =
        new Store(
            out, g, Load.of(s, IntImm.of(31).sub(t)).add(Load.of(s, t)).add(Load.of(s, t.add(2))));
    Stmt perThread =
        new LetStmt(
            t,
            ty.mul(16).add(tx),
            new LetStmt(
                g, bx.mul(32).add(t), Seq.of(load, new Barrier(MemoryScope.SHARED), compute)));
    if (allocateInsideThreads) {
      perThread = new Allocate(s, IntImm.of(34), perThread);
    }
    Stmt threads = thread(ty, "threadIdx.y", 2, thread(tx, "threadIdx.x", 16, perThread));
    if (!allocateInsideThreads) {
      threads = new Allocate(s, IntImm.of(34), threads);
    }
    Stmt body =
        new For(
            bx,
            IntImm.of(0),
            IntImm.of(n / 32),
            ForKind.THREAD_BINDING,
            "blockIdx.x",
            List.of(),
            threads);
    return new PrimFunc("stencil", List.of(in, out), List.of(), body);
  }

  private static NDArray sharedKernelReference(NDArray in, int n) {
    NDArray out = NDArray.zeros(FLOAT32, n);
    for (int g = 0; g < n; g++) {
      int base = g / 32 * 32;
      int t = g - base;
      // S[k] holds In[base + k - 1], zero outside the input.
      java.util.function.IntToDoubleFunction s =
          k -> {
            int src = base + k - 1;
            return src >= 0 && src < n ? in.getDouble(src) : 0;
          };
      float v = (float) s.applyAsDouble(31 - t);
      v += (float) s.applyAsDouble(t);
      v += (float) s.applyAsDouble(t + 2);
      out.setDouble(g, v);
    }
    return out;
  }

  @Test
  void sharedMemoryKernelWithBarrierMatchesPlainLoop() {
    int n = 128;
    NDArray in = NDArray.random(FLOAT32, 5, n);
    for (boolean inside : new boolean[] {false, true}) {
      NDArray out = NDArray.zeros(FLOAT32, n);
      IRInterpreter.run(sharedKernel(inside, n), List.of(in, out), Map.of());
      NDArray.assertClose(sharedKernelReference(in, n), out, 0, 0);
    }
  }

  /** A tree reduction in shared memory: a barrier inside a loop, executed six times. */
  @Test
  void treeReductionWithBarrierInALoop() {
    int blocks = 3;
    Buffer in = param("In", IntImm.of(64 * blocks));
    Buffer out = param("Out", IntImm.of(blocks));
    Buffer s = new Buffer("S", FLOAT32, MemoryScope.SHARED, List.of());
    Var bx = new Var("bx");
    Var tx = new Var("tx");
    Var step = new Var("step");
    Var stride = new Var("stride");
    Stmt reduceStep =
        new LetStmt(
            stride,
            IntImm.of(32).floordiv(pow2(step)),
            Seq.of(
                IfThenElse.of(
                    tx.lt(stride),
                    new Store(s, tx, Load.of(s, tx).add(Load.of(s, tx.add(stride))))),
                new Barrier(MemoryScope.SHARED)));
    Stmt perThread =
        Seq.of(
            new Store(s, tx, Load.of(in, bx.mul(64).add(tx))),
            new Barrier(MemoryScope.SHARED),
            For.serial(step, IntImm.of(0), IntImm.of(6), reduceStep),
            IfThenElse.of(tx.eq(IntImm.of(0)), new Store(out, bx, Load.of(s, IntImm.of(0)))));
    Stmt body =
        new For(
            bx,
            IntImm.of(0),
            IntImm.of(blocks),
            ForKind.THREAD_BINDING,
            "blockIdx.x",
            List.of(),
            new Allocate(s, IntImm.of(64), thread(tx, "threadIdx.x", 64, perThread)));
    NDArray iv = NDArray.random(FLOAT32, 6, 64 * blocks);
    NDArray ov = NDArray.zeros(FLOAT32, blocks);
    IRInterpreter.run(
        new PrimFunc("treesum", List.of(in, out), List.of(), body), List.of(iv, ov), Map.of());
    for (int b = 0; b < blocks; b++) {
      float[] v = new float[64];
      for (int k = 0; k < 64; k++) {
        v[k] = (float) iv.getDouble(64 * b + k);
      }
      for (int st = 32; st >= 1; st /= 2) {
        for (int k = 0; k < st; k++) {
          v[k] += v[k + st];
        }
      }
      assertThat(ov.getDouble(b)).isEqualTo((double) v[0]);
    }
  }

  /** 2^step as an expression, for the strides 32, 16, ..., 1. */
  private static Expr pow2(Var step) {
    Expr e = IntImm.of(1);
    // select chain: step == k ? 2^k : ...
    for (int k = 5; k >= 0; k--) {
      e = new Select(step.eq(IntImm.of(k)), IntImm.of(1L << k), e);
    }
    return e;
  }

  @Test
  void barrierInDivergentCodeIsReported() {
    Buffer out = param("Out", IntImm.of(8));
    Var tx = new Var("tx");
    Stmt body =
        thread(
            tx,
            "threadIdx.x",
            8,
            Seq.of(
                IfThenElse.of(tx.lt(4), new Barrier(MemoryScope.SHARED)),
                new Store(out, tx, FloatImm.f32(1))));
    assertThatThrownBy(
            () ->
                IRInterpreter.run(
                    new PrimFunc("k", List.of(out), List.of(), body),
                    List.of(NDArray.zeros(FLOAT32, 8)),
                    Map.of()))
        .isInstanceOf(CompilerBug.class)
        .hasMessageContaining("divergent");
  }

  @Test
  void failureInOneThreadOfABlockIsReported() {
    Buffer out = param("Out", IntImm.of(8));
    Var tx = new Var("tx");
    Stmt body =
        thread(
            tx,
            "threadIdx.x",
            9,
            Seq.of(new Barrier(MemoryScope.SHARED), new Store(out, tx, FloatImm.f32(1))));
    assertThatThrownBy(
            () ->
                IRInterpreter.run(
                    new PrimFunc("k", List.of(out), List.of(), body),
                    List.of(NDArray.zeros(FLOAT32, 8)),
                    Map.of()))
        .isInstanceOf(CompilerBug.class)
        .hasMessageContaining("store to 'Out' at index 8");
  }
}
