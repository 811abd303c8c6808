#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <math.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static inline float ex(float x) {
  float c = x < -87.3365479f ? -87.3365479f : (x > 89.0f ? 89.0f : x);
  float t = c * 1.44269504f + 12582912.0f; float n = t - 12582912.0f;
  float r = c - n * 0.693359375f; r = r - n * -2.12194440e-4f;
  float p = 0x1.694000p-9f; p = p * r + 0x1.125edcp-6f; p = p * r + 0x1.555b5ap-4f; p = p * r + 0x1.555450p-2f;
  p = p * r + 0x1.fffff6p-1f; p = p * r + 2.0f; p = p * r + 2.0f;
  uint32_t k; __builtin_memcpy(&k, &t, 4); k = (k + 126u) << 23; float s; __builtin_memcpy(&s, &k, 4); return p * s; }
#define W 32
double ph[4];
void k(const float* restrict X, float* restrict S, float* restrict E){
  float M[1024], Z[1024]; double t0=now();
  #pragma omp parallel for
  for(int t=0;t<1024/W;t++){ float a[W]; for(int j=0;j<W;j++) a[j]=-INFINITY;
    for(int r=0;r<1024;r++){
      #pragma omp simd
      for(int j=0;j<W;j++) {float x=X[r*1024+t*W+j]; a[j]=a[j]>x?a[j]:x;}}
    for(int j=0;j<W;j++) M[t*W+j]=a[j]; }
  double t1=now(); ph[0]+=t1-t0;
  #pragma omp parallel for
  for(int i=0;i<1024;i++){
    #pragma omp simd
    for(int j=0;j<1024;j++) E[i*1024+j]=ex(X[i*1024+j]-M[j]); }
  double t2=now(); ph[1]+=t2-t1;
  #pragma omp parallel for
  for(int t=0;t<1024/W;t++){ float a[W]; for(int j=0;j<W;j++) a[j]=0;
    for(int r=0;r<1024;r++){
      #pragma omp simd
      for(int j=0;j<W;j++) a[j]+=E[r*1024+t*W+j];}
    for(int j=0;j<W;j++) Z[t*W+j]=a[j]; }
  double t3=now(); ph[2]+=t3-t2;
  #pragma omp parallel for
  for(int i=0;i<1024;i++){
    #pragma omp simd
    for(int j=0;j<1024;j++) S[i*1024+j]=E[i*1024+j]*(1.0f/Z[j]); }
  ph[3]+=now()-t3;
}
int main(){ float* X=aligned_alloc(64,4<<20); float* Y=aligned_alloc(64,4<<20); float* E=aligned_alloc(64,4<<20); for(int i=0;i<1<<20;i++) X[i]=(float)rand()/RAND_MAX;
 for(int i=0;i<50;i++) k(X,Y,E); for(int q=0;q<4;q++) ph[q]=0; double t0=now(); for(int i=0;i<300;i++) k(X,Y,E); double t=(now()-t0)/300;
 printf("total %.0f  max %.0f exp %.0f sum %.0f norm %.0f\n", t, ph[0]/300, ph[1]/300, ph[2]/300, ph[3]/300); }
