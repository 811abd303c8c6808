// Times hand-written 2048^3 float32 matmul kernels on one CUDA device, each checked against a
// double-precision reference: the probes behind the generated GPU tiling's choices (see README.md).
//   nvcc -O3 -arch=sm_90 harness.cu -o harness && ./harness
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include "probes.cuh"

__global__ void ref(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.y * 16 + threadIdx.y, j = blockIdx.x * 16 + threadIdx.x;
  if (i < n && j < n) {
    double s = 0;
    for (int k = 0; k < n; ++k) s += (double)a[i * n + k] * b[k * n + j];
    c[i * n + j] = (float)s;
  }
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
typedef void (*K)(const float*, const float*, float*);

int main() {
  const int n = 2048;
  size_t bytes = (size_t)n * n * 4;
  std::vector<float> ha(n * n), hb(n * n), hr(n * n), hc(n * n);
  srand(1);
  for (auto& x : ha) x = rand() / (float)RAND_MAX - 0.5f;
  for (auto& x : hb) x = rand() / (float)RAND_MAX - 0.5f;
  float *a, *b, *c, *r;
  CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes)); CK(cudaMalloc(&c, bytes)); CK(cudaMalloc(&r, bytes));
  CK(cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice));
  ref<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(a, b, r, n);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hr.data(), r, bytes, cudaMemcpyDeviceToHost));
  // c_: each thread's 8x8 registers contiguous; s_: two chunks of 4, 64 apart (virtual threads).
  // bk: tile_k; db: double-buffered tiles staged in registers; vg: 128-bit global loads.
  const char* names[] = {"c_bk8", "c_bk8db", "c_bk8vg", "c_bk8dbvg",
                         "s_bk8", "s_bk8db", "s_bk8vg", "s_bk8dbvg", "s_bk16dbvg"};
  K ks[] = {mmt<8, false, false, false>, mmt<8, true, false, false>, mmt<8, false, true, false>,
            mmt<8, true, true, false>,   mmt<8, false, false, true>, mmt<8, true, false, true>,
            mmt<8, false, true, true>,   mmt<8, true, true, true>,   mmt<16, true, true, true>};
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int v = 0; v < (int)(sizeof(ks) / sizeof(ks[0])); ++v) {
    CK(cudaMemset(c, 0, bytes));
    ks[v]<<<256, 256>>>(a, b, c);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hc.data(), c, bytes, cudaMemcpyDeviceToHost));
    double err = 0;
    for (size_t i = 0; i < hc.size(); ++i) err = fmax(err, fabs(hc[i] - hr[i]));
    for (int w = 0; w < 5; ++w) ks[v]<<<256, 256>>>(a, b, c);
    int reps = 50;
    cudaEventRecord(e0);
    for (int w = 0; w < reps; ++w) ks[v]<<<256, 256>>>(a, b, c);
    cudaEventRecord(e1);
    CK(cudaEventSynchronize(e1));
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    double us = ms * 1000 / reps;
    printf("%-11s %8.1f us  %6.2f TFLOP/s  max err %.2e\n", names[v], us, 2.0 * n * n * (double)n / us / 1e6, err);
  }
  return 0;
}
