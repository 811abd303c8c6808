// kernelgen module m: generated C, do not edit.
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

__attribute__((visibility("default"))) const int32_t kernelgen_status_abi = 1;

static inline int32_t kg_max_i32(int32_t a, int32_t b) {
  return a > b ? a : b;
}

static inline int32_t kg_min_i32(int32_t a, int32_t b) {
  return a < b ? a : b;
}

__attribute__((visibility("default"))) int64_t dw(const float* restrict Input, const float* restrict Filter, float* restrict DepthwiseConv2d) {
  int64_t kg_status_ = 0;
  #pragma omp parallel for
  for (int32_t i_j_fused = 0; i_j_fused < 256; ++i_j_fused) {
    for (int32_t k_outer = 0; k_outer < 5; ++k_outer) {
      float PaddedInput[2058] __attribute__((aligned(64)));
      for (int32_t k = 0; k < kg_max_i32(kg_min_i32(96 - (k_outer * 20), 21), 0); ++k) {
        for (int32_t l_inner = 0; l_inner < 2; ++l_inner) {
          for (int32_t l_outer = 0; l_outer < 48; ++l_outer) {
            PaddedInput[((k * 98) + (l_inner * 49)) + l_outer] = Input[((((k * 96) + (k_outer * 1920)) + (l_outer * 2)) + l_inner) + (i_j_fused * 9216)];
          }
          if (l_inner < 1) {
            PaddedInput[((k * 98) + (l_inner * 49)) + 48] = 0.0f;
          }
        }
      }
      for (int32_t k_1 = kg_max_i32(kg_min_i32(96 - (k_outer * 20), 21), 0); k_1 < (kg_max_i32(kg_min_i32(96 - (k_outer * 20), 21), 0) + kg_max_i32(kg_min_i32(97 - (k_outer * 20), 21) - kg_max_i32(kg_min_i32(96 - (k_outer * 20), 21), 0), 0)); ++k_1) {
        for (int32_t l_inner_1 = 0; l_inner_1 < 2; ++l_inner_1) {
          for (int32_t l_outer_1 = 0; l_outer_1 < 48; ++l_outer_1) {
            PaddedInput[((k_1 * 98) + (l_inner_1 * 49)) + l_outer_1] = ((k_1 + (k_outer * 20)) < 96) ? Input[((((k_1 * 96) + (k_outer * 1920)) + (l_outer_1 * 2)) + l_inner_1) + (i_j_fused * 9216)] : 0.0f;
          }
          if (l_inner_1 < 1) {
            PaddedInput[((k_1 * 98) + (l_inner_1 * 49)) + 48] = 0.0f;
          }
        }
      }
      for (int32_t k_inner = 0; k_inner < kg_max_i32(kg_min_i32(48 - (k_outer * 10), 10), 0); ++k_inner) {
        float DepthwiseConv2d_global[48] __attribute__((aligned(64)));
        #pragma omp simd
        for (int32_t l = 0; l < 48; ++l) {
          DepthwiseConv2d_global[l] = 0.0f;
          DepthwiseConv2d_global[l] = DepthwiseConv2d_global[l] + (PaddedInput[(k_inner * 196) + l] * Filter[i_j_fused * 9]);
          DepthwiseConv2d_global[l] = DepthwiseConv2d_global[l] + (PaddedInput[((k_inner * 196) + l) + 49] * Filter[(i_j_fused * 9) + 1]);
          DepthwiseConv2d_global[l] = DepthwiseConv2d_global[l] + (PaddedInput[((k_inner * 196) + l) + 1] * Filter[(i_j_fused * 9) + 2]);
          DepthwiseConv2d_global[l] = DepthwiseConv2d_global[l] + (PaddedInput[((k_inner * 196) + l) + 98] * Filter[(i_j_fused * 9) + 3]);
          DepthwiseConv2d_global[l] = DepthwiseConv2d_global[l] + (PaddedInput[((k_inner * 196) + l) + 147] * Filter[(i_j_fused * 9) + 4]);
          DepthwiseConv2d_global[l] = DepthwiseConv2d_global[l] + (PaddedInput[((k_inner * 196) + l) + 99] * Filter[(i_j_fused * 9) + 5]);
          DepthwiseConv2d_global[l] = DepthwiseConv2d_global[l] + (PaddedInput[((k_inner * 196) + l) + 196] * Filter[(i_j_fused * 9) + 6]);
          DepthwiseConv2d_global[l] = DepthwiseConv2d_global[l] + (PaddedInput[((k_inner * 196) + l) + 245] * Filter[(i_j_fused * 9) + 7]);
          DepthwiseConv2d_global[l] = DepthwiseConv2d_global[l] + (PaddedInput[((k_inner * 196) + l) + 197] * Filter[(i_j_fused * 9) + 8]);
        }
        #pragma omp simd
        for (int32_t l_1 = 0; l_1 < 48; ++l_1) {
          DepthwiseConv2d[(((k_outer * 480) + (k_inner * 48)) + l_1) + (i_j_fused * 2304)] = DepthwiseConv2d_global[l_1];
        }
      }
      for (int32_t k_inner_1 = kg_max_i32(kg_min_i32(48 - (k_outer * 10), 10), 0); k_inner_1 < (kg_max_i32(kg_min_i32(48 - (k_outer * 10), 10), 0) + (10 - kg_max_i32(kg_min_i32(48 - (k_outer * 10), 10), 0))); ++k_inner_1) {
        float DepthwiseConv2d_global_1[48] __attribute__((aligned(64)));
        if (((k_outer * 10) + k_inner_1) < 48) {
          #pragma omp simd
          for (int32_t l_2 = 0; l_2 < 48; ++l_2) {
            DepthwiseConv2d_global_1[l_2] = 0.0f;
            DepthwiseConv2d_global_1[l_2] = DepthwiseConv2d_global_1[l_2] + (PaddedInput[(k_inner_1 * 196) + l_2] * Filter[i_j_fused * 9]);
            DepthwiseConv2d_global_1[l_2] = DepthwiseConv2d_global_1[l_2] + (PaddedInput[((k_inner_1 * 196) + l_2) + 49] * Filter[(i_j_fused * 9) + 1]);
            DepthwiseConv2d_global_1[l_2] = DepthwiseConv2d_global_1[l_2] + (PaddedInput[((k_inner_1 * 196) + l_2) + 1] * Filter[(i_j_fused * 9) + 2]);
            DepthwiseConv2d_global_1[l_2] = DepthwiseConv2d_global_1[l_2] + (PaddedInput[((k_inner_1 * 196) + l_2) + 98] * Filter[(i_j_fused * 9) + 3]);
            DepthwiseConv2d_global_1[l_2] = DepthwiseConv2d_global_1[l_2] + (PaddedInput[((k_inner_1 * 196) + l_2) + 147] * Filter[(i_j_fused * 9) + 4]);
            DepthwiseConv2d_global_1[l_2] = DepthwiseConv2d_global_1[l_2] + (PaddedInput[((k_inner_1 * 196) + l_2) + 99] * Filter[(i_j_fused * 9) + 5]);
            DepthwiseConv2d_global_1[l_2] = DepthwiseConv2d_global_1[l_2] + (PaddedInput[((k_inner_1 * 196) + l_2) + 196] * Filter[(i_j_fused * 9) + 6]);
            DepthwiseConv2d_global_1[l_2] = DepthwiseConv2d_global_1[l_2] + (PaddedInput[((k_inner_1 * 196) + l_2) + 245] * Filter[(i_j_fused * 9) + 7]);
            DepthwiseConv2d_global_1[l_2] = DepthwiseConv2d_global_1[l_2] + (PaddedInput[((k_inner_1 * 196) + l_2) + 197] * Filter[(i_j_fused * 9) + 8]);
          }
        }
        if (((k_outer * 10) + k_inner_1) < 48) {
          #pragma omp simd
          for (int32_t l_3 = 0; l_3 < 48; ++l_3) {
            DepthwiseConv2d[(((k_outer * 480) + (k_inner_1 * 48)) + l_3) + (i_j_fused * 2304)] = DepthwiseConv2d_global_1[l_3];
          }
        }
      }
    }
  }
  return kg_status_;
}

