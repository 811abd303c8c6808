#include <stdint.h>
#include <math.h>
#include <omp.h>
#include <immintrin.h>
static inline float kg_exp_f32(float x) {
  float c = x < -87.3365479f ? -87.3365479f : (x > 89.0f ? 89.0f : x);
  float t = c * 1.44269504f + 12582912.0f;
  float n = t - 12582912.0f;
  float r = c - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 0x1.694000p-9f;
  p = p * r + 0x1.125edcp-6f; p = p * r + 0x1.555b5ap-4f; p = p * r + 0x1.555450p-2f;
  p = p * r + 0x1.fffff6p-1f; p = p * r + 2.0f; p = p * r + 2.0f;
  uint32_t k; __builtin_memcpy(&k, &t, 4); k = (k + 126u) << 23; float s; __builtin_memcpy(&s, &k, 4);
  return p * s;
}
#define R 16384
#define C 1024
__attribute__((visibility("default"))) int64_t k(const float* restrict X, float* restrict Y) {
  #pragma omp parallel
  {
    int nt = omp_get_num_threads(), id = omp_get_thread_num();
    int lo = (int)((long)R * id / nt), hi = (int)((long)R * (id + 1) / nt);
    float m = -INFINITY;
    #pragma omp simd reduction(max:m)
    for (int j = 0; j < C; ++j) m = X[(long)lo * C + j] > m ? X[(long)lo * C + j] : m;
    float E[C] __attribute__((aligned(64)));
    for (int i = lo; i < hi; ++i) {
      const float* x = X + (long)i * C;
      const float* xn = i + 1 < hi ? x + C : x;
      float mn = -INFINITY, s = 0.0f;
      #pragma omp simd reduction(max:mn) reduction(+:s)
      for (int j = 0; j < C; ++j) {
        float e = kg_exp_f32(x[j] - m);
        E[j] = e; s += e;
        mn = xn[j] > mn ? xn[j] : mn;
      }
      float inv = 1.0f / s;
      float* y = Y + (long)i * C;
      for (int j = 0; j < C; j += 16) _mm512_stream_ps(y + j, _mm512_mul_ps(_mm512_load_ps(E + j), _mm512_set1_ps(inv)));
      m = mn;
    }
    _mm_sfence();
  }
  return 0;
}
