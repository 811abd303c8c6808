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
      float PaddedInput[2037] __attribute__((aligned(64)));
      for (int32_t k = 0; k < kg_max_i32(kg_min_i32(96 - (k_outer * 20), 21), 0); ++k) {
        for (int32_t l = 0; l < 96; ++l) {
          PaddedInput[(k * 97) + l] = Input[(((k * 96) + (k_outer * 1920)) + l) + (i_j_fused * 9216)];
        }
        PaddedInput[(k * 97) + 96] = 0.0f;
      }
      for (int32_t k_1 = kg_max_i32(kg_min_i32(96 - (k_outer * 20), 21), 0); k_1 < (kg_max_i32(kg_min_i32(96 - (k_outer * 20), 21), 0) + kg_max_i32(kg_min_i32(97 - (k_outer * 20), 21) - kg_max_i32(kg_min_i32(96 - (k_outer * 20), 21), 0), 0)); ++k_1) {
        for (int32_t l_1 = 0; l_1 < 96; ++l_1) {
          PaddedInput[(k_1 * 97) + l_1] = ((k_1 + (k_outer * 20)) < 96) ? Input[(((k_1 * 96) + (k_outer * 1920)) + l_1) + (i_j_fused * 9216)] : 0.0f;
        }
        PaddedInput[(k_1 * 97) + 96] = 0.0f;
      }
      for (int32_t k_inner = 0; k_inner < kg_max_i32(kg_min_i32(48 - (k_outer * 10), 10), 0); ++k_inner) {
        float DepthwiseConv2d_global[48] __attribute__((aligned(64)));
        #pragma omp simd
        for (int32_t l_2 = 0; l_2 < 48; ++l_2) {
          DepthwiseConv2d_global[l_2] = 0.0f;
          DepthwiseConv2d_global[l_2] = DepthwiseConv2d_global[l_2] + (PaddedInput[(k_inner * 194) + (l_2 * 2)] * Filter[i_j_fused * 9]);
          DepthwiseConv2d_global[l_2] = DepthwiseConv2d_global[l_2] + (PaddedInput[((k_inner * 194) + (l_2 * 2)) + 1] * Filter[(i_j_fused * 9) + 1]);
          DepthwiseConv2d_global[l_2] = DepthwiseConv2d_global[l_2] + (PaddedInput[((k_inner * 194) + (l_2 * 2)) + 2] * Filter[(i_j_fused * 9) + 2]);
          DepthwiseConv2d_global[l_2] = DepthwiseConv2d_global[l_2] + (PaddedInput[((k_inner * 194) + (l_2 * 2)) + 97] * Filter[(i_j_fused * 9) + 3]);
          DepthwiseConv2d_global[l_2] = DepthwiseConv2d_global[l_2] + (PaddedInput[((k_inner * 194) + (l_2 * 2)) + 98] * Filter[(i_j_fused * 9) + 4]);
          DepthwiseConv2d_global[l_2] = DepthwiseConv2d_global[l_2] + (PaddedInput[((k_inner * 194) + (l_2 * 2)) + 99] * Filter[(i_j_fused * 9) + 5]);
          DepthwiseConv2d_global[l_2] = DepthwiseConv2d_global[l_2] + (PaddedInput[((k_inner * 194) + (l_2 * 2)) + 194] * Filter[(i_j_fused * 9) + 6]);
          DepthwiseConv2d_global[l_2] = DepthwiseConv2d_global[l_2] + (PaddedInput[((k_inner * 194) + (l_2 * 2)) + 195] * Filter[(i_j_fused * 9) + 7]);
          DepthwiseConv2d_global[l_2] = DepthwiseConv2d_global[l_2] + (PaddedInput[((k_inner * 194) + (l_2 * 2)) + 196] * Filter[(i_j_fused * 9) + 8]);
        }
        #pragma omp simd
        for (int32_t l_3 = 0; l_3 < 48; ++l_3) {
          DepthwiseConv2d[(((k_outer * 480) + (k_inner * 48)) + l_3) + (i_j_fused * 2304)] = DepthwiseConv2d_global[l_3];
        }
      }
      for (int32_t k_inner_1 = kg_max_i32(kg_min_i32(48 - (k_outer * 10), 10), 0); k_inner_1 < (kg_max_i32(kg_min_i32(48 - (k_outer * 10), 10), 0) + (10 - kg_max_i32(kg_min_i32(48 - (k_outer * 10), 10), 0))); ++k_inner_1) {
        float DepthwiseConv2d_global_1[48] __attribute__((aligned(64)));
        if (((k_outer * 10) + k_inner_1) < 48) {
          #pragma omp simd
          for (int32_t l_4 = 0; l_4 < 48; ++l_4) {
            DepthwiseConv2d_global_1[l_4] = 0.0f;
            DepthwiseConv2d_global_1[l_4] = DepthwiseConv2d_global_1[l_4] + (PaddedInput[(k_inner_1 * 194) + (l_4 * 2)] * Filter[i_j_fused * 9]);
            DepthwiseConv2d_global_1[l_4] = DepthwiseConv2d_global_1[l_4] + (PaddedInput[((k_inner_1 * 194) + (l_4 * 2)) + 1] * Filter[(i_j_fused * 9) + 1]);
            DepthwiseConv2d_global_1[l_4] = DepthwiseConv2d_global_1[l_4] + (PaddedInput[((k_inner_1 * 194) + (l_4 * 2)) + 2] * Filter[(i_j_fused * 9) + 2]);
            DepthwiseConv2d_global_1[l_4] = DepthwiseConv2d_global_1[l_4] + (PaddedInput[((k_inner_1 * 194) + (l_4 * 2)) + 97] * Filter[(i_j_fused * 9) + 3]);
            DepthwiseConv2d_global_1[l_4] = DepthwiseConv2d_global_1[l_4] + (PaddedInput[((k_inner_1 * 194) + (l_4 * 2)) + 98] * Filter[(i_j_fused * 9) + 4]);
            DepthwiseConv2d_global_1[l_4] = DepthwiseConv2d_global_1[l_4] + (PaddedInput[((k_inner_1 * 194) + (l_4 * 2)) + 99] * Filter[(i_j_fused * 9) + 5]);
            DepthwiseConv2d_global_1[l_4] = DepthwiseConv2d_global_1[l_4] + (PaddedInput[((k_inner_1 * 194) + (l_4 * 2)) + 194] * Filter[(i_j_fused * 9) + 6]);
            DepthwiseConv2d_global_1[l_4] = DepthwiseConv2d_global_1[l_4] + (PaddedInput[((k_inner_1 * 194) + (l_4 * 2)) + 195] * Filter[(i_j_fused * 9) + 7]);
            DepthwiseConv2d_global_1[l_4] = DepthwiseConv2d_global_1[l_4] + (PaddedInput[((k_inner_1 * 194) + (l_4 * 2)) + 196] * Filter[(i_j_fused * 9) + 8]);
          }
        }
        if (((k_outer * 10) + k_inner_1) < 48) {
          #pragma omp simd
          for (int32_t l_5 = 0; l_5 < 48; ++l_5) {
            DepthwiseConv2d[(((k_outer * 480) + (k_inner_1 * 48)) + l_5) + (i_j_fused * 2304)] = DepthwiseConv2d_global_1[l_5];
          }
        }
      }
    }
  }
  return kg_status_;
}

