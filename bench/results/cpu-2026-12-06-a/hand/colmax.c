#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <omp.h>
#include <time.h>
#define R 1024
#define C 1024
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
__attribute__((noinline)) void colmax(const float* restrict X, float* restrict M, int W){
  #pragma omp parallel for
  for(int t=0;t<C/W;t++){
    float acc[1024] __attribute__((aligned(64)));
    #pragma omp simd
    for(int j=0;j<W;j++) acc[j]=-INFINITY;
    for(int r=0;r<R;r++){
      #pragma omp simd
      for(int j=0;j<W;j++){ float x=X[r*C+t*W+j]; acc[j]= acc[j]>x?acc[j]:x; }
    }
    for(int j=0;j<W;j++) M[t*W+j]=acc[j];
  }
}
int main(){
  float* X=aligned_alloc(64,4*R*C); float M[C];
  for(int i=0;i<R*C;i++) X[i]=(float)rand()/RAND_MAX;
  int Ws[]={32,64,128,256,512,1024};
  for(int rep=0;rep<2;rep++)
  for(int w=0;w<6;w++){ int W=Ws[w];
    for(int i=0;i<20;i++) colmax(X,M,W);
    double best=1e30; for(int s=0;s<15;s++){double t0=now(); for(int i=0;i<20;i++) colmax(X,M,W); double t=(now()-t0)/20; if(t<best)best=t;}
    printf("W=%4d tasks=%3d %.1f us\n",W,C/W,best);
  }
}
