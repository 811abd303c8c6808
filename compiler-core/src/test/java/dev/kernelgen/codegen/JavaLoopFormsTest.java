package dev.kernelgen.codegen;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.JavaSourceCompiler;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Store;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The loop forms of {@link JavaLoopForms} as the Java printer emits them, each compiled and run
 * against a plain Java loop, on ragged extents and on loops that do not run at all.
 */
class JavaLoopFormsTest {
  /**
   * {@code out[i] = 0; out[i] += a[i] * w[0]; out[i] += a[i + 1] * w[1]} over a symbolic row: the
   * element summed in a local variable, the taps read once, and only when the row is not empty.
   */
  @Test
  void rowAccumulatorAndInvariantTapsRunLikeTheLoop() throws Exception {
    Var n = new Var("n");
    Buffer a = Fixtures.param("a", DType.FLOAT32, n.add(1));
    Buffer w = Fixtures.param("w", DType.FLOAT32, IntImm.of(2));
    Buffer out = Fixtures.param("out", DType.FLOAT32, n);
    Var i = new Var("i");
    Load self = Load.of(out, i);
    var body =
        Fixtures.loop(
            i,
            IntImm.of(0),
            n,
            ForKind.VECTORIZED,
            null,
            Seq.of(
                new Store(out, i, FloatImm.f32(0)),
                new Store(out, i, self.add(Load.of(a, i).mul(Load.of(w, IntImm.of(0))))),
                new Store(out, i, self.add(Load.of(a, i.add(1)).mul(Load.of(w, IntImm.of(1)))))));
    PrimFunc f = new PrimFunc("taps", List.of(a, w, out), List.of(n), body);
    String src = JavaCodegen.generate(List.of(f), "", "Taps");
    assertThat(src)
        .contains("if (n > 0) {")
        .contains("final float w_v = w.getAtIndex(JAVA_FLOAT, 0);")
        .contains("float out_acc = 0.0f;")
        .contains("out_acc = out_acc + (a.getAtIndex(JAVA_FLOAT, i) * w_v);")
        .contains("out.setAtIndex(JAVA_FLOAT, i, out_acc);");
    Method m = method(JavaSourceCompiler.compile("Taps", src), "taps");
    try (Arena arena = Arena.ofShared()) {
      for (int len : new int[] {1, 7, 33}) {
        MemorySegment as = CCodegenTest.randomFloats(arena, len + 1, new Random(len));
        MemorySegment ws = CCodegenTest.randomFloats(arena, 2, new Random(len + 1));
        MemorySegment os = arena.allocate(JAVA_FLOAT, len);
        m.invoke(null, as, ws, os, len);
        for (int k = 0; k < len; k++) {
          float expected =
              0f
                  + as.getAtIndex(JAVA_FLOAT, k) * ws.getAtIndex(JAVA_FLOAT, 0)
                  + as.getAtIndex(JAVA_FLOAT, k + 1) * ws.getAtIndex(JAVA_FLOAT, 1);
          assertThat(os.getAtIndex(JAVA_FLOAT, k)).as("out[%d], n=%d", k, len).isEqualTo(expected);
        }
      }
      // An empty row reads no tap: with an empty filter, a tap read before the loop would throw.
      m.invoke(null, arena.allocate(JAVA_FLOAT, 1), MemorySegment.NULL, arena.allocate(4), 0);
    }
  }

