package dev.kernelgen.codegen;

/** The C kernels' single-precision tanh, {@code kg_tanh_f32}, over {@link FastExp}'s exp. */
final class FastTanh {
  private FastTanh() {}

  /**
   * Single-precision tanh written out, as Cephes' {@code tanhf}: for {@code |x| > 0.625}, {@code 1
   * - 2 / (exp(2|x|) + 1)} with {@code kg_exp_f32}; below, the odd polynomial {@code x + x z P(z)},
   * {@code z = x^2}; the sign restored. Both branches computed and one selected, so that a
   * vectorized loop computes it in its own lanes: glibc's vector tanhf (libmvec, glibc 2.35) is
   * above the libraries' symbol-version ceiling, and the scalar {@code tanhf} per lane left a Mish
   * activation over 4M floats at 71 ms on 2 Zen 4 cores. Within 1.3 ulp of tanh ({@code
   * FastTanhTest}); NaN for NaN, plus or minus one beyond about 9.
   */
  static final String HELPER =
      """
      static inline float kg_tanh_f32(float x) {
        float a = x < 0.0f ? -x : x;
        float s = kg_exp_f32(2.0f * a);
        float big = 1.0f - 2.0f / (s + 1.0f);
        float z = a * a;
        float p = -5.70498872745e-3f;
        p = p * z + 2.06390887954e-2f;
        p = p * z - 5.37397155531e-2f;
        p = p * z + 1.33314422036e-1f;
        p = p * z - 3.33332819422e-1f;
        float small = p * z * a + a;
        float r = a > 0.625f ? big : small;
        return x < 0.0f ? -r : r;
      }
      """;
}
