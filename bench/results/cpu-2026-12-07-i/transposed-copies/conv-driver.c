#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stdint.h>
int64_t k(const float* X, const float* W, float* Y);
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(){
  float*X=aligned_alloc(64,512*49*4),*W=aligned_alloc(64,512*512*9*4),*Y=aligned_alloc(64,512*49*4);
  for(int i=0;i<512*49;i++)X[i]=rand()/(float)RAND_MAX;
  for(int i=0;i<512*512*9;i++)W[i]=rand()/(float)RAND_MAX;
  double t[200];
  for(int r=0;r<20;r++)k(X,W,Y);
  for(int r=0;r<200;r++){double a=now();k(X,W,Y);t[r]=now()-a;}
  qsort(t,200,sizeof(double),cmp);
  printf("median %.1f us min %.1f  y0=%f\n",t[100],t[0],Y[0]);
}
