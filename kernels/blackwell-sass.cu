// kernels/blackwell-sass.cu: not part of fpref-cuda.  The mma.sync forms
// whose SASS docs/accumulation.md ("Blackwell") records, to compile and read:
//   nvcc -arch=sm_100a -cubin -o x.cubin kernels/blackwell-sass.cu -DFP8_ONLY && cuobjdump -sass x.cubin
//   nvcc -arch=sm_120a -cubin -o x.cubin kernels/blackwell-sass.cu && cuobjdump -sass x.cubin
// (sm_90 as for sm_100a).  FP6/FP4 and block-scaled mma.sync exist on sm_120a
// only: ptxas refuses them for sm_100a, hence FP8_ONLY there.
#include <cstdint>
extern "C" __global__ void mma_e4m3_f32(const uint32_t *a, const uint32_t *b, const float *c, float *d)
{
	float d0, d1, d2, d3;
	asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
		     : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
	d[0] = d0; d[1] = d1; d[2] = d2; d[3] = d3;
}
extern "C" __global__ void mma_e5m2_f16(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *d)
{
	uint32_t d0, d1;
	asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
		     : "=r"(d0), "=r"(d1)
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
	d[0] = d0; d[1] = d1;
}
#ifndef FP8_ONLY
extern "C" __global__ void f8f6f4_e2m1(const uint32_t *a, const uint32_t *b, const float *c, float *d)
{
	float d0, d1, d2, d3;
	asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
		     : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
	d[0] = d0; d[1] = d1; d[2] = d2; d[3] = d3;
}
extern "C" __global__ void mxf8f6f4(const uint32_t *a, const uint32_t *b, const float *c, float *d, uint32_t sa, uint32_t sb)
{
	float d0, d1, d2, d3;
	asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, {%14}, {0, 0}, {%15}, {0, 0};"
		     : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]), "r"(sa), "r"(sb));
	d[0] = d0; d[1] = d1; d[2] = d2; d[3] = d3;
}
extern "C" __global__ void mxf4nvf4(const uint32_t *a, const uint32_t *b, const float *c, float *d, uint32_t sa, uint32_t sb)
{
	float d0, d1, d2, d3;
	asm volatile("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, {%14}, {0, 0}, {%15}, {0, 0};"
		     : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]), "r"(sa), "r"(sb));
	d[0] = d0; d[1] = d1; d[2] = d2; d[3] = d3;
}
#endif
