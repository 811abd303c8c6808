package dev.kernelgen.codegen;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.INT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.shape;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A C kernel's read at an index taken from a tensor (an embedding lookup) is checked against the
 * tensor it indexes: an index outside is status -2, not a read past the buffer (a row index of 10^9
 * into a table of 5 rows would kill the JVM); reads at computed indices keep plain loads.
 */
class CheckedGatherTest {
  private static final int ROWS = 5;
  private static final int DIM = 3;
  private static final int N = 4;

  @Test
  void anIndexReadFromATensorOutsideTheTableIsAStatusNotACrash(@TempDir Path tmp) throws Throwable {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(tc.findCc().isPresent(), "no C compiler on PATH: skipped");
    Tensor table = placeholder("Table", FLOAT32, ROWS, DIM);
    Tensor ids = placeholder("Ids", INT32, N);
    Tensor out = compute("Emb", shape(N, DIM), (i, j) -> table.at(ids.at(i), j));
    Schedule s = Schedule.create(out);
    String c =
        CCodegen.generate(
            List.of(Lower.lower(s, "k", List.of(table, ids, out), Target.C, null)), "m");
    assertThat(c).contains("Table[kg_index_checked(").doesNotContain("Ids[kg_index_checked(");
    Path lib = tmp.resolve("libgather.so");
    tc.compileSharedLibrary(c, lib, "x86-64-v2");
    MethodHandle k =
        Linker.nativeLinker()
            .downcallHandle(
                SymbolLookup.libraryLookup(lib, Arena.global()).find("k").orElseThrow(),
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, ADDRESS));
    float[] t = new float[ROWS * DIM];
    for (int e = 0; e < t.length; e++) {
      t[e] = e * 0.5f;
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment tm = arena.allocateFrom(JAVA_FLOAT, t);
      MemorySegment om = arena.allocate(JAVA_FLOAT, N * DIM);
      int[] good = {4, 0, 2, 4};
      long status = (long) k.invokeExact(tm, arena.allocateFrom(JAVA_INT, good), om);
      assertThat(status).isZero();
      for (int i = 0; i < N; i++) {
        for (int j = 0; j < DIM; j++) {
          assertThat(om.getAtIndex(JAVA_FLOAT, i * DIM + j)).isEqualTo(t[good[i] * DIM + j]);
        }
      }
      for (int[] bad : new int[][] {{0, 1_000_000_000, 2, 3}, {0, -1, 2, 3}, {5, 0, 0, 0}}) {
        long failed = (long) k.invokeExact(tm, arena.allocateFrom(JAVA_INT, bad), om);
        assertThat(failed).as("ids %s", java.util.Arrays.toString(bad)).isEqualTo(-2L);
      }
    }
  }

  @Test
  void aGatherTheUserBoundedOrGuardedKeepsItsPlainLoad() {
    // A check's store keeps gcc from vectorizing the loop around it: where the index cannot leave
    // (a floormod by the row length) or a select guards the read, there is none.
    Tensor table = placeholder("Table", FLOAT32, ROWS, DIM);
    Tensor ids = placeholder("Ids", INT32, N);
    Tensor wrapped =
        compute("Wrapped", shape(N, DIM), (i, j) -> table.at(ids.at(i).floormod(ROWS), j));
    Tensor guarded =
        compute(
            "Guarded",
            shape(N, DIM),
            (i, j) ->
                dev.kernelgen.te.TE.select(
                    ids.at(i).ge(0).and(ids.at(i).lt(ROWS)), table.at(ids.at(i), j), 0f));
    for (Tensor out : List.of(wrapped, guarded)) {
      Schedule s = Schedule.create(out);
      String c =
          CCodegen.generate(
              List.of(Lower.lower(s, "k", List.of(table, ids, out), Target.C, null)), "m");
      assertThat(c).as(out.name()).doesNotContain("kg_index_checked");
    }
  }

  @Test
  void gpuKernelsThatGatherTakeAStatusWordAndCheckTheirIndex() {
    // On GPUs the read past the buffer was a SIGSEGV of the JVM on PoCL's CPU device and a dead
    // context on CUDA: the kernel now takes a status word (a temporary of the launch), reads
    // element 0 in place of an index outside its tensor, and sets the status.
    dev.kernelgen.te.Var v = dev.kernelgen.te.TE.var("v");
    dev.kernelgen.te.Var d = dev.kernelgen.te.TE.var("d");
    Tensor table = placeholder("Table", FLOAT32, ROWS, DIM);
    Tensor anyTable = placeholder("AnyTable", FLOAT32, v, d);
    Tensor ids = placeholder("Ids", INT32, N);
    Tensor out = compute("Emb", shape(N, DIM), (i, j) -> table.at(ids.at(i), j));
    Tensor anyOut = compute("AnyEmb", shape(N, d), (i, j) -> anyTable.at(ids.at(i), j));
    Tensor wrapped =
        compute("Wrapped", shape(N, DIM), (i, j) -> table.at(ids.at(i).floormod(ROWS), j));
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      for (Tensor o : List.of(out, anyOut, wrapped)) {
        Tensor tab = o == anyOut ? anyTable : table;
        var op = dev.kernelgen.spec.OperatorDef.of(List.of(tab, ids), o);
        Schedule s =
            dev.kernelgen.topi.DefaultSchedules.forTarget(
                t, op, dev.kernelgen.spec.Knobs.defaults());
        dev.kernelgen.lower.LoweredModule m =
            Lower.lowerModule(
                s, "k", List.of(tab, ids, o), t, dev.kernelgen.lower.IndexWidth.WIDE, null);
        String src =
            t == Target.CUDA
                ? CudaCodegen.generate(m.functions(), "m")
                : OpenClCodegen.generate(m.functions(), "m");
        String what = t + " " + o.name();
        if (o == wrapped) {
          assertThat(m.temporaries()).as(what).isEmpty();
          assertThat(src).as(what).doesNotContain("kg_index_checked").doesNotContain("kg_status");
          continue;
        }
        assertThat(m.temporaries()).as(what).hasSize(1);
        assertThat(m.temporaries().get(0).buffer().name()).isEqualTo(KernelStatus.STATUS);
        var k = m.kernels().get(0).func();
        assertThat(k.params().get(k.params().size() - 1)).isSameAs(m.temporaries().get(0).buffer());
        assertThat(src)
            .as(what)
            .contains(tab.name() + "[kg_index_checked(")
            .doesNotContain("Ids[kg_index_checked(")
            .containsPattern(
                (t == Target.CUDA ? "int\\* __restrict__ " : "__global int\\* restrict ")
                    + "\\w*kg_status[,)]");
        if (o == anyOut) {
          // The table's rows bound the check, though no index of the kernel uses them.
          assertThat(k.scalars()).as(what).contains(v);
        }
        if (t == Target.CUDA && tc.findNvcc().isPresent()) {
          assertThat(tc.compilePtx(src, "sm_80")).as(what).contains(".entry k");
        }
      }
    }
  }
}
