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
    float DepthwiseConv2d[483] __attribute__((aligned(64)));
    #pragma omp simd
    for (int32_t k_l_pitched = 0; k_l_pitched < 481; ++k_l_pitched) {
      DepthwiseConv2d[k_l_pitched] = 0.0f;
      DepthwiseConv2d[k_l_pitched] = DepthwiseConv2d[k_l_pitched] + (PaddedInput[k_l_pitched] * Filter[i_j_fused * 9]);
      DepthwiseConv2d[k_l_pitched] = DepthwiseConv2d[k_l_pitched] + (PaddedInput[k_l_pitched + 1] * Filter[(i_j_fused * 9) + 1]);
      DepthwiseConv2d[k_l_pitched] = DepthwiseConv2d[k_l_pitched] + (PaddedInput[k_l_pitched + 2] * Filter[(i_j_fused * 9) + 2]);
      DepthwiseConv2d[k_l_pitched] = DepthwiseConv2d[k_l_pitched] + (PaddedInput[k_l_pitched + 23] * Filter[(i_j_fused * 9) + 3]);
      DepthwiseConv2d[k_l_pitched] = DepthwiseConv2d[k_l_pitched] + (PaddedInput[k_l_pitched + 24] * Filter[(i_j_fused * 9) + 4]);
      DepthwiseConv2d[k_l_pitched] = DepthwiseConv2d[k_l_pitched] + (PaddedInput[k_l_pitched + 25] * Filter[(i_j_fused * 9) + 5]);
      DepthwiseConv2d[k_l_pitched] = DepthwiseConv2d[k_l_pitched] + (PaddedInput[k_l_pitched + 46] * Filter[(i_j_fused * 9) + 6]);
      DepthwiseConv2d[k_l_pitched] = DepthwiseConv2d[k_l_pitched] + (PaddedInput[k_l_pitched + 47] * Filter[(i_j_fused * 9) + 7]);
      DepthwiseConv2d[k_l_pitched] = DepthwiseConv2d[k_l_pitched] + (PaddedInput[k_l_pitched + 48] * Filter[(i_j_fused * 9) + 8]);
    }
    for (int32_t k_1 = 0; k_1 < 21; ++k_1) {
      #pragma omp simd
      for (int32_t l_3 = 0; l_3 < 21; ++l_3) {
        Relu[((k_1 * 21) + l_3) + (i_j_fused * 441)] = kg_max_f32((DepthwiseConv2d[(k_1 * 23) + l_3] * Scale[i_j_fused]) + Shift[i_j_fused], 0.0f);
      }
    }
  }
  return kg_status_;
}

