package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.Tensor;
import java.util.Map;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * A compiler bug found while writing {@link OpSchedules#matmulGpu}: TVM's classic GPU matmul
 * (cache_write local at the thread loop, A and B cached in shared memory at the local stage's
 * k.outer loop) computes wrong results. InferBounds sizes a stage attached inside thread-bound
 * loops by the region of the one thread (it relaxes only the consumer's loops inside the attach
 * point), but a shared buffer is written by the whole block: each thread fills the shared tile with
 * its own rows at the same addresses, and the threads overwrite each other. TVM relaxes the thread
 * loops that enclose a shared-scope stage (threadIdx.* for shared, also blockIdx.* for global). The
 * library's schedule works around it by accumulating in the output with k.outer outside the thread
 * loops.
 */
class SharedStageInsideThreadLoopsTest {
  @Test
  @Disabled("compiler bug in lower/InferBounds: shared stages inside thread loops are not relaxed")
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
