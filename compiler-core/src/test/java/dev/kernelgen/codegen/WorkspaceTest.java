package dev.kernelgen.codegen;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.CKernels;
import dev.kernelgen.testing.ResidentMemory;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Store;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/** The C kernels' per-thread workspace ({@link Workspace}). */
@Isolated
class WorkspaceTest {
  /**
   * Each thread's kept temporaries are freed when it exits: 300 short-lived threads each run a
   * kernel with a 4 MB temporary (1.2 GB if kept), and resident memory grows by less than 400 MB.
   * Isolated: resident memory is the whole process's, and other test classes running beside it grew
   * it by 200 MB.
   */
  @Test
  void aThreadsWorkspaceIsFreedWhenItExits() throws Exception {
    Var n = new Var("n");
    Buffer a = Fixtures.param("A", DType.FLOAT32, n);
    Buffer out = Fixtures.param("out", DType.FLOAT32, n);
    Buffer tmp = new Buffer("tmp", DType.FLOAT32, MemoryScope.GLOBAL, List.of());
    Var i = new Var("i");
    Var j = new Var("j");
    var fill = For.serial(i, IntImm.of(0), n, new Store(tmp, i, Load.of(a, i).mul(2.0)));
    var drain = For.serial(j, IntImm.of(0), n, new Store(out, j, Load.of(tmp, j)));
    PrimFunc f =
        new PrimFunc(
            "twice", List.of(a, out), List.of(n), new Allocate(tmp, n, Seq.of(fill, drain)));
    CKernels k = CKernels.load(CCodegen.generate(List.of(f), "m"), List.of(f));
    int len = 1 << 20;
    try (Arena arena = Arena.ofShared()) {
      MemorySegment in = arena.allocate(JAVA_FLOAT, len);
      MemorySegment o = arena.allocate(JAVA_FLOAT, len);
      k.invoke("twice", List.of(in, o), len);
      long before = ResidentMemory.now();
      assertThat(before).as("VmRSS from /proc/self/status").isPositive();
      for (int t = 0; t < 300; t++) {
        Thread th = new Thread(() -> k.invoke("twice", List.of(in, o), len));
        th.start();
        th.join();
      }
      long grown = ResidentMemory.now() - before;
      assertThat(grown).as("resident memory grown by %d bytes", grown).isLessThan(400L << 20);
    }
  }
}
