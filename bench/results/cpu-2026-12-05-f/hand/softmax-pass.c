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
  for (int32_t i_task = 0; i_task < 64; ++i_task) {
    float SoftmaxMax_next[1] __attribute__((aligned(64)));
    SoftmaxMax_next[0] = (-INFINITY);
    {
      float acc = SoftmaxMax_next[0];
      #pragma omp simd reduction(max:acc)
      for (int32_t r1_first = 0; r1_first < 1024; ++r1_first) {
        acc = kg_max_f32(acc, X[((i_task * 256) * 1024) + r1_first]);
      }
      SoftmaxMax_next[0] = acc;
    }
    for (int32_t i_row = 0; i_row < 256; ++i_row) {
      float SoftmaxMax[1] __attribute__((aligned(64)));
      SoftmaxMax[0] = SoftmaxMax_next[0];
      float SoftmaxExp[1024] __attribute__((aligned(64)));
      if ((i_row + 1) < 256) {
        float SoftmaxExpSum[1] __attribute__((aligned(64)));
        SoftmaxExpSum[0] = 0.0f;
        SoftmaxMax_next[0] = (-INFINITY);
        {
          float acc_1 = SoftmaxExpSum[0];
          float acc_2 = SoftmaxMax_next[0];
          #pragma omp simd reduction(+:acc_1) reduction(max:acc_2)
          for (int32_t j = 0; j < 1024; ++j) {
            SoftmaxExp[j] = kg_exp_f32(X[(((i_task * 256) + i_row) * 1024) + j] - SoftmaxMax[0]);
            acc_1 = acc_1 + SoftmaxExp[j];
            acc_2 = kg_max_f32(acc_2, X[((((i_task * 256) + i_row) + 1) * 1024) + j]);
          }
          SoftmaxExpSum[0] = acc_1;
          SoftmaxMax_next[0] = acc_2;
        }
        const float inv = 1.0f / SoftmaxExpSum[0];
        {
        #if defined(KG_STREAM_WIDTH)
          if ((((uintptr_t) &Softmax[((i_task * 256) + i_row) * 1024]) & (sizeof(float) * KG_STREAM_WIDTH - 1)) == 0) {
            for (int32_t j_1 = 0; j_1 < 1024; j_1 += KG_STREAM_WIDTH) {
              float kg_lanes[KG_STREAM_WIDTH] __attribute__((aligned(64)));
              #pragma omp simd
              for (int32_t lane = 0; lane < KG_STREAM_WIDTH; ++lane) {
                kg_lanes[lane] = SoftmaxExp[j_1 + lane] * inv;
              }
              kg_stream_f32(&Softmax[(((i_task * 256) + i_row) * 1024) + j_1], kg_lanes);
            }
          } else
          #endif
          {
            #pragma omp simd
            for (int32_t j_2 = 0; j_2 < 1024; ++j_2) {
              Softmax[(((i_task * 256) + i_row) * 1024) + j_2] = SoftmaxExp[j_2] * inv;
            }
          }
        }
      } else {
        for (int32_t j_line = 0; j_line < 64; ++j_line) {
          if ((i_task + 1) < 64) {
            __builtin_prefetch(&X[(((i_task * 262144) + (i_row * 1024)) + (j_line * 16)) + 262144], 0, 3);
          }
          #pragma omp simd
          for (int32_t j_lane = 0; j_lane < 16; ++j_lane) {
            SoftmaxExp[(j_line * 16) + j_lane] = kg_exp_f32(X[(((i_task * 256) + i_row) * 1024) + ((j_line * 16) + j_lane)] - SoftmaxMax[0]);
          }
        }
        float SoftmaxExpSum_1[1] __attribute__((aligned(64)));
        SoftmaxExpSum_1[0] = 0.0f;
        {
          float acc_3 = SoftmaxExpSum_1[0];
          #pragma omp simd reduction(+:acc_3)
          for (int32_t k = 0; k < 1024; ++k) {
            acc_3 = acc_3 + SoftmaxExp[k];
          }
          SoftmaxExpSum_1[0] = acc_3;
        }
        const float inv_1 = 1.0f / SoftmaxExpSum_1[0];
        {
        #if defined(KG_STREAM_WIDTH)
          if ((((uintptr_t) &Softmax[((i_task * 256) + i_row) * 1024]) & (sizeof(float) * KG_STREAM_WIDTH - 1)) == 0) {
            for (int32_t j_3 = 0; j_3 < 1024; j_3 += KG_STREAM_WIDTH) {
              float kg_lanes[KG_STREAM_WIDTH] __attribute__((aligned(64)));
              #pragma omp simd
              for (int32_t lane_1 = 0; lane_1 < KG_STREAM_WIDTH; ++lane_1) {
                kg_lanes[lane_1] = SoftmaxExp[j_3 + lane_1] * inv_1;
              }
              kg_stream_f32(&Softmax[(((i_task * 256) + i_row) * 1024) + j_3], kg_lanes);
            }
          } else
          #endif
          {
            #pragma omp simd
            for (int32_t j_4 = 0; j_4 < 1024; ++j_4) {
              Softmax[(((i_task * 256) + i_row) * 1024) + j_4] = SoftmaxExp[j_4] * inv_1;
            }
          }
        }
      }
    }
    #if defined(KG_STREAM_WIDTH)
    _mm_sfence();
    #endif
  }
  return kg_status_;
}