  /**
   * {@code c[i] += a[i * k + r] * b[r]} over a symbolic reduce axis: the element accumulated in a
   * local variable for the whole reduce loop, stored once; an empty reduce axis leaves it as it was
   * and touches nothing.
   */
  @Test
  void reduceAxisAccumulatesInALocalVariable() throws Exception {
    Var rows = new Var("rows");
    Var k = new Var("k");
    Buffer a = Fixtures.param("a", DType.FLOAT32, rows, k);
    Buffer b = Fixtures.param("b", DType.FLOAT32, k);
    Buffer c = Fixtures.param("c", DType.FLOAT32, rows);
    Var i = new Var("i");
    Var r = new Var("r");
    var body =
        For.serial(
            i,
            IntImm.of(0),
            rows,
            For.serial(
                r,
                IntImm.of(0),
                k,
                new Store(
                    c, i, Load.of(c, i).add(Load.of(a, i.mul(k).add(r)).mul(Load.of(b, r))))));
    PrimFunc f = new PrimFunc("matvec", List.of(a, b, c), List.of(rows, k), body);
    String src = JavaCodegen.generate(List.of(f), "", "MatVec");
    assertThat(src)
        .contains("if (k > 0) {")
        .contains("float c_acc = c.getAtIndex(JAVA_FLOAT, i);")
        .contains("c_acc = c_acc + (a.getAtIndex(JAVA_FLOAT, (i * k) + r) * b.getAtIndex(")
        .contains("c.setAtIndex(JAVA_FLOAT, i, c_acc);");
    Method m = method(JavaSourceCompiler.compile("MatVec", src), "matvec");
    try (Arena arena = Arena.ofShared()) {
      int n = 5;
      for (int depth : new int[] {0, 1, 13}) {
        Random rnd = new Random(depth);
        MemorySegment as = CCodegenTest.randomFloats(arena, Math.max(1, n * depth), rnd);
        MemorySegment bs = CCodegenTest.randomFloats(arena, Math.max(1, depth), rnd);
        MemorySegment cs = CCodegenTest.randomFloats(arena, n, rnd);
        float[] expected = cs.toArray(JAVA_FLOAT);
        for (int x = 0; x < n; x++) {
          for (int y = 0; y < depth; y++) {
            expected[x] += as.getAtIndex(JAVA_FLOAT, x * depth + y) * bs.getAtIndex(JAVA_FLOAT, y);
          }
        }
        m.invoke(null, as, bs, cs, n, depth);
        assertThat(cs.toArray(JAVA_FLOAT)).as("k=%d", depth).containsExactly(expected);
      }
    }
  }

  /** A load under a select is read where the select reads it, never before the loop. */
  @Test
  void loadUnderAConditionStaysInTheLoop() throws Exception {
    Var n = new Var("n");
    Var m = new Var("m");
    Buffer b = Fixtures.param("b", DType.FLOAT32, m);
    Buffer out = Fixtures.param("out", DType.FLOAT32, n);
    Var i = new Var("i");
    var body =
        For.serial(
            i,
            IntImm.of(0),
            n,
            new Store(out, i, TE.select(m.gt(0), Load.of(b, IntImm.of(0)), FloatImm.f32(-1))));
    PrimFunc f = new PrimFunc("guarded", List.of(b, out), List.of(n, m), body);
    String src = JavaCodegen.generate(List.of(f), "", "Guarded");
    assertThat(src).doesNotContain("b_v").doesNotContain("if (n > 0)");
    Method fn = method(JavaSourceCompiler.compile("Guarded", src), "guarded");
    try (Arena arena = Arena.ofShared()) {
      MemorySegment os = arena.allocate(JAVA_FLOAT, 3);
      fn.invoke(null, MemorySegment.NULL, os, 3, 0);
      assertThat(os.toArray(JAVA_FLOAT)).containsExactly(-1f, -1f, -1f);
    }
  }

