package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.Tensor;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * TVM's classic GPU matmul: cache_write local at the thread loop, A and B cached in shared memory
 * at the local stage's k.outer loop, inside the thread-bound loops. A shared buffer belongs to the
 * whole block, so its region is the union over the block's threads (bound inference relaxes the
 * enclosing threadIdx loops for shared stages); before that fix each thread filled the tile with
 * its own rows at the same addresses and the threads overwrote each other.
 */
class SharedStageInsideThreadLoopsTest {
  @Test
  void sharedTilesAtTheLocalReductionsOuterLoop() {
    Tensor a = placeholder("A", FLOAT32, 16, 12);
    Tensor b = placeholder("B", FLOAT32, 12, 16);
    Tensor c = Linalg.matmul(a, b);
    Schedule s = Schedule.create(c);
    Tensor cl = s.cacheWrite(c, "local");
    Tensor as = s.cacheRead(a, "shared", cl);
    Tensor bs = s.cacheRead(b, "shared", cl);
    Stage so = s.stage(c);
    Stage.Tile t = so.tile(so.axis(0), so.axis(1), 8, 8);
    Stage.Split ti = so.split(t.xInner(), 2);
    Stage.Split tj = so.split(t.yInner(), 2);
    so.reorder(t.xOuter(), t.yOuter(), ti.outer(), tj.outer(), ti.inner(), tj.inner());
    so.bind(t.xOuter(), ThreadTag.BLOCK_Y);
    so.bind(t.yOuter(), ThreadTag.BLOCK_X);
    so.bind(ti.outer(), ThreadTag.THREAD_Y);
    so.bind(tj.outer(), ThreadTag.THREAD_X);
    Stage sl = s.stage(cl);
    sl.computeAt(so, tj.outer());
    Stage.Split k = sl.split(sl.reduceAxis(0), 4);
    sl.reorder(k.outer(), k.inner(), sl.axis(0), sl.axis(1));
    DepthwiseSchedules.cooperativeFetch(s.stage(as), sl, k.outer(), 4, 4);
    DepthwiseSchedules.cooperativeFetch(s.stage(bs), sl, k.outer(), 4, 4);
    GpuCheck.check(s, Map.of());
  }
}
