package dev.kernelgen.codegen;

/** The C kernels' single-precision exp, {@code kg_exp_f32}. */
final class FastExp {
  private FastExp() {}

  /**
   * Single-precision exp written out: {@code exp(x) = 2^n exp(r)}, {@code n} the nearest integer to
   * {@code x log2 e}, {@code r = x - n ln 2} in two parts (Cephes' split of ln 2), {@code exp(r)} a
   * degree-6 minimax polynomial in Horner form (the coefficients of ONNX Runtime's MLAS exp), here
   * computed as {@code 2 exp(r)} (every coefficient doubled, exactly) times {@code 2^(n-1)}, so
   * that one power of two covers the whole range: at most 0.88 ulp from exp with FMA contraction
   * (x86-64 v3 and v4) and 1.16 ulp without (v2) where the result is at least {@code 2^-125}, 0
   * below that (the smallest normal results flushed, like CUDA's fast exp), infinity above the
   * largest float, NaN for NaN ({@code FastExpTest}). Without calls or branches, a vectorized loop
   * computes it in its own lanes: libmvec's vector expf is a call per vector, and softmax over
   * [4096, 4096] on 2 Zen 4 cores was bound by it (6.1 ms, against 4.4 ms for its memory traffic
   * alone and 4.5 ms with this and lower/PrefetchNextRow). The polynomial is 15 vector operations
   * per call where Cephes' degree-5 form with its {@code r + r + 2} tail took 18: softmax over
   * [4096, 4096] at x86-64-v4 on 2 Zen 4 cores 4.1 ms -> 3.9 ms.
   */
  static final String HELPER =
      """
      static inline float kg_exp_f32(float x) {
        float c = x < -87.3365479f ? -87.3365479f : (x > 89.0f ? 89.0f : x);
        float t = c * 1.44269504f + 12582912.0f;
        float n = t - 12582912.0f;
        float r = c - n * 0.693359375f;
        r = r - n * -2.12194440e-4f;
        float p = 0x1.694000p-9f;
        p = p * r + 0x1.125edcp-6f;
        p = p * r + 0x1.555b5ap-4f;
        p = p * r + 0x1.555450p-2f;
        p = p * r + 0x1.fffff6p-1f;
        p = p * r + 2.0f;
        p = p * r + 2.0f;
        uint32_t k;
        __builtin_memcpy(&k, &t, 4);
        k = (k + 126u) << 23;
        float s;
        __builtin_memcpy(&s, &k, 4);
        return p * s;
      }
      """;
}
