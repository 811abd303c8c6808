package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.codegen.JavaCodegen;
import dev.kernelgen.codegen.OpenClCodegen;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.eval.IRInterpreter;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.CKernels;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Index widths (issue 12): loop variables over 64-bit extents or products are 64-bit, flattened
 * addresses of buffers that may pass 2^31 elements are computed in 64 bits from their leaves, and
 * constant extents that fit keep 32-bit code.
 */
class IndexWidthTest {
  @TempDir Path tmp;

  /** Every loop variable of {@code s}, by name. */
  private static Map<String, DType> loopTypes(Stmt s) {
    Map<String, DType> out = new java.util.LinkedHashMap<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt x) {
        if (x instanceof For f) {
          out.put(f.loopVar().name(), f.loopVar().dtype());
        }
        super.visit(x);
      }
    }.visit(s);
    return out;
  }

  private static List<DType> storeIndexTypes(Stmt s) {
    List<DType> out = new ArrayList<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt x) {
        if (x instanceof Store st) {
          out.add(st.index().dtype());
        }
        super.visit(x);
      }
    }.visit(s);
    return out;
  }

  @Test
  void splitAndFuseTakeTheIndexTypeOfTheirParents() {
    Tensor a = placeholder("A", FLOAT32, 3L, 1L << 31);
    Tensor b = compute("B", shape(3L, 1L << 31), (i, j) -> a.at(i, j).add(1f));
    Stage sb = Schedule.create(b).stage(b);
    assertThat(sb.axis().get(1).var().dtype()).isEqualTo(DType.INT64);
    Stage.Split sp = sb.split(sb.axis().get(1), 256);
    assertThat(sp.outer().var().dtype()).isEqualTo(DType.INT64);
    assertThat(sp.inner().var().dtype()).isEqualTo(DType.INT64);

    // 32-bit extents whose product passes 2^31 - 1 fuse to a 64-bit loop; small ones stay 32-bit.
    Tensor c = placeholder("C", FLOAT32, 65536, 65536);
    Tensor d = compute("D", shape(65536, 65536), (i, j) -> c.at(i, j).add(1f));
    Stage sd = Schedule.create(d).stage(d);
    assertThat(sd.axis().get(0).var().dtype()).isEqualTo(DType.INT32);
    IterVar fused = sd.fuse(sd.axis().get(0), sd.axis().get(1));
    assertThat(fused.var().dtype()).isEqualTo(DType.INT64);
    Tensor e = placeholder("E", FLOAT32, 1000, 1000);
    Tensor f = compute("F", shape(1000, 1000), (i, j) -> e.at(i, j).add(1f));
    Stage sf = Schedule.create(f).stage(f);
    assertThat(sf.fuse(sf.axis().get(0), sf.axis().get(1)).var().dtype()).isEqualTo(DType.INT32);
  }

  /** {@code B = A * 2} over {@code [n, m]}, fused and split by 256, on threads for GPUs. */
  private static Schedule fusedScale(boolean gpu) {
    Var n = var("n");
    Var m = var("m");
    Tensor a = placeholder("A", FLOAT32, n, m);
    Tensor b = compute("B", shape(n, m), (i, j) -> a.at(i, j).mul(2f));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    IterVar fused = sb.fuse(sb.axis().get(0), sb.axis().get(1));
    Stage.Split sp = sb.split(fused, 256);
    if (gpu) {
      sb.bind(sp.outer(), "blockIdx.x");
      sb.bind(sp.inner(), "threadIdx.x");
    }
    return s;
  }

  private static PrimFunc lower(Schedule s, String name, Target t, IndexWidth w) {
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    return Lower.lower(s, name, args, t, w, null);
  }

  @Test
  void aFusedLoopOverSymbolicDimsIsInt64WideAndInt32Narrow() {
    PrimFunc wide = lower(fusedScale(false), "scale_idx64", Target.C, IndexWidth.WIDE);
    assertThat(loopTypes(wide.body())).containsEntry("i.j.fused.outer", DType.INT64);
    assertThat(storeIndexTypes(wide.body())).containsOnly(DType.INT64);
    // The extent n * m is a 64-bit product of the 32-bit dims, not a cast of a wrapped one.
    assertThat(wide.body().show()).contains("(int64(n) * int64(m))");
    PrimFunc narrow = lower(fusedScale(false), "scale", Target.C, IndexWidth.NARROW);
    assertThat(loopTypes(narrow.body())).containsOnlyKeys("i.j.fused.outer", "i.j.fused.inner");
    assertThat(loopTypes(narrow.body()).values()).containsOnly(DType.INT32);
    assertThat(storeIndexTypes(narrow.body())).containsOnly(DType.INT32);

    String c = CCodegen.generate(List.of(wide, narrow), "m");
    assertThat(section(c, "scale_idx64")).contains("for (int64_t i_j_fused_outer = (int64_t)0;");
    // Only the allocation status is 64-bit in the 32-bit kernel (see CCodegen): no index is.
    assertThat(
            section(c, "int64_t scale(")
                .replace("int64_t scale(", "")
                .replace("int64_t kg_status_", ""))
        .doesNotContain("int64_t");
    String java = JavaCodegen.generate(List.of(wide), "p", "K");
    assertThat(java).contains("for (long i_j_fused_outer = 0L;");
  }

  @Test
  void gpuPrintersDeclareWideThreadIndicesAs64Bit() {
    PrimFunc cudaWide = lower(fusedScale(true), "scale_idx64", Target.CUDA, IndexWidth.WIDE);
    String cu = CudaCodegen.generate(List.of(cudaWide), "m");
    assertThat(cu)
        .contains("const long long i_j_fused_outer = ((long long)(int)blockIdx.x);")
        .contains("const int i_j_fused_inner = (int)threadIdx.x;");
    PrimFunc clWide = lower(fusedScale(true), "scale_idx64", Target.OPENCL, IndexWidth.WIDE);
    String cl = OpenClCodegen.generate(List.of(clWide), "m");
    assertThat(cl).contains("const long i_j_fused_outer = ((long)(int)get_group_id(0));");
    PrimFunc cudaNarrow = lower(fusedScale(true), "scale", Target.CUDA, IndexWidth.NARROW);
    assertThat(CudaCodegen.generate(List.of(cudaNarrow), "m")).doesNotContain("long long");
  }

  @Test
  void aConstantShapePast2e31IsInt64AndASmallOneInt32() {
    Tensor a = placeholder("A", FLOAT32, 3, 1 << 30);
    Tensor b = compute("B", shape(3, 1 << 30), (i, j) -> a.at(i, j).mul(2f));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    sb.split(sb.fuse(sb.axis().get(0), sb.axis().get(1)), 256);
    PrimFunc f = lower(s, "big", Target.C, IndexWidth.NARROW);
    assertThat(loopTypes(f.body())).containsEntry("i.j.fused.outer", DType.INT64);
    assertThat(storeIndexTypes(f.body())).containsOnly(DType.INT64);
    assertThat(f.body().show()).contains("12582912L"); // 3 * 2^30 / 256, a 64-bit extent

    // 64-bit extents (long dims): their loops and the addresses computed from them are 64-bit.
    Tensor la = placeholder("LA", FLOAT32, 3L, 1L << 31);
    Tensor lb = compute("LB", shape(3L, 1L << 31), (i, j) -> la.at(i, j).add(1f));
    Schedule ls = Schedule.create(lb);
    ls.stage(lb).split(ls.stage(lb).axis().get(1), 64);
    PrimFunc lf = lower(ls, "long_dims", Target.C, IndexWidth.NARROW);
    assertThat(loopTypes(lf.body()).values()).containsOnly(DType.INT64);
    assertThat(storeIndexTypes(lf.body())).containsOnly(DType.INT64);
    assertThat(CCodegen.generate(List.of(lf), "m"))
        .contains("for (int64_t j_outer = (int64_t)0; j_outer < (int64_t)33554432;");

    Tensor x = placeholder("X", FLOAT32, 4, 8);
    Tensor y = compute("Y", shape(4, 8), (i, j) -> x.at(i, j).mul(2f));
    Schedule t = Schedule.create(y);
    Stage sy = t.stage(y);
    sy.split(sy.fuse(sy.axis().get(0), sy.axis().get(1)), 16);
    PrimFunc g = lower(t, "small", Target.C, IndexWidth.WIDE);
    assertThat(loopTypes(g.body()).values()).containsOnly(DType.INT32);
    assertThat(storeIndexTypes(g.body())).containsOnly(DType.INT32);
  }

  /** {@code Last[j] = A[n - 1, m - 4 + j]}: four reads at the very end of a symbolic matrix. */
  private static Schedule lastRow() {
    Var n = var("n");
    Var m = var("m");
    Tensor a = placeholder("A", FLOAT32, n, m);
    Tensor last = compute("Last", shape(4), j -> a.at(n.sub(1), m.sub(4).add(j)));
    return Schedule.create(last);
  }

  /**
   * A [3, 2^30] float32 matrix in a sparse file: 12 GiB of address space, a few pages of memory,
   * its last four elements 1, 2, 3, 4.
   */
  private MemorySegment sparseMatrix(Arena arena, long rows, long cols) throws IOException {
    Path file = tmp.resolve("a.bin");
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE,
            StandardOpenOption.SPARSE)) {
      long bytes = rows * cols * 4;
      MemorySegment seg = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
      for (int k = 0; k < 4; k++) {
        seg.setAtIndex(ValueLayout.JAVA_FLOAT, rows * cols - 4 + k, k + 1f);
      }
      return seg;
    }
  }

  @Test
  void theInterpreterAndCReadPast2e31ElementsWithTheWideKernel() throws IOException {
    long n = 3;
    long m = 1L << 30;
    PrimFunc wide = lower(lastRow(), "last_idx64", Target.C, IndexWidth.WIDE);
    PrimFunc narrow = lower(lastRow(), "last", Target.C, IndexWidth.NARROW);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment a = sparseMatrix(arena, n, m);
      NDArray in = NDArray.wrap(DType.FLOAT32, a, n, m);
      Map<Var, Long> dims = Map.of(wide.scalars().get(0), n, wide.scalars().get(1), m);
      NDArray out = NDArray.zeros(DType.FLOAT32, 4);
      IRInterpreter.run(wide, List.of(in, out), dims);
      NDArray.assertClose(NDArray.of(DType.FLOAT32, new long[] {4}, 1, 2, 3, 4), out, 0, 0);

      // The 32-bit kernel wraps at 2 * 2^30: this is why the launcher must not run it here.
      Map<Var, Long> narrowDims = Map.of(narrow.scalars().get(0), n, narrow.scalars().get(1), m);
      assertThatThrownBy(
              () ->
                  IRInterpreter.run(
                      narrow, List.of(in, NDArray.zeros(DType.FLOAT32, 4)), narrowDims))
          .isInstanceOf(CompilerBug.class)
          .hasMessageContaining("load from 'A' at index -1073741828, outside [0, 3221225472)");

      CKernels c = CKernels.load(List.of(wide));
      assertThat(c.source()).contains("int64_t");
      MemorySegment cOut = arena.allocate(16, 16);
      c.invoke("last_idx64", List.of(a, cOut), n, m);
      assertThat(cOut.toArray(ValueLayout.JAVA_FLOAT)).containsExactly(1f, 2f, 3f, 4f);
    }
  }

  /**
   * The wide kernel's accumulator tile (a 32-bit local buffer) is indexed by its 64-bit loop
   * variables directly: narrowing each term first printed {@code C_local[(int32_t)(j + jo * 64) -
   * (int32_t)(jo * 64)]}, which gcc's vectorizer does not see as contiguous (the conv-bn-swish
   * sample's generic kernel took 36.6 ms wide against 10.8 ms narrow at [1,64,57,55]; now 10.0).
   * Both kernels match a plain loop on a ragged shape.
   */
  @Test
  void aWideKernelIndexesItsLocalTileByItsOwnLoopVariables() {
    Var n = var("n");
    Var k = var("k");
    Var m = var("m");
    Tensor a = placeholder("A", FLOAT32, n, k);
    Tensor b = placeholder("B", FLOAT32, k, m);
    IterVar r = reduceAxis(k, "r");
    Tensor c = compute("C", shape(n, m), (i, j) -> sum(a.at(i, r.var()).mul(b.at(r.var(), j)), r));
    Schedule s = dev.kernelgen.autosched.AutoScheduler.untuned(Target.C, List.of(c));
    PrimFunc wide = Lower.lower(s, "mm_idx64", List.of(a, b, c), Target.C, IndexWidth.WIDE, null);
    PrimFunc narrow = Lower.lower(s, "mm", List.of(a, b, c), Target.C, IndexWidth.NARROW, null);
    CKernels kernels = CKernels.load(List.of(wide, narrow));
    java.util.regex.Matcher local =
        java.util.regex.Pattern.compile("C_local\\[[^\\]]*\\]")
            .matcher(section(kernels.source(), "mm_idx64("));
    int accesses = 0;
    while (local.find()) {
      assertThat(local.group()).doesNotContain("int32_t").doesNotContain(" - ");
      accesses++;
    }
    assertThat(accesses).isGreaterThan(2);

    int rows = 37;
    int depth = 29;
    int cols = 70;
    java.util.Random rnd = new java.util.Random(3);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment sa = arena.allocate(4L * rows * depth, 64);
      MemorySegment sb = arena.allocate(4L * depth * cols, 64);
      for (long q = 0; q < (long) rows * depth; q++) {
        sa.setAtIndex(ValueLayout.JAVA_FLOAT, q, rnd.nextFloat() - 0.5f);
      }
      for (long q = 0; q < (long) depth * cols; q++) {
        sb.setAtIndex(ValueLayout.JAVA_FLOAT, q, rnd.nextFloat() - 0.5f);
      }
      for (PrimFunc f : List.of(wide, narrow)) {
        MemorySegment sc = arena.allocate(4L * rows * cols, 64);
        Map<Var, Long> dims = Map.of(n, (long) rows, k, (long) depth, m, (long) cols);
        kernels.invoke(
            f.name(), List.of(sa, sb, sc), f.scalars().stream().mapToLong(dims::get).toArray());
        for (int i = 0; i < rows; i++) {
          for (int j = 0; j < cols; j++) {
            float want = 0;
            for (int q = 0; q < depth; q++) {
              want +=
                  sa.getAtIndex(ValueLayout.JAVA_FLOAT, (long) i * depth + q)
                      * sb.getAtIndex(ValueLayout.JAVA_FLOAT, (long) q * cols + j);
            }
            assertThat(sc.getAtIndex(ValueLayout.JAVA_FLOAT, (long) i * cols + j))
                .as("%s at (%d, %d)", f.name(), i, j)
                .isCloseTo(want, org.assertj.core.data.Offset.offset(1e-4f));
          }
        }
      }
    }
  }

  private static String section(String source, String from) {
    int k = source.indexOf(from);
    assertThat(k).as("%s in\n%s", from, source).isGreaterThanOrEqualTo(0);
    int end = source.indexOf("\n}\n", k);
    return source.substring(k, end < 0 ? source.length() : end);
  }
}
