package dev.kernelgen.codegen;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.JavaSourceCompiler;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.Store;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@link JavaRowFlatten} and the per-thread workspace of the Java printer: rows of taps over a
 * plane of row stride {@code s} (wider than the row, equal, narrower), flattened and run against
 * the loop computed here; the forms it must leave alone; arrays reused across calls.
 */
class JavaRowFlattenTest {
  /**
   * {@code out[r*w + j] = 3 * sum_t plane[r*s + j + off_t] * f[t]}, with the plane copied from
   * {@code in}: flattened for every stride, equal to the loop (ragged widths, gaps between rows of
   * 0, 2 and 5 elements, rows that overlap).
   */
  @Test
  void flattenedRowsEqualTheLoop() throws Exception {
    int[][] shapes = {{5, 19, 21}, {4, 7, 7}, {3, 16, 21}, {6, 9, 6}, {2, 1, 3}};
    for (int[] sh : shapes) {
      int rows = sh[0];
      int w = sh[1];
      int s = sh[2];
      int[] offsets = {0, 1, s, s + 2, 2 * s + 1};
      String src = JavaCodegen.generate(List.of(conv(rows, w, s, offsets, e -> e)), "", "Flat");
      assertThat(src).as("rows %d, w %d, s %d", rows, w, s).contains("row_rows[");
      int size = (rows + 2) * s + w + 2;
      Method m = method(JavaSourceCompiler.compile("Flat", src), "conv");
      try (Arena arena = Arena.ofShared()) {
        MemorySegment is = CCodegenTest.randomFloats(arena, size, new Random(rows * 31 + w));
        MemorySegment fs = CCodegenTest.randomFloats(arena, offsets.length, new Random(s));
        MemorySegment os = arena.allocate(JAVA_FLOAT, rows * w);
        m.invoke(null, is, fs, os);
        for (int y = 0; y < rows; y++) {
          for (int x = 0; x < w; x++) {
            float expected = 0f;
            for (int t = 0; t < offsets.length; t++) {
              expected +=
                  is.getAtIndex(JAVA_FLOAT, (long) y * s + x + offsets[t])
                      * fs.getAtIndex(JAVA_FLOAT, t);
            }
            expected *= 3;
            assertThat(os.getAtIndex(JAVA_FLOAT, (long) y * w + x))
                .as("rows %d, w %d, s %d: out[%d][%d]", rows, w, s, y, x)
                .isCloseTo(
                    expected,
                    org.assertj.core.data.Offset.offset(1e-5f * (1 + Math.abs(expected))));
          }
        }
      }
    }
  }

  /** A tap under a select may read outside the plane between rows: the rows stay rows. */
  @Test
  void conditionalTapStaysRowByRow() {
    String src =
        JavaCodegen.generate(
            List.of(
                conv(
                    4,
                    9,
                    11,
                    new int[] {0, 1, 11},
                    e -> TE.select(e.gt(FloatImm.f32(0)), e, FloatImm.f32(0)))),
            "",
            "Cond");
    assertThat(src).doesNotContain("_rows");
  }

