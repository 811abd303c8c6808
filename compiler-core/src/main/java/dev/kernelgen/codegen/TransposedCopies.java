package dev.kernelgen.codegen;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Loop nests that copy a two-dimensional block transposed, and the C helper that runs them in tiles
 * transposed in registers: {@code dst[b * ds + a] = src[a * ss + b]} for {@code a < na}, {@code b <
 * nb}, 32-bit elements. The packed layout's weight panels are such copies (a convolution's weights
 * [co][ci][kh][kw] packed to [ci][kh][kw][16 or 32 co]); so are transposes a user writes. Printed
 * as loops, gcc gathers each vector of the panel element by element: at [1,512,7,7] x 512 (3x3) the
 * packing took a third of the convolution (2-core Zen 5, AVX-512: about 800 us with it, 540 us
 * without; 16 x 16 tiles in registers copy a 32 x 4608 panel 5-8x faster than the loops).
 */
final class TransposedCopies {
  private TransposedCopies() {}

  /**
   * A recognised copy: {@code dst[dstBase + b * dstStride + a] = src[srcBase + a * srcStride + b]}.
   */
  record Copy(
      Buffer dst,
      Expr dstBase,
      long dstStride,
      Buffer src,
      Expr srcBase,
      long srcStride,
      long na,
      long nb) {}

  /** Below this many elements along either axis a block is left to the loops. */
  static final long MIN_SIDE = 16;

  /**
   * The copy the perfect loop nest rooted at {@code f} performs, where it is a transposed copy
   * between two different buffers of 32-bit elements whose indices are affine in the nest's
   * variables (constant extents from 0, no pragmas, no parallel or thread-bound loop), the
   * variables falling into two groups: those that walk the destination contiguously and the source
   * by a common stride, and those that walk the source contiguously and the destination by a stride
   * at least the first group's length (so no two iterations store to one element). Else null.
   */
  static Copy of(For f) {
    List<For> nest = new ArrayList<>();
    Object body = f;
    while (body instanceof For l) {
      if (!(l.kind() == ForKind.SERIAL
              || l.kind() == ForKind.VECTORIZED
              || l.kind() == ForKind.UNROLLED)
          || !l.pragmas().isEmpty()
          || !(l.min() instanceof IntImm lo && lo.value() == 0)
          || !(l.extent() instanceof IntImm)) {
        return null;
      }
      nest.add(l);
      body = l.body();
    }
    if (!(body instanceof Store st)
        || !(st.value() instanceof Load ld)
        || ld.buffer() == st.buffer()
        || ld.buffer().dtype() != st.buffer().dtype()
        || st.buffer().dtype().bytes() != 4
        || st.buffer().dtype().isBool()
        || CLikeExprPrinter.readsMemory(st.index())
        || CLikeExprPrinter.readsMemory(ld.index())) {
      return null;
    }
    Map<Var, Expr> zero = new HashMap<>();
    List<long[]> axes = new ArrayList<>(); // {dst coefficient, src coefficient, extent}
    for (For l : nest) {
      Long dc = Simplifier.step(st.index(), l.loopVar());
      Long sc = Simplifier.step(ld.index(), l.loopVar());
      if (dc == null || sc == null || dc <= 0 || sc <= 0) {
        return null;
      }
      zero.put(l.loopVar(), IntImm.of(l.loopVar().dtype(), 0));
      long extent = ((IntImm) l.extent()).value();
      if (extent > 1) {
        axes.add(new long[] {dc, sc, extent});
      }
    }
    long srcStride =
        axes.stream().filter(x -> x[0] == 1).mapToLong(x -> x[1]).findFirst().orElse(0);
    long dstStride =
        axes.stream().filter(x -> x[1] == 1).mapToLong(x -> x[0]).findFirst().orElse(0);
    if (srcStride <= 1 || dstStride <= 1) {
      return null;
    }
    List<long[]> a = new ArrayList<>();
    List<long[]> b = new ArrayList<>();
    for (long[] x : axes) {
      if (x[1] == srcStride * x[0]) {
        a.add(x);
      } else if (x[0] == dstStride * x[1]) {
        b.add(x);
      } else {
        return null;
      }
    }
    long na = contiguous(a, 0);
    long nb = contiguous(b, 1);
    if (na < MIN_SIDE || nb < MIN_SIDE || dstStride < na) {
      return null;
    }
    Expr dstBase = Simplifier.simplify(Substitute.apply(st.index(), zero));
    Expr srcBase = Simplifier.simplify(Substitute.apply(ld.index(), zero));
    return new Copy(st.buffer(), dstBase, dstStride, ld.buffer(), srcBase, srcStride, na, nb);
  }

