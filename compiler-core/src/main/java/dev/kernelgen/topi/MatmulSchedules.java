package dev.kernelgen.topi;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;

/** The library's matmul schedules (CPU and GPU); {@link OpSchedules} is their public entry. */
final class MatmulSchedules {
  private MatmulSchedules() {}

  /**
   * The CPU schedule of {@code out}: a matmul ({@link Linalg#matmul}, {@link Linalg#dense}),
   * possibly followed by elementwise stages.
   *
   * <p>Register blocking: the output is computed in micro-tiles of {@code tile_i} rows by {@code
   * tile_j} columns, accumulated in a local tile (a small stack array that the C compiler keeps in
   * vector registers, the tile's rows unrolled and its columns vectorized) while the reduction runs
   * outside it ({@code tile_k} steps unrolled): each step broadcasts {@code tile_i} elements of A
   * and loads one vector row of B for {@code tile_i} fused multiply-adds. The column panels of
   * {@code tile_j} columns run in parallel; each first copies its {@code K x tile_j} panel of B to
   * a contiguous buffer (which stays in L2 while every row block of A streams past it), then walks
   * the row blocks. The default 8 x 64 tile is 32 AVX-512 vectors: on a 2-core AVX-512 machine it
   * measured faster than 4 x 64 and 8 x 32 at 1024 and 2048 (smaller tiles suit narrower vectors).
   */
  static Schedule matmulCpu(Tensor out, Knobs k) {
    int ti = k.knob("tile_i", 8, 4, 2, 6);
    int tj = k.knob("tile_j", 64, 32, 16, 128);
    int tk = k.knob("tile_k", 1, 2, 4, 8);
    Schedule s = Schedule.create(out);
    OpSchedules.inlineInjective(s);
    Tensor mm = OpSchedules.reductionOf(out);
    Tensor b = mm.op().inputs().get(1);
    OpSchedules.Accumulator a = OpSchedules.localAccumulator(s, mm, out);
    Tensor acc = a.local();
    Stage so = a.output();
    Tensor panel = s.cacheRead(b, "local", acc);
    Stage.Split j = so.split(so.axis(1), tj);
    Stage.Split i = so.split(so.axis(0), ti);
    so.reorder(j.outer(), i.outer(), i.inner(), j.inner());
    so.parallel(j.outer());
    so.unroll(i.inner());
    so.vectorize(j.inner());
    Stage sa = s.stage(acc);
    sa.computeAt(so, i.outer());
    Stage.Split kk = sa.split(sa.reduceAxis(0), tk);
    sa.reorder(kk.outer(), kk.inner(), sa.axis(0), sa.axis(1));
    sa.unroll(kk.inner());
    sa.unroll(sa.axis(0));
    sa.vectorize(sa.axis(1));
    Stage sp = s.stage(panel);
    sp.computeAt(so, j.outer());
    if (columnsAlongOuterIndex(mm, b)) {
      // B is read as B[j, k] (dense's weights, [out, in]): the panel is stored with its column
      // axis innermost, so that the vectorized columns load one contiguous vector per k instead
      // of gathering 16 elements a row of K apart; the copy transposes it once per panel.
      sp.reorderStorage(sp.axis(1), sp.axis(0));
    }
    sp.vectorize(sp.axis(1));
    return s;
  }

  /**
   * Whether the product {@code mm} reads {@code b} with its output column variable in an index
   * other than the last (dense's {@code W[j, k]}), so that consecutive columns are far apart.
   */
  static boolean columnsAlongOuterIndex(Tensor mm, Tensor b) {
    if (!(mm.op() instanceof dev.kernelgen.te.ComputeOp op) || op.axis().size() < 2) {
      return false;
    }
    dev.kernelgen.te.Var col = op.axis().get(op.axis().size() - 1).var();
    return dev.kernelgen.te.FreeVars.usedBeforeLastIndex(op.body(), col, b);
  }

