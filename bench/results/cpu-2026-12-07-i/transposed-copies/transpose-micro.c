#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
#define S 4608
#define V 32
// dst[m*V + i] = src[i*S + m]
__attribute__((noinline)) void cur(float* restrict d, const float* restrict s) {
  for (int m = 0; m < S; m++) for (int i = 0; i < V; i++) d[m*V+i] = s[i*S+m];
}
__attribute__((noinline)) void blocked(float* restrict d, const float* restrict s) {
  for (int mb = 0; mb < S; mb += 16)
    for (int i = 0; i < V; i++)
      for (int mm = 0; mm < 16; mm++) d[(mb+mm)*V+i] = s[i*S+mb+mm];
}
__attribute__((noinline)) void blocked2(float* restrict d, const float* restrict s) {
  for (int mb = 0; mb < S; mb += 16)
    for (int ib = 0; ib < V; ib += 16) {
      float t[16][16];
      for (int i = 0; i < 16; i++) for (int mm = 0; mm < 16; mm++) t[mm][i] = s[(ib+i)*S+mb+mm];
      for (int mm = 0; mm < 16; mm++) for (int i = 0; i < 16; i++) d[(mb+mm)*V+ib+i] = t[mm][i];
    }
}
#include <immintrin.h>
static inline void tr16(float* d, int ds, const float* s, int ss) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_ps(s + (size_t)i*ss);
  for (int i = 0; i < 8; i++) { t[2*i] = _mm512_unpacklo_ps(r[2*i], r[2*i+1]); t[2*i+1] = _mm512_unpackhi_ps(r[2*i], r[2*i+1]); }
  for (int i = 0; i < 4; i++) for (int j = 0; j < 2; j++) {
    __m512d a = _mm512_castps_pd(t[4*i+j]), b = _mm512_castps_pd(t[4*i+j+2]);
    r[4*i+j] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b)); r[4*i+j+2] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b)); }
  for (int i = 0; i < 2; i++) for (int j = 0; j < 4; j++) {
    t[8*i+j] = _mm512_shuffle_f32x4(r[8*i+j], r[8*i+j+4], 0x88); t[8*i+j+4] = _mm512_shuffle_f32x4(r[8*i+j], r[8*i+j+4], 0xdd); }
  for (int j = 0; j < 8; j++) { r[j] = _mm512_shuffle_f32x4(t[j], t[j+8], 0x88); r[j+8] = _mm512_shuffle_f32x4(t[j], t[j+8], 0xdd); }
  // r now holds columns in some permuted order; store them (order fixed below by index map)
  static const int ord[16] = {0,2,1,3,4,6,5,7,8,10,9,11,12,14,13,15};
  for (int i = 0; i < 16; i++) _mm512_storeu_ps(d + (size_t)ord[i]*ds, r[i]);
}
__attribute__((noinline)) void intr(float* restrict d, const float* restrict s) {
  for (int mb = 0; mb < S; mb += 16) for (int ib = 0; ib < V; ib += 16) tr16(d + mb*V + ib, V, s + ib*S + mb, S);
}
int main(){
  float* s = aligned_alloc(64, (size_t)V*S*4*16), *d = aligned_alloc(64, (size_t)V*S*4), *ref = aligned_alloc(64,(size_t)V*S*4);
  for (size_t i = 0; i < (size_t)V*S*16; i++) s[i] = i;
  void (*f[])(float*, const float*) = {cur, blocked, blocked2, intr};
  const char* n[] = {"cur","blocked","blocked2","intr"};
  cur(ref, s);
  for (int k = 0; k < 4; k++) {
    double best = 1e9;
    for (int r = 0; r < 50; r++) { const float* src = s + (size_t)(r%16)*V*S; double a = now(); f[k](d, src); double t = now()-a; if (t < best) best = t; }
    f[k](d, s);
    printf("%-9s %.1f us  %s\n", n[k], best, memcmp(d, ref, (size_t)V*S*4) ? "WRONG" : "ok");
  }
}
