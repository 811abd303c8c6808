#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#include <dlfcn.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  void*h=dlopen(argv[1],RTLD_NOW); if(!h){printf("%s\n",dlerror());return 1;}
  int64_t(*f)(float*,float*,float*,float*,float*)=dlsym(h,"dw");
  long nin=atol(argv[2]), nout=atol(argv[3]), nf=atol(argv[4]);
  float*in=aligned_alloc(64,nin*4),*fl=aligned_alloc(64,nf*4),*out=aligned_alloc(64,nout*4),*sc=aligned_alloc(64,4096*4),*sh=aligned_alloc(64,4096*4);
  for(long i=0;i<nin;i++)in[i]=rand()/(float)RAND_MAX; for(long i=0;i<nf;i++)fl[i]=rand()/(float)RAND_MAX;
  for(int i=0;i<4096;i++){sc[i]=1;sh[i]=0;}
  double ts[201]; int R=201;
  for(int r=0;r<20;r++) { if(argc>5) f(in,fl,sc,sh,out); else f(in,fl,out,0,0); }
  for(int r=0;r<R;r++){double t0=now(); if(argc>5) f(in,fl,sc,sh,out); else f(in,fl,out,0,0); ts[r]=now()-t0;}
  qsort(ts,R,sizeof(double),cmp); double s=0; for(long i=0;i<nout;i++)s+=out[i];
  printf("median %.1f us (min %.1f)  checksum %.3f\n",ts[R/2]*1e6,ts[0]*1e6,s);
}