  /**
   * Whether matmul {@code mm} reads its second operand as {@code B[k, j]}, the reduction index
   * first: the layout {@link #matmulGpu}'s shared tiles and coalesced loads assume. A dense layer
   * reads {@code W[j, k]}: its threads would load B's tile a row apart (on an H200 the template ran
   * a 256 x 1024 x 1000 dense layer at 0.91x the naive loop nest), so it gets the generated
   * schedule.
   */
  static boolean readsBReductionMajor(Tensor mm) {
    if (!(mm.op() instanceof dev.kernelgen.te.ComputeOp c)
        || c.reduceAxis().isEmpty()
        || c.inputs().size() < 2) {
      return false;
    }
    Tensor b = c.inputs().get(1);
    dev.kernelgen.te.Var k = c.reduceAxis().get(0).var();
    boolean[] seen = {false};
    boolean[] ok = {true};
    new dev.kernelgen.te.ExprVisitor() {
      @Override
      public void visit(dev.kernelgen.te.Expr e) {
        if (e instanceof dev.kernelgen.te.TensorRead r && r.tensor() == b) {
          seen[0] = true;
          ok[0] &= r.indices().size() == 2 && r.indices().get(0) == k;
        }
        super.visit(e);
      }
    }.visit(c.body());
    return seen[0] && ok[0];
  }

  /**
   * The GPU schedule of a matmul {@code out}; elementwise stages after it become a second kernel of
   * one thread per element.
   *
   * <p>The shared tiles are attached at the local stage's k.outer loop, inside the thread loops:
   * bound inference relaxes the threadIdx loops that enclose a shared stage, so that each tile is
   * the block's (SharedStageInsideThreadLoopsTest), and all threads of the block load it together.
   */
  static Schedule matmulGpu(Tensor out, Knobs k) {
    int ty = k.knob("threads_y", 16, 8, 32);
    int tx = k.knob("threads_x", 16, 8, 32);
    int wy = k.knob("thread_tile_y", 4, 1, 2, 8);
    int wx = k.knob("thread_tile_x", 4, 1, 2, 8);
    int tk = k.knob("tile_k", 16, 4, 8, 32);
    Schedule s = Schedule.create(out);
    OpSchedules.inlineInjective(s);
    Tensor mm = OpSchedules.reductionOf(out);
    Tensor a = mm.op().inputs().get(0);
    Tensor b = mm.op().inputs().get(1);
    // TVM's classic GPU matmul: each thread accumulates a wy x wx tile in registers (cache_write
    // local), over k in chunks of tk whose A and B tiles the block loads into shared memory.
    Tensor cl = s.cacheWrite(mm, "local");
    Tensor as = s.cacheRead(a, "shared", cl);
    Tensor bs = s.cacheRead(b, "shared", cl);
    Stage so = s.stage(mm);
    Stage.Split i = so.split(so.axis(0), (long) ty * wy);
    Stage.Split j = so.split(so.axis(1), (long) tx * wx);
    Stage.Split it = so.split(i.inner(), wy);
    Stage.Split jt = so.split(j.inner(), wx);
    so.reorder(i.outer(), j.outer(), it.outer(), jt.outer(), it.inner(), jt.inner());
    so.bind(i.outer(), ThreadTag.BLOCK_Y);
    so.bind(j.outer(), ThreadTag.BLOCK_X);
    so.bind(it.outer(), ThreadTag.THREAD_Y);
    so.bind(jt.outer(), ThreadTag.THREAD_X);
    Stage sl = s.stage(cl);
    sl.computeAt(so, jt.outer());
    Stage.Split kk = sl.split(sl.reduceAxis(0), tk);
    sl.reorder(kk.outer(), kk.inner(), sl.axis(0), sl.axis(1));
    sl.unroll(sl.axis(0));
    sl.unroll(sl.axis(1));
    DepthwiseSchedules.cooperativeFetch(s.stage(as), sl, kk.outer(), ty, tx);
    DepthwiseSchedules.cooperativeFetch(s.stage(bs), sl, kk.outer(), ty, tx);
    if (mm != out) {
      Stage se = s.stage(out);
      IterVar fused = se.fuse(se.axis(0), se.axis(1));
      Stage.Split sp = se.split(fused, 256);
      se.bind(sp.outer(), ThreadTag.BLOCK_X);
      se.bind(sp.inner(), ThreadTag.THREAD_X);
    }
    return s;
  }
}
