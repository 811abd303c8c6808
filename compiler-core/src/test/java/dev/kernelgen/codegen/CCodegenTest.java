package dev.kernelgen.codegen;

import static dev.kernelgen.te.TE.select;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.CKernels;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.ProducerStore;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Store;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CCodegenTest {
  @Test
  void printsVectorAdd() {
    assertThat(CCodegen.generate(List.of(Fixtures.vadd()), "vec"))
        .isEqualTo(
            """
            // kernelgen module vec: generated C, do not edit.
            #include <math.h>
            #include <stdbool.h>
            #include <stdint.h>
            #include <stdlib.h>

            __attribute__((visibility("default"))) const int32_t kernelgen_status_abi = 1;

            static inline int32_t kg_floordiv_i32(int32_t a, int32_t b) {
              int32_t q = a / b;
              int32_t r = a - q * b;
              return q - (int32_t) ((r != 0) & ((r ^ b) < 0));
            }

            __attribute__((visibility("default"))) int64_t vadd(const float* restrict A, \
            const float* restrict B, float* restrict C, int32_t n) {
              int64_t kg_status_ = 0;
              #pragma omp parallel for
              for (int32_t i_outer = 0; i_outer < kg_floordiv_i32(n + 7, 8); ++i_outer) {
                float T_local[8] __attribute__((aligned(64)));
                #pragma omp simd
                for (int32_t i_inner = 0; i_inner < 8; ++i_inner) {
                  const int32_t idx = (i_outer * 8) + i_inner;
                  T_local[i_inner] = (idx < n) ? (A[idx] + B[idx]) : 0.0f;
                }
                for (int32_t i_inner_1 = 0; i_inner_1 < 8; ++i_inner_1) {
                  if (((i_outer * 8) + i_inner_1) < n) {
                    C[(i_outer * 8) + i_inner_1] = T_local[i_inner_1] * 2.5f;
                  }
                }
              }
              return kg_status_;
            }
            """);
  }

  @Test
  void runsVectorAddLikeAJavaLoop() {
    PrimFunc f = Fixtures.vadd();
    CKernels k = CKernels.load(List.of(f));
    try (Arena arena = Arena.ofConfined()) {
      for (int n : new int[] {0, 5, 8, 1003}) {
        Random rnd = new Random(n);
        MemorySegment a = randomFloats(arena, n, rnd);
        MemorySegment b = randomFloats(arena, n, rnd);
        MemorySegment c = arena.allocate(JAVA_FLOAT, Math.max(1, n));
        k.invoke("vadd", List.of(a, b, c), n);
        for (int i = 0; i < n; i++) {
          float expected = (a.getAtIndex(JAVA_FLOAT, i) + b.getAtIndex(JAVA_FLOAT, i)) * 2.5f;
          assertThat(c.getAtIndex(JAVA_FLOAT, i)).as("C[%d], n=%d", i, n).isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void floorDivisionAndModuloFollowFloorSemanticsForNegativeOperands() {
    PrimFunc f = Fixtures.floorDivMod();
    int n = 2000;
    CKernels k = CKernels.load(List.of(f));
    try (Arena arena = Arena.ofConfined()) {
      Random rnd = new Random(42);
      MemorySegment x = arena.allocate(JAVA_INT, n);
      MemorySegment y = arena.allocate(JAVA_INT, n);
      for (int i = 0; i < n; i++) {
        x.setAtIndex(JAVA_INT, i, rnd.nextInt(-100, 101));
        int d = rnd.nextInt(-9, 10);
        y.setAtIndex(JAVA_INT, i, d == 0 ? 1 : d);
      }
      MemorySegment q = arena.allocate(JAVA_INT, n);
      MemorySegment r = arena.allocate(JAVA_INT, n);
      MemorySegment w = arena.allocate(JAVA_LONG, n);
      k.invoke("floor_div_mod", List.of(x, y, q, r, w), n);
      for (int i = 0; i < n; i++) {
        int xi = x.getAtIndex(JAVA_INT, i);
        int yi = y.getAtIndex(JAVA_INT, i);
        assertThat(q.getAtIndex(JAVA_INT, i))
            .as("%d floordiv %d", xi, yi)
            .isEqualTo(Math.floorDiv(xi, yi));
        assertThat(r.getAtIndex(JAVA_INT, i))
            .as("%d floormod %d", xi, yi)
            .isEqualTo(Math.floorMod(xi, yi));
        assertThat(w.getAtIndex(JAVA_LONG, i))
            .isEqualTo(Math.floorDiv((long) xi, -7L) + Math.max(xi, yi));
      }
    }
  }

  @Test
  void runsGpuScheduledIrSeriallyWhenBarriersAreOutsideTheThreadLoops() {
    PrimFunc f = Fixtures.reverseBlocks();
    int n = 1024;
    CKernels k = CKernels.load(List.of(f));
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment a = randomFloats(arena, n, new Random(1));
      MemorySegment b = arena.allocate(JAVA_FLOAT, n);
      k.invoke("reverse_blocks", List.of(a, b), n);
      for (int i = 0; i < n; i++) {
        int block = i / 64;
        int t = i % 64;
        assertThat(b.getAtIndex(JAVA_FLOAT, i))
            .isEqualTo(a.getAtIndex(JAVA_FLOAT, block * 64 + 63 - t));
      }
    }
  }

  /** A heap allocation (symbolic size), intrinsics, float min/max, infinity and casts. */
  @Test
  void runsHeapAllocationsAndIntrinsics() {
    Var n = new Var("n");
    Buffer a = Fixtures.param("A", DType.FLOAT32, n);
    Buffer out = Fixtures.param("out", DType.FLOAT32, n);
    Buffer tmp = new Buffer("tmp", DType.FLOAT32, MemoryScope.GLOBAL, List.of());
    Var i = new Var("i");
    Var j = new Var("i");
    var ai = Load.of(a, i);
    var fill =
        For.serial(
            i,
            IntImm.of(0),
            n,
            new Store(
                tmp,
                i,
                TE.exp(ai)
                    .max(FloatImm.f32(Double.NEGATIVE_INFINITY))
                    .add(select(ai.gt(FloatImm.f32(0)), TE.sqrt(ai), TE.abs(ai)))
                    .add(TE.floor(ai.mul(FloatImm.f32(3))).min(TE.ceil(ai)))
                    .add(TE.cast(DType.FLOAT32, TE.cast(DType.INT32, ai.mul(FloatImm.f32(10)))))));
    var drain = For.serial(j, IntImm.of(0), n, new Store(out, j, Load.of(tmp, n.sub(1).sub(j))));
    PrimFunc f =
        new PrimFunc(
            "heap_math", List.of(a, out), List.of(n), new Allocate(tmp, n, Seq.of(fill, drain)));
    String src = CCodegen.generate(List.of(f), "m");
    // The thread's workspace keeps the temporary between calls; freed here only when not kept.
    assertThat(src)
        .contains("kg_workspace(0, (size_t)n * 4, &tmp_owned, &kg_status_)")
        .contains("if (tmp_owned) {")
        .contains("free(tmp);");
    CKernels k = CKernels.load(src, List.of(f));
    // The kept temporary grows (777 -> 2000) and is reused smaller (100).
    for (int len : new int[] {777, 2000, 100}) {
      heapMath(k, len);
    }
  }

  private static void heapMath(CKernels k, int len) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment in = arena.allocate(JAVA_FLOAT, len);
      Random rnd = new Random(7);
      for (int x = 0; x < len; x++) {
        in.setAtIndex(JAVA_FLOAT, x, rnd.nextFloat(-3, 3));
      }
      MemorySegment o = arena.allocate(JAVA_FLOAT, len);
      k.invoke("heap_math", List.of(in, o), len);
      for (int x = 0; x < len; x++) {
        float v = in.getAtIndex(JAVA_FLOAT, len - 1 - x);
        float expected =
            (float) Math.exp(v)
                + (v > 0 ? (float) Math.sqrt(v) : Math.abs(v))
                + Math.min((float) Math.floor(v * 3f), (float) Math.ceil(v))
                + (float) (int) (v * 10f);
        assertThat(o.getAtIndex(JAVA_FLOAT, x)).isCloseTo(expected, within(expected));
      }
    }
  }

  @Test
  void vectorizedReductionsAccumulateInLanes() {
    Var n = new Var("n");
    Buffer a = Fixtures.param("A", DType.FLOAT32, n);
    Buffer out = Fixtures.param("out", DType.FLOAT32, IntImm.of(2));
    Var i = new Var("i");
    Var j = new Var("j");
    IntImm zero = IntImm.of(0);
    IntImm one = IntImm.of(1);
    var max =
        new For(
            i,
            zero,
            n,
            ForKind.VECTORIZED,
            null,
            List.of(),
            new Store(out, zero, Load.of(out, zero).max(Load.of(a, i))));
    var sum =
        new For(
            j,
            zero,
            n,
            ForKind.VECTORIZED,
            null,
            List.of(),
            new Store(out, one, TE.exp(Load.of(a, j)).add(Load.of(out, one))));
    PrimFunc f =
        new PrimFunc(
            "reduce",
            List.of(a, out),
            List.of(n),
            Seq.of(
                new Store(out, zero, FloatImm.f32(Double.NEGATIVE_INFINITY)),
                max,
                new Store(out, one, FloatImm.f32(0)),
                sum));
    String src = CCodegen.generate(List.of(f), "r");
    assertThat(src)
        .contains("float acc = out[0];")
        .contains("#pragma omp simd reduction(max:acc)")
        .contains("#pragma omp simd reduction(+:acc_1)")
        .contains("out[1] = acc_1;")
        .contains("static inline float kg_exp_f32(float x) {");
    int len = 1001;
    CKernels k = CKernels.load(src, List.of(f));
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment in = arena.allocate(JAVA_FLOAT, len);
      Random rnd = new Random(11);
      float expectedMax = Float.NEGATIVE_INFINITY;
      double expectedSum = 0;
      for (int x = 0; x < len; x++) {
        float v = rnd.nextFloat(-3, 3);
        in.setAtIndex(JAVA_FLOAT, x, v);
        expectedMax = Math.max(expectedMax, v);
        expectedSum += Math.exp(v);
      }
      MemorySegment o = arena.allocate(JAVA_FLOAT, 2);
      k.invoke("reduce", List.of(in, o), len);
      assertThat(o.getAtIndex(JAVA_FLOAT, 0)).isEqualTo(expectedMax);
      assertThat(o.getAtIndex(JAVA_FLOAT, 1)).isCloseTo((float) expectedSum, within(1e2f));
    }
  }

  private static org.assertj.core.data.Offset<Float> within(float expected) {
    return org.assertj.core.data.Offset.offset(1e-5f * Math.max(1, Math.abs(expected)));
  }

  @Test
  void printsUnrollAndUserPragmasAndInt64Loops() {
    Var n = new Var("n", DType.INT64);
    Buffer a = Fixtures.param("A", DType.FLOAT64, n);
    Var i = new Var("i", DType.INT64);
    Var u = new Var("u");
    var body =
        new For(
            i,
            IntImm.of(DType.INT64, 0),
            n,
            ForKind.SERIAL,
            null,
            List.of("GCC ivdep"),
            new For(
                u,
                IntImm.of(2),
                IntImm.of(4),
                ForKind.UNROLLED,
                null,
                List.of(),
                new IfThenElse(
                    Cast.of(DType.BOOL, u).not(),
                    new Store(a, i, FloatImm.f64(Double.POSITIVE_INFINITY)),
                    new Store(
                        a, i, TE.cast(DType.FLOAT64, i.floormod(IntImm.of(DType.INT64, -3)))))));
    String src = CCodegen.generate(List.of(new PrimFunc("k", List.of(a), List.of(n), body)), "m");
    assertThat(src)
        .contains(
            """
              #pragma GCC ivdep
              for (int64_t i = (int64_t)0; i < n; ++i) {
                #pragma GCC unroll 4
                for (int32_t u = 2; u < 6; ++u) {
                  if (!(u != 0)) {
                    A[i] = (double)INFINITY;
                  } else {
                    A[i] = ((double)kg_floormod_i64(i, ((int64_t)-3)));
                  }
                }
              }
            """);
  }

  @Test
  void rejectsABarrierInsideAThreadLoop() {
    Var n = new Var("n");
    Buffer a = Fixtures.param("A", DType.FLOAT32, n);
    Var t = new Var("t");
    var body =
        Fixtures.loop(
            t,
            IntImm.of(0),
            IntImm.of(32),
            ForKind.THREAD_BINDING,
            "threadIdx.x",
            Seq.of(new Store(a, t, FloatImm.f32(1)), new Barrier(MemoryScope.SHARED)));
    PrimFunc f = new PrimFunc("sync", List.of(a), List.of(n), body);
    assertThatThrownBy(() -> CCodegen.generate(List.of(f), "m"))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("function sync has a barrier")
        .hasMessageContaining("C target");
  }

  @Test
  void rejectsNodesThatStorageFlatteningRemoves() {
    var tensor = TE.placeholder("X", DType.FLOAT32, 4);
    PrimFunc f =
        new PrimFunc(
            "f",
            List.of(),
            List.of(),
            new ProducerStore(tensor, List.of(IntImm.of(0)), FloatImm.f32(0)));
    assertThatThrownBy(() -> CCodegen.generate(List.of(f), "m"))
        .isInstanceOf(CompilerBug.class)
        .hasMessageContaining("provide of X");
  }

  @Test
  void rejectsFunctionNamesThatAreNotIdentifiersAndDuplicates() {
    PrimFunc f = Fixtures.vadd();
    assertThatThrownBy(
            () ->
                CCodegen.generate(
                    List.of(new PrimFunc("my.op", f.params(), f.scalars(), f.body())), "m"))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("'my.op'");
    assertThatThrownBy(() -> CCodegen.generate(List.of(f, Fixtures.vadd()), "m"))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("two functions of one module are named 'vadd'");
  }

  static MemorySegment randomFloats(Arena arena, int n, Random rnd) {
    MemorySegment s = arena.allocate(JAVA_FLOAT, Math.max(1, n));
    for (int i = 0; i < n; i++) {
      s.setAtIndex(JAVA_FLOAT, i, rnd.nextFloat(-10, 10));
    }
    return s;
  }

  /**
   * The inline single-precision exp, in a vectorized loop: within 1.03 ulp of exp on a million
   * floats spread over the range whose result is at least 2^-125.5, and 0, infinity and NaN where
   * libm gives them (or a result below 2^-125.5, which it flushes to 0).
   */
  @Test
  void vectorizedExpIsWithinAnUlpOfExp() {
    Var n = new Var("n");
    Buffer a = Fixtures.param("A", DType.FLOAT32, n);
    Buffer out = Fixtures.param("out", DType.FLOAT32, n);
    Var i = new Var("i");
    var loop =
        new For(
            i,
            IntImm.of(0),
            n,
            ForKind.VECTORIZED,
            null,
            List.of(),
            new Store(out, i, TE.exp(Load.of(a, i))));
    PrimFunc f = new PrimFunc("vexp", List.of(a, out), List.of(n), loop);
    CKernels k = CKernels.load(List.of(f));
    float[] special = {
      Float.NEGATIVE_INFINITY, Float.POSITIVE_INFINITY, Float.NaN, -0f, 0f, -200f, -88f, 88.72f, 89f
    };
    int len = 1 << 20;
    float[] x = new float[len + special.length];
    Random rnd = new Random(5);
    for (int j = 0; j < len; j++) {
      x[j] = -87.5f + (88.72f + 87.5f) * rnd.nextFloat();
    }
    System.arraycopy(special, 0, x, len, special.length);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment in = arena.allocateFrom(JAVA_FLOAT, x);
      MemorySegment o = arena.allocate(JAVA_FLOAT, x.length);
      k.invoke("vexp", List.of(in, o), x.length);
      double worst = 0;
      for (int j = 0; j < x.length; j++) {
        float got = o.getAtIndex(JAVA_FLOAT, j);
        double want = Math.exp(x[j]);
        float wantF = (float) want;
        if (Float.isNaN(wantF) || Float.isInfinite(wantF) || wantF == 0f) {
          assertThat(Float.valueOf(got)).as("exp(%s)", x[j]).isEqualTo(Float.valueOf((float) want));
        } else if (want < Float.MIN_NORMAL || got == 0f) {
          // Flushed to 0 below 2^-125.5 (x < -125.5 ln 2), subnormal results included.
          assertThat(got).as("exp(%s)", x[j]).isEqualTo(0f);
          assertThat(want).as("exp(%s)", x[j]).isLessThan(0x1.6a1p-126);
        } else {
          double ulps = Math.abs(got - want) / Math.ulp((float) want);
          assertThat(ulps).as("exp(%s) = %s, not %s", x[j], got, want).isLessThanOrEqualTo(1.03);
          worst = Math.max(worst, ulps);
        }
      }
      assertThat(worst).isLessThanOrEqualTo(1.03);
    }
  }
}
