package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.schedule.Trace;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.GpuCheck;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code double_buffer} of shared tiles ({@link InjectDoubleBuffer}). */
class DoubleBufferTest {
  /** C = A B (20 x 37 by 37 x 24), its reduction in steps of 8 (the last one ragged). */
  private record MatMul(Tensor a, Tensor b, IterVar k, Tensor c) {
    static MatMul make() {
      Tensor a = placeholder("A", FLOAT32, 20, 37);
      Tensor b = placeholder("B", FLOAT32, 37, 24);
      IterVar k = reduceAxis(37, "k");
      Tensor c =
          compute("C", shape(20, 24), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
      return new MatMul(a, b, k, c);
    }

    /**
     * Blocks of 4 x 8 outputs, a thread each, accumulated in a local; the A and B tiles of each
     * step of 8 staged in shared memory by the block's 32 threads, double-buffered if asked.
     */
    Schedule gpu(boolean doubled) {
      Schedule s = Schedule.create(c);
      Tensor cl = s.cacheWrite(c, "local");
      Stage sc = s.stage(c);
      Stage.Tile t = sc.tile(sc.axis(0), sc.axis(1), 4, 8);
      sc.bind(sc.fuse(t.xOuter(), t.yOuter()), ThreadTag.BLOCK_X);
      IterVar tx = sc.fuse(t.xInner(), t.yInner());
      sc.bind(tx, ThreadTag.THREAD_X);
      Stage scl = s.stage(cl);
      scl.computeAt(sc, tx);
      Stage.Split k = scl.split(scl.reduceAxis(0), 8);
      for (Tensor in : List.of(a, b)) {
        Stage f = s.stage(s.cacheRead(in, "shared", cl));
        f.computeAt(scl, k.outer());
        Stage.Split sp = f.split(f.fuse(f.axis(0), f.axis(1)), 32);
        f.bind(sp.inner(), ThreadTag.THREAD_X);
        if (doubled) {
          f.doubleBuffer();
        }
      }
      return s;
    }
  }

  @Test
  void doubleBufferedTilesMatchTheOracleWithOneBarrierPerStep() {
    MatMul m = MatMul.make();
    Schedule s = m.gpu(true);
    GpuCheck.check(s, Map.of());
    String ir = Lower.lower(s, "f", Target.CUDA).body().show();
    // Both tiles twice their size ([4][8] of A and [8][8] of B), the next step staged in registers.
    assertThat(ir)
        .contains("allocate A.shared: float32[64] shared")
        .contains("allocate B.shared: float32[128] shared")
        .contains("A.shared.staged")
        .contains("B.shared.staged");
    String loop = ir.substring(ir.indexOf("for k.outer"));
    assertThat(loop.split("barrier\\(shared\\)", -1)).as("barriers in the loop").hasSize(2);
    // The same schedule without the mark: two barriers per step, tiles of their own size.
    String plain = Lower.lower(m.gpu(false), "f", Target.CUDA).body().show();
    assertThat(plain).contains("allocate A.shared: float32[32] shared").doesNotContain("staged");
    assertThat(plain.substring(plain.indexOf("for k.outer")).split("barrier\\(shared\\)", -1))
        .hasSize(3);
    // It prints as CUDA with the mark gone.
    PrimFunc f = Lower.lower(s, "f", Target.CUDA);
    String cuda = CudaCodegen.generate(SplitHostDevice.split(f).kernels(), "m");
    assertThat(cuda).doesNotContain("double_buffer").contains("A_shared_staged");
  }

  @Test
  void replayedFromItsTraceItLowersTheSame() {
    MatMul m = MatMul.make();
    Schedule s = m.gpu(true);
    assertThat(s.trace().toString()).contains("double_buffer");
    MatMul fresh = MatMul.make();
    Schedule r = Schedule.create(fresh.c());
    Trace.replay(s.trace().steps(), r);
    assertThat(Lower.lower(r, "f", Target.CUDA).body().show())
        .isEqualTo(Lower.lower(s, "f", Target.CUDA).body().show());
  }

  @Test
  void onCpusTheMarkIsDroppedAndTheTilesStaySingle() {
    Schedule s = MatMul.make().gpu(true);
    Check.check(s, Map.of());
    String ir = Lower.lower(s, "f", Target.C).body().show();
    assertThat(ir).contains("allocate A.shared: float32[32] shared").doesNotContain("staged");
  }

  @Test
  void onlySharedTilesAreDoubleBuffered() {
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    Tensor cl = s.cacheWrite(m.c(), "local");
    assertThatThrownBy(() -> s.stage(cl).doubleBuffer())
        .isInstanceOf(UserError.class)
        .hasMessageContaining("double_buffer of 'C.local': it is in local memory");
  }

  @Test
  void aLoopOfAnotherShapeIsLeftAsItIs() {
    // The steps of the reduction outside the thread loops (the fetch and the compute each bind
    // threads of their own): registers staged between them would be the block's, so the mark is
    // dropped and the kernel is that of the schedule without it.
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    Stage sc = s.stage(m.c());
    Stage.Split i = sc.split(sc.axis(0), 4);
    sc.bind(i.outer(), ThreadTag.BLOCK_X);
    Stage.Split kk = sc.split(m.k(), 8);
    sc.reorder(i.outer(), kk.outer(), i.inner(), sc.axis(1), kk.inner());
    sc.bind(i.inner(), ThreadTag.THREAD_X);
    Stage f = s.stage(s.cacheRead(m.a(), "shared", m.c()));
    f.computeAt(sc, kk.outer());
    Stage.Split sp = f.split(f.fuse(f.axis(0), f.axis(1)), 4);
    f.bind(sp.inner(), ThreadTag.THREAD_X);
    String plain = Lower.lower(s, "f", Target.CUDA).body().show();
    f.doubleBuffer();
    GpuCheck.check(s, Map.of());
    assertThat(Lower.lower(s, "f", Target.CUDA).body().show()).isEqualTo(plain);
  }
}
