#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int64_t convBnSwish(const float*, const float*, const float*, const float*, const float*, const float*, float*, int32_t, int32_t, int32_t, int32_t, int32_t);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char** argv) {
  int n = atoi(argv[1]), c = atoi(argv[2]), h = atoi(argv[3]), w = atoi(argv[4]), k = atoi(argv[5]);
  float* x = malloc(sizeof(float) * n * c * h * w); float* wt = malloc(sizeof(float) * k * c * 9);
  float* g = malloc(4 * k); float* b = malloc(4 * k); float* m = malloc(4 * k); float* v = malloc(4 * k);
  float* y = malloc(sizeof(float) * n * k * h * w);
  for (long i = 0; i < (long) n * c * h * w; i++) x[i] = (i % 7) * 0.1f;
  for (long i = 0; i < (long) k * c * 9; i++) wt[i] = (i % 5) * 0.01f;
  for (int i = 0; i < k; i++) { g[i] = 1; b[i] = 0; m[i] = 0; v[i] = 1; }
  for (int r = 0; r < 5; r++) convBnSwish(x, wt, g, b, m, v, y, n, c, h, w, k);
  double best = 1e9; double ts[30];
  for (int r = 0; r < 30; r++) { double t0 = now(); convBnSwish(x, wt, g, b, m, v, y, n, c, h, w, k); ts[r] = now() - t0; if (ts[r] < best) best = ts[r]; }
  double chk = 0; for (long i = 0; i < (long) n * k * h * w; i++) chk += y[i];
  printf("min %.1f us, checksum %.4f\n", best * 1e6, chk);
  return 0;
}