  /**
   * A constant-size local array allocated inside a serial loop of a parallel task is allocated once
   * per task, before the loop; each task still has its own (the tasks run at once).
   */
  @Test
  void localArrayInsideALoopIsAllocatedOncePerTask() throws Exception {
    Var tasks = new Var("tasks");
    Var rows = new Var("rows");
    Buffer out = Fixtures.param("out", DType.FLOAT32, tasks, rows, IntImm.of(4));
    Buffer t = new Buffer("t", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Var p = new Var("p");
    Var r = new Var("r");
    Var j = new Var("j");
    Var j2 = new Var("j");
    var base = p.mul(rows).add(r).mul(4);
    var row =
        new Allocate(
            t,
            IntImm.of(4),
            Seq.of(
                For.serial(
                    j,
                    IntImm.of(0),
                    IntImm.of(4),
                    new Store(t, j, TE.cast(DType.FLOAT32, base.add(j)))),
                For.serial(
                    j2,
                    IntImm.of(0),
                    IntImm.of(4),
                    new Store(out, base.add(j2), Load.of(t, IntImm.of(3).sub(j2))))));
    var body =
        Fixtures.loop(
            p, IntImm.of(0), tasks, ForKind.PARALLEL, null, For.serial(r, IntImm.of(0), rows, row));
    PrimFunc f = new PrimFunc("rows", List.of(out), List.of(tasks, rows), body);
    String src = JavaCodegen.generate(List.of(f), "", "RowsOnce");
    int alloc = src.indexOf("final float[] t = new float[4];");
    assertThat(alloc).isPositive().isLessThan(src.indexOf("for (int r = 0;"));
    assertThat(src.indexOf("forEach(p -> {")).isLessThan(alloc);
    Method m = method(JavaSourceCompiler.compile("RowsOnce", src), "rows");
    try (Arena arena = Arena.ofShared()) {
      int nt = 64;
      int nr = 9;
      MemorySegment os = arena.allocate(JAVA_FLOAT, nt * nr * 4);
      m.invoke(null, os, nt, nr);
      for (int x = 0; x < nt * nr; x++) {
        for (int y = 0; y < 4; y++) {
          assertThat(os.getAtIndex(JAVA_FLOAT, x * 4L + y)).isEqualTo(x * 4f + 3 - y);
        }
      }
    }
  }

  /**
   * Loops that copy contiguous runs (segment to array, array to array, array to segment, segment to
   * segment at an offset) become bulk copies; on rows of any length, none included.
   */
  @Test
  void contiguousCopiesAreBulkCopies() throws Exception {
    Var rows = new Var("rows");
    Var n = new Var("n");
    Buffer in = Fixtures.param("in", DType.FLOAT32, rows, n);
    Buffer out = Fixtures.param("out", DType.FLOAT32, rows, n);
    Buffer shifted = Fixtures.param("shifted", DType.FLOAT32, rows, n.add(1));
    Buffer t = new Buffer("t", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Buffer u = new Buffer("u", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Var r = new Var("r");
    Var[] j = {new Var("j"), new Var("j"), new Var("j"), new Var("j")};
    var row = r.mul(n);
    var body =
        For.serial(
            r,
            IntImm.of(0),
            rows,
            new Allocate(
                t,
                n,
                new Allocate(
                    u,
                    n,
                    Seq.of(
                        For.serial(
                            j[0], IntImm.of(0), n, new Store(t, j[0], Load.of(in, row.add(j[0])))),
                        For.serial(j[1], IntImm.of(0), n, new Store(u, j[1], Load.of(t, j[1]))),
                        For.serial(
                            j[2], IntImm.of(0), n, new Store(out, row.add(j[2]), Load.of(u, j[2]))),
                        For.serial(
                            j[3],
                            IntImm.of(0),
                            n,
                            new Store(
                                shifted,
                                r.mul(n.add(1)).add(j[3]).add(1),
                                Load.of(in, row.add(j[3]))))))));
    PrimFunc f = new PrimFunc("copies", List.of(in, out, shifted), List.of(rows, n), body);
    String src = JavaCodegen.generate(List.of(f), "", "Copies");
    assertThat(src)
        .contains("MemorySegment.copy(in, JAVA_FLOAT, 4L * (r * n), t, 0, n);")
        .contains("System.arraycopy(t, 0, u, 0, n);")
        .contains("MemorySegment.copy(u, 0, out, JAVA_FLOAT, 4L * (r * n), n);")
        .contains("MemorySegment.copy(in, JAVA_FLOAT, 4L * (r * n), shifted, JAVA_FLOAT, 4L * ")
        .doesNotContain("for (int j");
    Method m = method(JavaSourceCompiler.compile("Copies", src), "copies");
    try (Arena arena = Arena.ofShared()) {
      for (int len : new int[] {0, 1, 17}) {
        int nr = 3;
        MemorySegment is = CCodegenTest.randomFloats(arena, Math.max(1, nr * len), new Random(len));
        MemorySegment os = arena.allocate(JAVA_FLOAT, Math.max(1, nr * len));
        MemorySegment ss = arena.allocate(JAVA_FLOAT, nr * (len + 1));
        m.invoke(null, is, os, ss, nr, len);
        for (int x = 0; x < nr; x++) {
          assertThat(ss.getAtIndex(JAVA_FLOAT, x * (len + 1L))).isEqualTo(0f);
          for (int y = 0; y < len; y++) {
            float v = is.getAtIndex(JAVA_FLOAT, x * len + y);
            assertThat(os.getAtIndex(JAVA_FLOAT, x * len + y)).isEqualTo(v);
            assertThat(ss.getAtIndex(JAVA_FLOAT, x * (len + 1L) + y + 1)).isEqualTo(v);
          }
        }
      }
    }
  }

  /**
   * A loop that stores a row of a parameter computes it into a staging array of its task, copied in
   * bulk after the loop; tasks running at once each have their own, and a row at an offset (min 1)
   * lands where the loop would have stored it.
   */
  @Test
  void rowOfAParameterIsStagedPerTask() throws Exception {
    Var tasks = new Var("tasks");
    Buffer in = Fixtures.param("in", DType.FLOAT32, tasks, IntImm.of(8));
    Buffer out = Fixtures.param("out", DType.FLOAT32, tasks, IntImm.of(8));
    Var p = new Var("p");
    Var j = new Var("j");
    var value = Load.of(in, p.mul(8).add(j)).mul(FloatImm.f32(2)).max(FloatImm.f32(0));
    var body =
        Fixtures.loop(
            p,
            IntImm.of(0),
            tasks,
            ForKind.PARALLEL,
            null,
            Fixtures.loop(
                j,
                IntImm.of(1),
                IntImm.of(7),
                ForKind.VECTORIZED,
                null,
                new Store(out, p.mul(8).add(j), value)));
    PrimFunc f = new PrimFunc("relu2", List.of(in, out), List.of(tasks), body);
    String src = JavaCodegen.generate(List.of(f), "", "Staged");
    int stage = src.indexOf("final float[] stage_float = new float[7];");
    assertThat(stage).isGreaterThan(src.indexOf("forEach(p -> {"));
    assertThat(src)
        .contains("stage_float[j - 1] = Math.max(")
        .contains("MemorySegment.copy(stage_float, 0, out, JAVA_FLOAT, 4L * ((p * 8) + 1), 7);");
    Method m = method(JavaSourceCompiler.compile("Staged", src), "relu2");
    try (Arena arena = Arena.ofShared()) {
      int nt = 200;
      MemorySegment is = CCodegenTest.randomFloats(arena, nt * 8, new Random(5));
      MemorySegment os = arena.allocate(JAVA_FLOAT, nt * 8);
      os.fill((byte) 0x7f); // 0x7f7f7f7f: untouched elements keep it
      m.invoke(null, is, os, nt);
      float untouched = Float.intBitsToFloat(0x7f7f7f7f);
      for (int x = 0; x < nt * 8; x++) {
        int col = x % 8;
        float expected = col == 0 ? untouched : Math.max(is.getAtIndex(JAVA_FLOAT, x) * 2f, 0f);
        assertThat(os.getAtIndex(JAVA_FLOAT, x)).as("out[%d]", x).isEqualTo(expected);
      }
    }
  }

  /**
   * A row of nine taps summed from a local plane ({@code row[j] = 0; row[j] += plane[r * w + j + c]
   * * f[c]} for c in three rows of three), row after row, is flattened into one row over the
   * plane's stride ({@link JavaRowFlatten}) and split into three loops reading the plane itself,
   * the taps of a loop a row apart; on ragged rows (w = 19) the sums equal the loop's up to
   * rounding. A tap under a select keeps the row in one loop.
   */
  @Test
  void rowOfTapsIsSplitOverAWindow() throws Exception {
    int w = 19;
    int rows = 5;
    Buffer in = Fixtures.param("in", DType.FLOAT32, IntImm.of(rows + 2), IntImm.of(w + 2));
    Buffer f = Fixtures.param("f", DType.FLOAT32, IntImm.of(9));
    Buffer out = Fixtures.param("out", DType.FLOAT32, IntImm.of(rows), IntImm.of(w));
    Buffer plane = new Buffer("plane", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Buffer row = new Buffer("row", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Var i = new Var("i");
    Var r = new Var("r");
    Var j = new Var("j");
    Var j2 = new Var("j");
    int size = (rows + 2) * (w + 2);
    List<dev.kernelgen.tir.Stmt> taps = new java.util.ArrayList<>();
    taps.add(new Store(row, j, FloatImm.f32(0)));
    for (int c = 0; c < 9; c++) {
      int off = (c / 3) * (w + 2) + c % 3;
      taps.add(
          new Store(
              row,
              j,
              Load.of(row, j)
                  .add(
                      Load.of(plane, r.mul(w + 2).add(j).add(off)).mul(Load.of(f, IntImm.of(c))))));
    }
    var body =
        new Allocate(
            plane,
            IntImm.of(size),
            Seq.of(
                For.serial(i, IntImm.of(0), IntImm.of(size), new Store(plane, i, Load.of(in, i))),
                new Allocate(
                    row,
                    IntImm.of(w),
                    For.serial(
                        r,
                        IntImm.of(0),
                        IntImm.of(rows),
                        Seq.of(
                            For.serial(j, IntImm.of(0), IntImm.of(w), Seq.of(taps)),
                            For.serial(
                                j2,
                                IntImm.of(0),
                                IntImm.of(w),
                                new Store(out, r.mul(w).add(j2), Load.of(row, j2))))))));
    PrimFunc fn = new PrimFunc("conv", List.of(in, f, out), List.of(), body);
    String src = JavaCodegen.generate(List.of(fn), "", "Split");
    // The rows flattened into one (JavaRowFlatten), read from the plane where they are.
    assertThat(src)
        .doesNotContain("window")
        .contains("for (int j = 0; j < 103; ++j) {")
        .contains(
            "row_rows[j] = ((0.0f + (plane[j] * f_v)) + (plane[j + 21] * f_v_3))"
                + " + (plane[j + 42] * f_v_6);")
        .contains("row_rows[j_1] = ((row_rows[j_1] + (plane[j_1 + 1] * f_v_1))")
        .contains("System.arraycopy(row_rows, r * 21, row_plane, r * 19, 19);")
        .contains("MemorySegment.copy(row_plane, 0, out, JAVA_FLOAT, 0L, 95);");
    Method m = method(JavaSourceCompiler.compile("Split", src), "conv");
    try (Arena arena = Arena.ofShared()) {
      MemorySegment is = CCodegenTest.randomFloats(arena, size, new Random(9));
      MemorySegment fs = CCodegenTest.randomFloats(arena, 9, new Random(10));
      MemorySegment os = arena.allocate(JAVA_FLOAT, rows * w);
      m.invoke(null, is, fs, os);
      for (int y = 0; y < rows; y++) {
        for (int x = 0; x < w; x++) {
          float expected = 0f;
          for (int c = 0; c < 9; c++) {
            expected +=
                is.getAtIndex(JAVA_FLOAT, (y + c / 3) * (w + 2L) + x + c % 3)
                    * fs.getAtIndex(JAVA_FLOAT, c);
          }
          assertThat(os.getAtIndex(JAVA_FLOAT, (long) y * w + x))
              .isCloseTo(
                  expected, org.assertj.core.data.Offset.offset(1e-5f * (1 + Math.abs(expected))));
        }
      }
    }
    // A tap under a select: its load may be out of range where the select does not take it.
    taps.set(
        1,
        new Store(
            row,
            j,
            Load.of(row, j)
                .add(
                    TE.select(
                        j.gt(0), Load.of(plane, r.mul(w + 2).add(j).sub(1)), FloatImm.f32(0)))));
    var guarded =
        new Allocate(
            plane,
            IntImm.of(size),
            new Allocate(
                row,
                IntImm.of(w),
                For.serial(
                    r,
                    IntImm.of(0),
                    IntImm.of(rows),
                    For.serial(j, IntImm.of(0), IntImm.of(w), Seq.of(taps)))));
    String unsplit =
        JavaCodegen.generate(
            List.of(new PrimFunc("conv", List.of(in, f, out), List.of(), guarded)), "", "G");
    assertThat(unsplit).doesNotContain("window").contains("float row_acc = 0.0f;");
  }

  /**
   * The same rows of taps read from a parameter: flattened into one row, whose window is copied
   * from the segment once; the reader's product on the flat row in place, its rows compacted into a
   * dense plane, copied out at once.
   */
  @Test
  void rowOfTapsFromASegmentIsSplitOverAWindow() throws Exception {
    int w = 19;
    int rows = 5;
    Buffer in = Fixtures.param("in", DType.FLOAT32, IntImm.of(rows + 2), IntImm.of(w + 2));
    Buffer f = Fixtures.param("f", DType.FLOAT32, IntImm.of(9));
    Buffer out = Fixtures.param("out", DType.FLOAT32, IntImm.of(rows), IntImm.of(w));
    Buffer row = new Buffer("row", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Var r = new Var("r");
    Var j = new Var("j");
    Var j2 = new Var("j");
    List<dev.kernelgen.tir.Stmt> taps = new java.util.ArrayList<>();
    taps.add(new Store(row, j, FloatImm.f32(0)));
    for (int c = 0; c < 9; c++) {
      int off = (c / 3) * (w + 2) + c % 3;
      taps.add(
          new Store(
              row,
              j,
              Load.of(row, j)
                  .add(Load.of(in, r.mul(w + 2).add(j).add(off)).mul(Load.of(f, IntImm.of(c))))));
    }
    var body =
        For.serial(
            r,
            IntImm.of(0),
            IntImm.of(rows),
            new Allocate(
                row,
                IntImm.of(w),
                Seq.of(
                    For.serial(j, IntImm.of(0), IntImm.of(w), Seq.of(taps)),
                    For.serial(
                        j2,
                        IntImm.of(0),
                        IntImm.of(w),
                        new Store(out, r.mul(w).add(j2), Load.of(row, j2).mul(FloatImm.f32(2)))))));
    PrimFunc fn = new PrimFunc("conv", List.of(in, f, out), List.of(), body);
    String src = JavaCodegen.generate(List.of(fn), "", "SplitSegment");
    assertThat(src)
        .contains("MemorySegment.copy(in, JAVA_FLOAT, 0L, window_float, 0, 147);")
        .contains("row_rows[j] = ((0.0f + (window_float[j] * f_v))")
        .contains("row_rows[j_3] = row_rows[j_3] * 2.0f;")
        .contains("System.arraycopy(row_rows, r * 21, row_plane, r * 19, 19);")
        .contains("MemorySegment.copy(row_plane, 0, out, JAVA_FLOAT, 0L, 95);");
    Method m = method(JavaSourceCompiler.compile("SplitSegment", src), "conv");
    try (Arena arena = Arena.ofShared()) {
      MemorySegment is = CCodegenTest.randomFloats(arena, (rows + 2) * (w + 2), new Random(11));
      MemorySegment fs = CCodegenTest.randomFloats(arena, 9, new Random(12));
      MemorySegment os = arena.allocate(JAVA_FLOAT, rows * w);
      m.invoke(null, is, fs, os);
      for (int y = 0; y < rows; y++) {
        for (int x = 0; x < w; x++) {
          float expected = 0f;
          for (int c = 0; c < 9; c++) {
            expected +=
                is.getAtIndex(JAVA_FLOAT, (y + c / 3) * (w + 2L) + x + c % 3)
                    * fs.getAtIndex(JAVA_FLOAT, c);
          }
          expected *= 2;
          assertThat(os.getAtIndex(JAVA_FLOAT, (long) y * w + x))
              .isCloseTo(
                  expected, org.assertj.core.data.Offset.offset(1e-5f * (1 + Math.abs(expected))));
        }
      }
    }
  }

  private static Method method(Class<?> k, String name) {
    return Arrays.stream(k.getMethods())
        .filter(x -> x.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