  /** Rows whose taps read the plane at different strides are no flat row. */
  @Test
  void tapsOfTwoStridesStayRowByRow() {
    Var r = new Var("r");
    Var j = new Var("j");
    Buffer plane = new Buffer("plane", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Buffer row = new Buffer("row", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Buffer out = Fixtures.param("out", DType.FLOAT32, IntImm.of(20));
    Load self = Load.of(row, j);
    Stmt writer =
        For.serial(
            j,
            IntImm.of(0),
            IntImm.of(4),
            Seq.of(
                new Store(row, j, Load.of(plane, r.mul(5).add(j))),
                new Store(row, j, self.add(Load.of(plane, r.mul(6).add(j))))));
    Var j2 = new Var("j");
    Stmt reader =
        For.serial(
            j2, IntImm.of(0), IntImm.of(4), new Store(out, r.mul(4).add(j2), Load.of(row, j2)));
    Stmt body =
        new Allocate(
            plane,
            IntImm.of(64),
            For.serial(
                r,
                IntImm.of(0),
                IntImm.of(5),
                new Allocate(row, IntImm.of(4), Seq.of(writer, reader))));
    assertThat(JavaRowFlatten.apply(body)).isSameAs(body);
  }

  /** A reader that stores into what the writer reads must see the rows in their order. */
  @Test
  void readerStoringTheWritersSourceStaysRowByRow() {
    Var r = new Var("r");
    Var j = new Var("j");
    Buffer plane = new Buffer("plane", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Buffer row = new Buffer("row", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Load self = Load.of(row, j);
    Stmt writer =
        For.serial(
            j,
            IntImm.of(0),
            IntImm.of(4),
            Seq.of(
                new Store(row, j, Load.of(plane, r.mul(5).add(j))),
                new Store(row, j, self.add(Load.of(plane, r.mul(5).add(j).add(5))))));
    Var j2 = new Var("j");
    Stmt reader =
        For.serial(
            j2,
            IntImm.of(0),
            IntImm.of(4),
            new Store(plane, r.mul(5).add(j2).add(5), Load.of(row, j2)));
    Stmt body =
        new Allocate(
            plane,
            IntImm.of(64),
            For.serial(
                r,
                IntImm.of(0),
                IntImm.of(5),
                new Allocate(row, IntImm.of(4), Seq.of(writer, reader))));
    assertThat(JavaRowFlatten.apply(body)).isSameAs(body);
  }

  /**
   * A function without parallel loops takes an array of a few kilobytes from the thread's
   * workspace: two calls give the same result, and a hundred calls allocate far less than the array
   * once per call would.
   */
  @Test
  void arraysComeFromTheThreadsWorkspace() throws Exception {
    int rows = 40;
    int w = 30;
    int s = 32;
    int[] offsets = {0, 1, s, s + 1};
    String src = JavaCodegen.generate(List.of(conv(rows, w, s, offsets, e -> e)), "", "Ws");
    assertThat(src)
        .contains("private static final ThreadLocal<float[]> WORKSPACE_conv_plane =")
        .contains("final float[] plane = WORKSPACE_conv_plane.get();")
        .contains("final float[] row_rows = WORKSPACE_conv_row_rows.get();");
    Method m = method(JavaSourceCompiler.compile("Ws", src), "conv");
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    try (Arena arena = Arena.ofShared()) {
      int size = (rows + 2) * s + w + 2;
      MemorySegment is = CCodegenTest.randomFloats(arena, size, new Random(5));
      MemorySegment fs = CCodegenTest.randomFloats(arena, offsets.length, new Random(6));
      MemorySegment first = arena.allocate(JAVA_FLOAT, rows * w);
      MemorySegment second = arena.allocate(JAVA_FLOAT, rows * w);
      m.invoke(null, is, fs, first);
      m.invoke(null, is, fs, second);
      assertThat(second.mismatch(first)).isEqualTo(-1);
      long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < 100; i++) {
        m.invoke(null, is, fs, second);
      }
      long perCall = (threads.getCurrentThreadAllocatedBytes() - before) / 100;
      assertThat(perCall).as("bytes allocated per call").isLessThan((long) size * 4 / 4);
    }
  }

  /**
   * {@code conv}: copies {@code in} into a local plane, then per row {@code r}: {@code row[j] =
   * sum_t wrap(plane[r*s + j + off_t]) * f[t]} and {@code out[r*w + j] = row[j] * 3}.
   */
  private static PrimFunc conv(int rows, int w, int s, int[] offsets, UnaryOperator<Expr> wrap) {
    int size = (rows + 2) * s + w + 2;
    Buffer in = Fixtures.param("in", DType.FLOAT32, IntImm.of(size));
    Buffer f = Fixtures.param("f", DType.FLOAT32, IntImm.of(offsets.length));
    Buffer out = Fixtures.param("out", DType.FLOAT32, IntImm.of(rows * w));
    Buffer plane = new Buffer("plane", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Buffer row = new Buffer("row", DType.FLOAT32, MemoryScope.LOCAL, List.of());
    Var i = new Var("i");
    Var r = new Var("r");
    Var j = new Var("j");
    Var j2 = new Var("j");
    List<Stmt> taps = new ArrayList<>();
    taps.add(new Store(row, j, FloatImm.f32(0)));
    for (int t = 0; t < offsets.length; t++) {
      Expr tap = wrap.apply(Load.of(plane, r.mul(s).add(j).add(offsets[t])));
      taps.add(new Store(row, j, Load.of(row, j).add(tap.mul(Load.of(f, IntImm.of(t))))));
    }
    Stmt body =
        new Allocate(
            plane,
            IntImm.of(size),
            Seq.of(
                For.serial(i, IntImm.of(0), IntImm.of(size), new Store(plane, i, Load.of(in, i))),
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
                                new Store(
                                    out,
                                    r.mul(w).add(j2),
                                    Load.of(row, j2).mul(FloatImm.f32(3)))))))));
    return new PrimFunc("conv", List.of(in, f, out), List.of(), body);
  }

  private static Method method(Class<?> k, String name) {
    return Arrays.stream(k.getMethods())
        .filter(x -> x.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
