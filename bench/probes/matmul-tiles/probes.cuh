// Probes beyond v4: tile_k (BK), double-buffered shared tiles with the next tile's global loads
// held in registers (DB), float4 global loads (VG). Block 128x128, 256 threads, 8x8 registers as
// 2x2 chunks of 4x4, A k-major padded to 132.
template <int BK, bool DB, bool VG, bool ST = true>
__global__ void __launch_bounds__(256) mmt(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
  const int n = 2048;
  const int bi = blockIdx.x / 16, bj = blockIdx.x % 16;
  const int tid = threadIdx.x, ty = tid / 16, tx = tid % 16;
  constexpr int AP = 132;
  constexpr int NB = DB ? 2 : 1;
  __shared__ __align__(16) float as[NB][BK * AP];
  __shared__ __align__(16) float bs[NB][BK * 128];
  constexpr int AL = BK * 128 / 256;  // A elements per thread per tile
  constexpr int BL = BK * 128 / 256;
  float ra_g[AL], rb_g[BL];
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
  auto load = [&](int ko) {
    if (VG) {
      // A: 128 rows x BK k: each thread float4s along k
#pragma unroll
      for (int q = 0; q < AL / 4; ++q) {
        int x = q * 256 + tid; int row = x / (BK / 4), kq = x % (BK / 4);
        float4 v = *(const float4*)&a[(bi * 128 + row) * n + ko * BK + kq * 4];
        ra_g[q * 4 + 0] = v.x; ra_g[q * 4 + 1] = v.y; ra_g[q * 4 + 2] = v.z; ra_g[q * 4 + 3] = v.w;
      }
#pragma unroll
      for (int q = 0; q < BL / 4; ++q) {
        int x = q * 256 + tid; int row = x / 32, cq = x % 32;
        float4 v = *(const float4*)&b[(ko * BK + row) * n + bj * 128 + cq * 4];
        rb_g[q * 4 + 0] = v.x; rb_g[q * 4 + 1] = v.y; rb_g[q * 4 + 2] = v.z; rb_g[q * 4 + 3] = v.w;
      }
    } else {
#pragma unroll
      for (int q = 0; q < AL; ++q) { int x = q * 256 + tid; ra_g[q] = a[(bi * 128 + x / BK) * n + ko * BK + x % BK]; }
#pragma unroll
      for (int q = 0; q < BL; ++q) { int x = q * 256 + tid; rb_g[q] = b[(ko * BK + x / 128) * n + bj * 128 + x % 128]; }
    }
  };
  auto store = [&](int buf) {
    if (VG) {
#pragma unroll
      for (int q = 0; q < AL / 4; ++q) {
        int x = q * 256 + tid; int row = x / (BK / 4), kq = x % (BK / 4);
#pragma unroll
        for (int e = 0; e < 4; ++e) as[buf][(kq * 4 + e) * AP + row] = ra_g[q * 4 + e];
      }
#pragma unroll
      for (int q = 0; q < BL / 4; ++q) {
        int x = q * 256 + tid; int row = x / 32, cq = x % 32;
        *(float4*)&bs[buf][row * 128 + cq * 4] = make_float4(rb_g[q*4], rb_g[q*4+1], rb_g[q*4+2], rb_g[q*4+3]);
      }
    } else {
#pragma unroll
      for (int q = 0; q < AL; ++q) { int x = q * 256 + tid; as[buf][(x % BK) * AP + x / BK] = ra_g[q]; }
#pragma unroll
      for (int q = 0; q < BL; ++q) { int x = q * 256 + tid; bs[buf][x] = rb_g[q]; }
    }
  };
  auto compute = [&](int buf) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float ra[8], rb[8];
#pragma unroll
      for (int v = 0; v < 2; ++v)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          ra[v * 4 + r] = ST ? as[buf][k * AP + v * 64 + ty * 4 + r] : as[buf][k * AP + ty * 8 + v * 4 + r];
          rb[v * 4 + r] = ST ? bs[buf][k * 128 + v * 64 + tx * 4 + r] : bs[buf][k * 128 + tx * 8 + v * 4 + r];
        }
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += ra[i] * rb[j];
    }
  };
  const int steps = n / BK;
  if (DB) {
    load(0); store(0); __syncthreads();
    for (int ko = 0; ko < steps; ++ko) {
      int cur = ko & 1;
      if (ko + 1 < steps) load(ko + 1);
      compute(cur);
      if (ko + 1 < steps) store(cur ^ 1);
      __syncthreads();
    }
  } else {
    for (int ko = 0; ko < steps; ++ko) {
      load(ko); store(0); __syncthreads(); compute(0); __syncthreads();
    }
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; j += 4) {
      int gi = ST ? bi * 128 + (i / 4) * 64 + ty * 4 + i % 4 : bi * 128 + ty * 8 + i;
      int gj = ST ? bj * 128 + (j / 4) * 64 + tx * 4 : bj * 128 + tx * 8 + j;
      *(float4*)&c[gi * n + gj] = make_float4(acc[i][j], acc[i][j+1], acc[i][j+2], acc[i][j+3]);
    }
}
