#include <stdint.h>
static inline float mx(float a, float b){return a>b?a:b;}
int64_t kc(const float* restrict X, float* restrict Max){
  #pragma omp parallel for
  for (int32_t o = 0; o < 8192; ++o) {
    for (int32_t i = 0; i < 32; ++i) {
      float m = -__builtin_inff();
      for (int r = 0; r < 3; ++r) m = mx(m, X[(o*32+i)*3 + r]);
      Max[o*32+i] = m;
    }
  }
  return 0;
}
int64_t kd(const float* restrict X, float* restrict Max){
  for (int32_t i = 0; i < 262144; ++i) {
      float m = -__builtin_inff();
      for (int r = 0; r < 3; ++r) m = mx(m, X[i*3 + r]);
      Max[i] = m;
  }
  return 0;
}
