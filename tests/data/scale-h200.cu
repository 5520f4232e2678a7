// Writes tests/data/scale-h200.bin: the recipes of docs/scaling.md run with
// an NVIDIA GPU's own arithmetic (fmaxf amax, __fdiv_rn, __fmul_rn,
// __nv_cvt_float_to_fp8 with __NV_SATFINITE), for check_scale's
// recipes_against_h200.  Run on an H200 (sm_90, CUDA 13.0, driver
// 580.159.04):  nvcc -arch=sm_90 -o t scale-h200.cu && ./t scale-h200.bin
// Tensor t (T = 256 of N = 128 FP32 patterns from the hash h): TE current
// scaling to E5M2 when t & 2 else E4M3, the scale's mantissa cleared when
// t & 1; and one DeepSeek 1x128 tile, s = max(amax, 1e-4f) / 448, E4M3.
// Written compactly to fit one device command line.
#include <cuda_fp8.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
typedef uint32_t U;
__host__ __device__ U h(U x){x^=x>>16;x*=0x7feb352du;x^=x>>15;x*=0x846ca68bu;x^=x>>16;return x;}
__global__ void k(int T,int N,U*X,uint8_t*C,U*S,uint8_t*D,U*E){
int t=blockIdx.x*blockDim.x+threadIdx.x;if(t>=T)return;
U*x=X+(size_t)t*N;float a=0;int e=h(t)%256;
for(int i=0;i<N;i++){U b=h(t*N+i+777);b=(b&0x807FFFFFu)|(((e+(b>>23&15))&255)<<23);x[i]=b;a=fmaxf(a,fabsf(__uint_as_float(b)));}
float m=(t&2)?57344.f:448.f,s=1.f;
if(!(isinf(a)||a==0.f||isnan(a))){s=__fdiv_rn(m,a);if(isinf(s))s=3.40282347e38f;}
if(t&1)s=__uint_as_float(__float_as_uint(s)&0xFF800000u);
float d=__fdiv_rn(fmaxf(a,1e-4f),448.f);
for(int i=0;i<N;i++){float v=__uint_as_float(x[i]);
C[(size_t)t*N+i]=__nv_cvt_float_to_fp8(__fmul_rn(v,s),__NV_SATFINITE,(t&2)?__NV_E5M2:__NV_E4M3);
D[(size_t)t*N+i]=__nv_cvt_float_to_fp8(__fdiv_rn(v,d),__NV_SATFINITE,__NV_E4M3);}
S[t]=__float_as_uint(s);E[t]=__float_as_uint(d);}
int main(int c,char**v){int T=256,N=128;U*X,*S,*E;uint8_t*C,*D;
cudaMallocManaged(&X,T*N*4);cudaMallocManaged(&C,T*N);cudaMallocManaged(&D,T*N);cudaMallocManaged(&S,T*4);cudaMallocManaged(&E,T*4);
k<<<T/128,128>>>(T,N,X,C,S,D,E);if(cudaDeviceSynchronize())return 1;
FILE*f=fopen(v[1],"wb");fwrite(C,1,T*N,f);fwrite(S,4,T,f);fwrite(D,1,T*N,f);fwrite(E,4,T,f);fclose(f);
for(int t=0;t<T;t++)for(int i=0;i<N;i++)if(X[t*N+i]!=((h(t*N+i+777)&0x807FFFFFu)|(((h(t)%256+(h(t*N+i+777)>>23&15))&255)<<23)))return 2;
return 0;}
