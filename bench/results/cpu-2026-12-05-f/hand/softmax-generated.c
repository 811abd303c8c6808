// kernelgen module m: generated C, do not edit.
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

__attribute__((visibility("default"))) const int32_t kernelgen_status_abi = 1;

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

static inline float kg_max_f32(float a, float b) {
  return a > b ? a : b;
}

#if defined(__AVX512F__) || defined(__AVX__) || defined(__SSE2__)
#include <immintrin.h>
#if defined(__AVX512F__)
#define KG_STREAM_WIDTH 16
static inline void kg_stream_f32(float* p, const float* v) {
  _mm512_stream_ps(p, _mm512_load_ps(v));
}
#elif defined(__AVX__)
#define KG_STREAM_WIDTH 8
static inline void kg_stream_f32(float* p, const float* v) {
  _mm256_stream_ps(p, _mm256_load_ps(v));
}
#else
#define KG_STREAM_WIDTH 4
static inline void kg_stream_f32(float* p, const float* v) {
  _mm_stream_ps(p, _mm_load_ps(v));
}
#endif
#endif

__attribute__((visibility("default"))) int64_t k(const float* restrict X, float* restrict Softmax) {
  int64_t kg_status_ = 0;
  #pragma omp parallel for
  for (int32_t i = 0; i < 16384; ++i) {
    float SoftmaxMax[1] __attribute__((aligned(64)));
    SoftmaxMax[0] = (-INFINITY);
    {
      float acc = SoftmaxMax[0];
      #pragma omp simd reduction(max:acc)
      for (int32_t r1 = 0; r1 < 1024; ++r1) {
        acc = kg_max_f32(acc, X[(i * 1024) + r1]);
      }
      SoftmaxMax[0] = acc;
    }
    float SoftmaxExp[1024] __attribute__((aligned(64)));
    for (int32_t j_line = 0; j_line < 64; ++j_line) {
      if ((i + 1) < 16384) {
        __builtin_prefetch(&X[((i * 1024) + (j_line * 16)) + 1024], 0, 3);
      }
      #pragma omp simd
      for (int32_t j_lane = 0; j_lane < 16; ++j_lane) {
        SoftmaxExp[(j_line * 16) + j_lane] = kg_exp_f32(X[(i * 1024) + ((j_line * 16) + j_lane)] - SoftmaxMax[0]);
      }
    }
    float SoftmaxExpSum[1] __attribute__((aligned(64)));
    SoftmaxExpSum[0] = 0.0f;
    {
      float acc_1 = SoftmaxExpSum[0];
      #pragma omp simd reduction(+:acc_1)
      for (int32_t k = 0; k < 1024; ++k) {
        acc_1 = acc_1 + SoftmaxExp[k];
      }
      SoftmaxExpSum[0] = acc_1;
    }
    const float inv = 1.0f / SoftmaxExpSum[0];
    {
    #if defined(KG_STREAM_WIDTH)
      if ((((uintptr_t) &Softmax[i * 1024]) & (sizeof(float) * KG_STREAM_WIDTH - 1)) == 0) {
        for (int32_t j = 0; j < 1024; j += KG_STREAM_WIDTH) {
          float kg_lanes[KG_STREAM_WIDTH] __attribute__((aligned(64)));
          #pragma omp simd
          for (int32_t lane = 0; lane < KG_STREAM_WIDTH; ++lane) {
            kg_lanes[lane] = SoftmaxExp[j + lane] * inv;
          }
          kg_stream_f32(&Softmax[(i * 1024) + j], kg_lanes);
        }
        _mm_sfence();
      } else
      #endif
      {
        #pragma omp simd
        for (int32_t j_1 = 0; j_1 < 1024; ++j_1) {
          Softmax[(i * 1024) + j_1] = SoftmaxExp[j_1] * inv;
        }
      }
    }
  }
  return kg_status_;
}

