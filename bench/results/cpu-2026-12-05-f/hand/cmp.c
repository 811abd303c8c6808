#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <math.h>
#include <dlfcn.h>
int main(int c,char**v){ long n=atol(v[3]);
 int64_t(*a)(const float*,float*)=dlsym(dlopen(v[1],RTLD_NOW),"k"); int64_t(*b)(const float*,float*)=dlsym(dlopen(v[2],RTLD_NOW),"k");
 float*x=aligned_alloc(64,n*4),*y=aligned_alloc(64,n*4),*z=aligned_alloc(64,n*4); srand(1); for(long i=0;i<n;i++)x[i]=(rand()/(float)RAND_MAX-0.5f)*20;
 a(x,y); b(x,z); double m=0; for(long i=0;i<n;i++){double d=fabs(y[i]-z[i]); if(d>m)m=d;} printf("max diff %g\n",m); return 0;}
