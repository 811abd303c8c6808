package dev.kernelgen.codegen;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.JavaSourceCompiler;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Store;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JavaCodegenTest {
  @Test
  void printsVectorAdd() {
    assertThat(JavaCodegen.generate(List.of(Fixtures.vadd()), "gen.kernels", "Vec"))
        .isEqualTo(
            """
            package gen.kernels;

            import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

            import java.lang.foreign.MemorySegment;
            import java.util.stream.IntStream;

            /** Kernels of module Vec: generated, do not edit. */
            public final class Vec {
              private Vec() {}

              public static void vadd(MemorySegment A, MemorySegment B, MemorySegment C, int n) {
                IntStream.range(0, Math.floorDiv(n + 7, 8)).parallel().forEach(i_outer -> {
                  final float[] T_local = new float[8];
                  for (int i_inner = 0; i_inner < 8; ++i_inner) {
                    final int idx = (i_outer * 8) + i_inner;
                    T_local[i_inner] = (idx < n) ? (A.getAtIndex(JAVA_FLOAT, idx) \
            + B.getAtIndex(JAVA_FLOAT, idx)) : 0.0f;
                  }
                  for (int i_inner_1 = 0; i_inner_1 < 8; ++i_inner_1) {
                    if (((i_outer * 8) + i_inner_1) < n) {
                      C.setAtIndex(JAVA_FLOAT, (i_outer * 8) + i_inner_1, T_local[i_inner_1] * 2.5f);
                    }
                  }
                });
              }
            }
            """);
  }

  @Test
  void compiledClassRunsLikeAJavaLoop() throws Exception {
    String src =
        JavaCodegen.generate(
            List.of(Fixtures.vadd(), Fixtures.floorDivMod(), Fixtures.reverseBlocks()),
            "gen",
            "Kernels");
    Class<?> k = JavaSourceCompiler.compile("gen.Kernels", src);
    try (Arena arena = Arena.ofShared()) {
      int n = 1003;
      Random rnd = new Random(3);
      MemorySegment a = CCodegenTest.randomFloats(arena, n, rnd);
      MemorySegment b = CCodegenTest.randomFloats(arena, n, rnd);
      MemorySegment c = arena.allocate(JAVA_FLOAT, n);
      method(k, "vadd").invoke(null, a, b, c, n);
      for (int i = 0; i < n; i++) {
        assertThat(c.getAtIndex(JAVA_FLOAT, i))
            .isEqualTo((a.getAtIndex(JAVA_FLOAT, i) + b.getAtIndex(JAVA_FLOAT, i)) * 2.5f);
      }

      int m = 500;
      MemorySegment x = arena.allocate(JAVA_INT, m);
      MemorySegment y = arena.allocate(JAVA_INT, m);
      for (int i = 0; i < m; i++) {
        x.setAtIndex(JAVA_INT, i, rnd.nextInt(-50, 51));
        y.setAtIndex(JAVA_INT, i, rnd.nextBoolean() ? rnd.nextInt(1, 8) : -rnd.nextInt(1, 8));
      }
      MemorySegment q = arena.allocate(JAVA_INT, m);
      MemorySegment r = arena.allocate(JAVA_INT, m);
      MemorySegment w = arena.allocate(JAVA_LONG, m);
      method(k, "floor_div_mod").invoke(null, x, y, q, r, w, m);
      for (int i = 0; i < m; i++) {
        int xi = x.getAtIndex(JAVA_INT, i);
        int yi = y.getAtIndex(JAVA_INT, i);
        assertThat(q.getAtIndex(JAVA_INT, i)).isEqualTo(Math.floorDiv(xi, yi));
        assertThat(r.getAtIndex(JAVA_INT, i)).isEqualTo(Math.floorMod(xi, yi));
        assertThat(w.getAtIndex(JAVA_LONG, i))
            .isEqualTo(Math.floorDiv((long) xi, -7L) + Math.max(xi, yi));
      }
    }
  }

  /** A parallel loop inside a serial one captures a final copy of the serial counter. */
  @Test
  void parallelLoopInsideASerialLoopCompilesAndRuns() throws Exception {
    Var rows = new Var("rows");
    Buffer out = Fixtures.param("out", DType.FLOAT32, rows, IntImm.of(16));
    Var r = new Var("r");
    Var c = new Var("c");
    Var v = new Var("v", DType.FLOAT32);
    var body =
        For.serial(
            r,
            IntImm.of(0),
            rows,
            Fixtures.loop(
                c,
                IntImm.of(0),
                IntImm.of(16),
                ForKind.PARALLEL,
                null,
                new LetStmt(
                    v,
                    dev.kernelgen.te.TE.cast(DType.FLOAT32, r.mul(16).add(c)),
                    new Store(out, r.mul(16).add(c), v.mul(FloatImm.f32(0.5))))));
    PrimFunc f = new PrimFunc("rows", List.of(out), List.of(rows), body);
    String src = JavaCodegen.generate(List.of(f), "", "Rows");
    assertThat(src)
        .contains("for (int r_counter = 0; r_counter < rows; ++r_counter) {")
        .contains("final int r = r_counter;");
    Class<?> k = JavaSourceCompiler.compile("Rows", src);
    try (Arena arena = Arena.ofShared()) {
      MemorySegment o = arena.allocate(JAVA_FLOAT, 3 * 16);
      method(k, "rows").invoke(null, o, 3);
      for (int i = 0; i < 48; i++) {
        assertThat(o.getAtIndex(JAVA_FLOAT, i)).isEqualTo(i * 0.5f);
      }
    }
  }

  @Test
  void loadsOfLocalArraysUseIntIndices() {
    Var n = new Var("n", DType.INT64);
    Buffer a = Fixtures.param("A", DType.INT64, n);
    Buffer t = new Buffer("t", DType.INT64, dev.kernelgen.te.MemoryScope.LOCAL, List.of());
    Var i = new Var("i", DType.INT64);
    var body =
        new dev.kernelgen.tir.Allocate(
            t,
            IntImm.of(DType.INT64, 4),
            For.serial(
                i,
                IntImm.of(DType.INT64, 0),
                IntImm.of(DType.INT64, 4),
                dev.kernelgen.tir.Seq.of(
                    new Store(t, i, i.mul(3)), new Store(a, i, Load.of(t, i).max(n)))));
    String src =
        JavaCodegen.generate(List.of(new PrimFunc("f", List.of(a), List.of(n), body)), "", "L");
    assertThat(src)
        .contains("final long[] t = new long[(int) 4L];")
        .contains("t[(int) i] = i * 3L;")
        .contains("A.setAtIndex(JAVA_LONG, i, Math.max(t[(int) i], n));");
    JavaSourceCompiler.compile("L", src);
  }

  private static Method method(Class<?> k, String name) {
    return Arrays.stream(k.getMethods())
        .filter(m -> m.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
