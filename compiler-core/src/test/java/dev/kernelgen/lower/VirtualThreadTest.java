package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.GpuCheck;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Virtual threads around shared tiles ({@link InjectVirtualThread}): each thread's register tile in
 * two chunks 8 columns apart, the tiles fetched once per reduction step for both.
 */
class VirtualThreadTest {
  /** C = A B (20 x 37 by 37 x 30): blocks of 4 x 16, 8 threads each with 2 chunks of 4. */
  private static Schedule schedule() {
    Tensor a = placeholder("A", FLOAT32, 20, 37);
    Tensor b = placeholder("B", FLOAT32, 37, 30);
    IterVar k = reduceAxis(37, "k");
    Tensor c =
        compute("C", shape(20, 30), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
    Schedule s = Schedule.create(c);
    Tensor cl = s.cacheWrite(c, "local");
    Stage sc = s.stage(c);
    Stage.Split i = sc.split(sc.axis(0), 4);
    Stage.Split j = sc.split(sc.axis(1), 16);
    Stage.Split v = sc.split(j.inner(), 8);
    Stage.Split t = sc.split(v.inner(), 4);
    sc.reorder(i.outer(), j.outer(), v.outer(), i.inner(), t.outer(), t.inner());
    sc.bind(sc.fuse(i.outer(), j.outer()), ThreadTag.BLOCK_X);
    sc.bind(v.outer(), ThreadTag.VTHREAD);
    IterVar tx = sc.fuse(i.inner(), t.outer());
    sc.bind(tx, ThreadTag.THREAD_X);
    Stage scl = s.stage(cl);
    scl.computeAt(sc, tx);
    Stage.Split kk = scl.split(scl.reduceAxis(0), 8);
    // The reduction steps outside the tile's loops, so that the guards of the ragged columns stay
    // inside them, away from the barriers.
    scl.reorder(kk.outer(), kk.inner(), scl.axis(0), scl.axis(1));
    for (Tensor in : List.of(a, b)) {
      Stage f = s.stage(s.cacheRead(in, "shared", cl));
      f.computeAt(scl, kk.outer());
      Stage.Split sp = f.split(f.fuse(f.axis(0), f.axis(1)), 8);
      f.bind(sp.inner(), ThreadTag.THREAD_X);
    }
    return s;
  }

  @Test
  void chunksOfVirtualThreadsShareTheirTilesAndMatchTheOracle() {
    Schedule s = schedule();
    GpuCheck.check(s, Map.of());
    String ir = Lower.lower(s, "f", Target.CUDA).body().show();
    // One accumulator of 4 per chunk, side by side; B's tile spans both chunks (16 columns).
    assertThat(ir).contains("allocate C.local: float32[8] local");
    assertThat(ir).contains("allocate B.shared: float32[128] shared");
    // The fetches are not repeated per virtual thread, nor their barriers.
    assertThat(ir.split("\\] = A\\[", -1)).as("stores of A's tile").hasSize(2);
    assertThat(ir.split("\\] = B\\[", -1)).as("stores of B's tile").hasSize(2);
    assertThat(ir.split("barrier\\(shared\\)", -1)).as("barriers").hasSize(3);
  }
}
