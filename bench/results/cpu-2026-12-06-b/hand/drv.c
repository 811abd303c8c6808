#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <dlfcn.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int c,char**v){void*h=dlopen(v[1],RTLD_NOW);if(!h){puts(dlerror());return 1;}
 int64_t(*k)(const float*,const float*,const float*,const float*,float*)=dlsym(h,"k"); long C=atol(v[2]),H=atol(v[3]),W=atol(v[4]);
 long n=C*H*W; int Q=getenv("Q")?atoi(getenv("Q")):50; float*x=aligned_alloc(64,n*4+64),*y=aligned_alloc(64,n*4+64),*f=malloc(C*9*4),*s=malloc(C*4),*b=malloc(C*4);
 for(long i=0;i<n;i++)x[i]=((i*7)%97)*0.01f-0.3f; for(long i=0;i<C*9;i++)f[i]=((i*5)%13)*0.1f-0.5f; for(long i=0;i<C;i++){s[i]=1+i%3*0.1f;b[i]=0.01f*(i%5);}
 double t[41]; for(int r=0;r<200;r++)k(x,f,s,b,y);
 for(int r=0;r<41;r++){double a=now();for(int q=0;q<Q;q++)k(x,f,s,b,y);t[r]=(now()-a)/Q;}
 qsort(t,41,8,cmp); double sum=0; for(long i=0;i<n;i++)sum+=y[i]*(1+(i%7));
 printf("%s median %.2f us min %.2f  checksum %.6e\n",v[1],t[20],t[0],sum); return 0;}
