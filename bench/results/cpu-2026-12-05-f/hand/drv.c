#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <dlfcn.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int c,char**v){void*h=dlopen(v[1],RTLD_NOW);if(!h){puts(dlerror());return 1;}
 int64_t(*k)(const float*,float*)=dlsym(h,"k"); long n=atol(v[2]);
 float*x=aligned_alloc(64,n*4),*y=aligned_alloc(64,n*4); for(long i=0;i<n;i++)x[i]=(i%97)*0.01f;
 double t[30]; for(int r=0;r<5;r++)k(x,y); for(int r=0;r<30;r++){double a=now();k(x,y);t[r]=now()-a;}
 qsort(t,30,8,cmp); printf("%s median %.1f us min %.1f\n",v[1],t[15],t[0]); return 0;}