  /**
   * The length of the run the axes walk together along coefficient {@code k} (0: destination, 1:
   * source), where their coefficients are 1, then each the product of those below and their extents
   * (a row-major flattening); else 0.
   */
  private static long contiguous(List<long[]> axes, int k) {
    List<long[]> sorted = new ArrayList<>(axes);
    sorted.sort(Comparator.comparingLong(x -> x[k]));
    long run = 1;
    for (long[] x : sorted) {
      if (x[k] != run) {
        return 0;
      }
      run = Math.multiplyExact(run, x[2]);
    }
    return run;
  }

  /** The helper: {@code kg_transpose_32(dst, ds, src, ss, na, nb)}. */
  static final String HELPER =
      """
      #if defined(__AVX512F__) || defined(__AVX__) || defined(__SSE2__)
      #include <immintrin.h>
      #endif
      typedef uint32_t __attribute__((may_alias)) kg_u32_alias;
      #if defined(__AVX512F__)
      #define KG_TR 16
      // A 16 x 16 tile: rows of src in, rows of dst out, through unpacks and lane shuffles.
      static inline void kg_tr_tile(void* d, int64_t ds, const void* s, int64_t ss) {
        static const int order[16] = {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15};
        __m512 r[16], t[16];
        for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_ps((const kg_u32_alias*) s + i * ss);
        for (int i = 0; i < 8; i++) {
          t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
          t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
        }
        for (int i = 0; i < 4; i++) {
          for (int j = 0; j < 2; j++) {
            __m512d x = _mm512_castps_pd(t[4 * i + j]), y = _mm512_castps_pd(t[4 * i + j + 2]);
            r[4 * i + j] = _mm512_castpd_ps(_mm512_unpacklo_pd(x, y));
            r[4 * i + j + 2] = _mm512_castpd_ps(_mm512_unpackhi_pd(x, y));
          }
        }
        for (int i = 0; i < 2; i++) {
          for (int j = 0; j < 4; j++) {
            t[8 * i + j] = _mm512_shuffle_f32x4(r[8 * i + j], r[8 * i + j + 4], 0x88);
            t[8 * i + j + 4] = _mm512_shuffle_f32x4(r[8 * i + j], r[8 * i + j + 4], 0xdd);
          }
        }
        for (int j = 0; j < 8; j++) {
          r[j] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0x88);
          r[j + 8] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0xdd);
        }
        for (int i = 0; i < 16; i++) _mm512_storeu_ps((kg_u32_alias*) d + order[i] * ds, r[i]);
      }
      #elif defined(__AVX__)
      #define KG_TR 8
      static inline void kg_tr_tile(void* d, int64_t ds, const void* s, int64_t ss) {
        const float* p = (const float*) s;
        float* q = (float*) d;
        __m256 r0 = _mm256_loadu_ps(p), r1 = _mm256_loadu_ps(p + ss);
        __m256 r2 = _mm256_loadu_ps(p + 2 * ss), r3 = _mm256_loadu_ps(p + 3 * ss);
        __m256 r4 = _mm256_loadu_ps(p + 4 * ss), r5 = _mm256_loadu_ps(p + 5 * ss);
        __m256 r6 = _mm256_loadu_ps(p + 6 * ss), r7 = _mm256_loadu_ps(p + 7 * ss);
        __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
        __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
        __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
        __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
        __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
        __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
        __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
        __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
        _mm256_storeu_ps(q, _mm256_permute2f128_ps(u0, u4, 0x20));
        _mm256_storeu_ps(q + ds, _mm256_permute2f128_ps(u1, u5, 0x20));
        _mm256_storeu_ps(q + 2 * ds, _mm256_permute2f128_ps(u2, u6, 0x20));
        _mm256_storeu_ps(q + 3 * ds, _mm256_permute2f128_ps(u3, u7, 0x20));
        _mm256_storeu_ps(q + 4 * ds, _mm256_permute2f128_ps(u0, u4, 0x31));
        _mm256_storeu_ps(q + 5 * ds, _mm256_permute2f128_ps(u1, u5, 0x31));
        _mm256_storeu_ps(q + 6 * ds, _mm256_permute2f128_ps(u2, u6, 0x31));
        _mm256_storeu_ps(q + 7 * ds, _mm256_permute2f128_ps(u3, u7, 0x31));
      }
      #elif defined(__SSE2__)
      #define KG_TR 4
      static inline void kg_tr_tile(void* d, int64_t ds, const void* s, int64_t ss) {
        const float* p = (const float*) s;
        float* q = (float*) d;
        __m128 r0 = _mm_loadu_ps(p), r1 = _mm_loadu_ps(p + ss);
        __m128 r2 = _mm_loadu_ps(p + 2 * ss), r3 = _mm_loadu_ps(p + 3 * ss);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        _mm_storeu_ps(q, r0);
        _mm_storeu_ps(q + ds, r1);
        _mm_storeu_ps(q + 2 * ds, r2);
        _mm_storeu_ps(q + 3 * ds, r3);
      }
      #else
      #define KG_TR 8
      static inline void kg_tr_tile(void* d, int64_t ds, const void* s, int64_t ss) {
        for (int a = 0; a < 8; a++) {
          for (int b = 0; b < 8; b++) {
            ((kg_u32_alias*) d)[b * ds + a] = ((const kg_u32_alias*) s)[a * ss + b];
          }
        }
      }
      #endif
      // dst[b * ds + a] = src[a * ss + b] for a < na, b < nb (32-bit elements), in tiles of
      // KG_TR x KG_TR; the edges element by element, in blocks of 16 along b. (Inlined at constant
      // sizes, gcc would warn of overflow in edge loops that never run there.)
      #if defined(__GNUC__) && !defined(__clang__)
      #pragma GCC diagnostic push
      #pragma GCC diagnostic ignored "-Waggressive-loop-optimizations"
      #endif
      static void kg_transpose_32(void* dst, int64_t ds, const void* src, int64_t ss, int64_t na,
                                  int64_t nb) {
        kg_u32_alias* d = (kg_u32_alias*) dst;
        const kg_u32_alias* s = (const kg_u32_alias*) src;
        int64_t a0 = 0;
        for (; a0 + KG_TR <= na; a0 += KG_TR) {
          int64_t b0 = 0;
          for (; b0 + KG_TR <= nb; b0 += KG_TR) kg_tr_tile(d + b0 * ds + a0, ds, s + a0 * ss + b0, ss);
          for (int64_t b = b0; b < nb; b++) {
            for (int i = 0; i < KG_TR; i++) d[b * ds + a0 + i] = s[(a0 + i) * ss + b];
          }
        }
        for (int64_t b0 = 0; b0 < nb; b0 += 16) {
          int64_t end = b0 + 16 < nb ? b0 + 16 : nb;
          for (int64_t a = a0; a < na; a++) {
            for (int64_t b = b0; b < end; b++) d[b * ds + a] = s[a * ss + b];
          }
        }
      }
      #if defined(__GNUC__) && !defined(__clang__)
      #pragma GCC diagnostic pop
      #endif
      """;
}
