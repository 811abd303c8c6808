#include <stdint.h>
__attribute__((visibility("default"))) int64_t dw(const float* restrict Input, const float* restrict Filter, const float* restrict Scale, const float* restrict Shift, float* restrict Relu) {
  #pragma omp parallel for
  for (int c = 0; c < 256; ++c) {
    float P[23 * 23 + 32] __attribute__((aligned(64)));
    float T[21 * 23 + 32] __attribute__((aligned(64)));
    for (int l = 0; l < 23; ++l) P[l] = 0.0f;
    for (int k = 1; k < 22; ++k) {
      P[k * 23] = 0.0f;
      #pragma omp simd
      for (int l = 1; l < 22; ++l) P[k * 23 + l] = Input[c * 441 + (k - 1) * 21 + (l - 1)];
      P[k * 23 + 22] = 0.0f;
    }
    for (int l = 0; l < 23 + 32; ++l) P[22 * 23 + l] = 0.0f;
    const float* f = Filter + c * 9;
    #pragma omp simd
    for (int q = 0; q < 21 * 23; ++q) {
      float acc = 0.0f;
      acc += P[q] * f[0]; acc += P[q + 1] * f[1]; acc += P[q + 2] * f[2];
      acc += P[q + 23] * f[3]; acc += P[q + 24] * f[4]; acc += P[q + 25] * f[5];
      acc += P[q + 46] * f[6]; acc += P[q + 47] * f[7]; acc += P[q + 48] * f[8];
      T[q] = acc;
    }
    float s = Scale[c], b = Shift[c];
    for (int k = 0; k < 21; ++k) {
      #pragma omp simd
      for (int l = 0; l < 21; ++l) {
        float v = T[k * 23 + l] * s + b;
        Relu[c * 441 + k * 21 + l] = v > 0.0f ? v : 0.0f;
      }
    }
  }
  return 0;
}
