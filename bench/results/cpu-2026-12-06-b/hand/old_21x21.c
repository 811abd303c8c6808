// kernelgen module m: generated C, do not edit.
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

__attribute__((visibility("default"))) const int32_t kernelgen_status_abi = 1;

static inline float kg_max_f32(float a, float b) {
  return a > b ? a : b;
}

__attribute__((visibility("default"))) int64_t k(const float* restrict Input, const float* restrict Filter, const float* restrict Scale, const float* restrict Shift, float* restrict Relu) {
  int64_t kg_status_ = 0;
  #pragma omp parallel for
  for (int32_t i_j_fused = 0; i_j_fused < 256; ++i_j_fused) {
    float PaddedInput[529] __attribute__((aligned(64)));
    PaddedInput[0] = 0.0f;
    for (int32_t l = 1; l < 22; ++l) {
      PaddedInput[l] = 0.0f;
    }
    PaddedInput[22] = 0.0f;
    for (int32_t k = 1; k < 22; ++k) {
      PaddedInput[k * 23] = 0.0f;
      for (int32_t l_1 = 1; l_1 < 22; ++l_1) {
        PaddedInput[(k * 23) + l_1] = Input[(((k * 21) + l_1) + (i_j_fused * 441)) - 22];
      }
      PaddedInput[(k * 23) + 22] = 0.0f;
    }
    PaddedInput[506] = 0.0f;
    for (int32_t l_2 = 1; l_2 < 22; ++l_2) {
      PaddedInput[l_2 + 506] = 0.0f;
    }
    PaddedInput[528] = 0.0f;
    for (int32_t k_1 = 0; k_1 < 21; ++k_1) {
      float DepthwiseConv2d[21] __attribute__((aligned(64)));
      #pragma omp simd
      for (int32_t l_3 = 0; l_3 < 21; ++l_3) {
        DepthwiseConv2d[l_3] = 0.0f;
      }
      #pragma omp simd
      for (int32_t l_4 = 0; l_4 < 21; ++l_4) {
        DepthwiseConv2d[l_4] = DepthwiseConv2d[l_4] + (PaddedInput[(k_1 * 23) + l_4] * Filter[i_j_fused * 9]);
        DepthwiseConv2d[l_4] = DepthwiseConv2d[l_4] + (PaddedInput[((k_1 * 23) + l_4) + 1] * Filter[(i_j_fused * 9) + 1]);
        DepthwiseConv2d[l_4] = DepthwiseConv2d[l_4] + (PaddedInput[((k_1 * 23) + l_4) + 2] * Filter[(i_j_fused * 9) + 2]);
      }
      #pragma omp simd
      for (int32_t l_5 = 0; l_5 < 21; ++l_5) {
        DepthwiseConv2d[l_5] = DepthwiseConv2d[l_5] + (PaddedInput[((k_1 * 23) + l_5) + 23] * Filter[(i_j_fused * 9) + 3]);
        DepthwiseConv2d[l_5] = DepthwiseConv2d[l_5] + (PaddedInput[((k_1 * 23) + l_5) + 24] * Filter[(i_j_fused * 9) + 4]);
        DepthwiseConv2d[l_5] = DepthwiseConv2d[l_5] + (PaddedInput[((k_1 * 23) + l_5) + 25] * Filter[(i_j_fused * 9) + 5]);
      }
      #pragma omp simd
      for (int32_t l_6 = 0; l_6 < 21; ++l_6) {
        DepthwiseConv2d[l_6] = DepthwiseConv2d[l_6] + (PaddedInput[((k_1 * 23) + l_6) + 46] * Filter[(i_j_fused * 9) + 6]);
        DepthwiseConv2d[l_6] = DepthwiseConv2d[l_6] + (PaddedInput[((k_1 * 23) + l_6) + 47] * Filter[(i_j_fused * 9) + 7]);
        DepthwiseConv2d[l_6] = DepthwiseConv2d[l_6] + (PaddedInput[((k_1 * 23) + l_6) + 48] * Filter[(i_j_fused * 9) + 8]);
      }
      #pragma omp simd
      for (int32_t l_7 = 0; l_7 < 21; ++l_7) {
        Relu[((k_1 * 21) + l_7) + (i_j_fused * 441)] = kg_max_f32((DepthwiseConv2d[l_7] * Scale[i_j_fused]) + Shift[i_j_fused], 0.0f);
      }
    }
  }
  return kg_status_;
}

