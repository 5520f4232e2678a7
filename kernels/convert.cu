// Conversion kernels: one pattern per thread through a CUDA intrinsic or a
// PTX cvt. Instructions that need a newer architecture than the code was
// compiled for set *unsupported instead of computing (the host also checks
// the device's compute capability first, from the table).
#include <cstdio>
#include <cstring>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "convert.h"
#include "kernels.h"

static __device__ float as_float(uint32_t x) { return __uint_as_float(x); }
static __device__ uint32_t half_bits(__half h) { return __half_as_ushort(h); }
static __device__ uint32_t bf16_bits(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }
static __device__ uint32_t float_bits(float f) { return __float_as_uint(f); }

static __device__ uint32_t ptx_f32_to(int op, float f, int *unsupported)
{
	unsigned short h = 0;
	switch (op) {
	case FK_PTX_F32_F16_RN: asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
	case FK_PTX_F32_F16_RZ: asm("cvt.rz.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
#if __CUDA_ARCH__ >= 800
	case FK_PTX_F32_BF16_RN: asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
	case FK_PTX_F32_BF16_RZ: asm("cvt.rz.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
#endif
#if __CUDA_ARCH__ >= 900
	case FK_PTX_F32_BF16_RM: asm("cvt.rm.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
	case FK_PTX_F32_BF16_RP: asm("cvt.rp.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
#endif
#if __CUDA_ARCH__ >= 890
	// The x2 forms put the first source in the upper half: f goes low.
	case FK_PTX_F32_E4M3_SAT: asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(0.0f), "f"(f)); return h & 0xFFu;
	case FK_PTX_F32_E5M2_SAT: asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(h) : "f"(0.0f), "f"(f)); return h & 0xFFu;
#endif
	default: *unsupported = 1; return 0;
	}
}

static __device__ uint32_t ptx_back(int op, uint32_t x, int *unsupported)
{
#if __CUDA_ARCH__ >= 890
	uint32_t r = 0;
	unsigned short in = (unsigned short)(x & 0xFFu);
	switch (op) {
	case FK_PTX_E4M3_F16: asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(in)); return r & 0xFFFFu;
	case FK_PTX_E5M2_F16: asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(in)); return r & 0xFFFFu;
	default: break;
	}
#else
	(void)op;
	(void)x;
#endif
	*unsupported = 1;
	return 0;
}

static __device__ uint32_t intrinsic_f32_to(int op, float f, int *unsupported)
{
	switch (op) {
	case FK_F32_F16_RN: return half_bits(__float2half_rn(f));
	case FK_F32_F16_RZ: return half_bits(__float2half_rz(f));
	case FK_F32_F16_RD: return half_bits(__float2half_rd(f));
	case FK_F32_F16_RU: return half_bits(__float2half_ru(f));
	case FK_F32_BF16_RN: return bf16_bits(__float2bfloat16_rn(f));
	case FK_F32_BF16_RZ: return bf16_bits(__float2bfloat16_rz(f));
	case FK_F32_BF16_RD: return bf16_bits(__float2bfloat16_rd(f));
	case FK_F32_BF16_RU: return bf16_bits(__float2bfloat16_ru(f));
	case FK_F32_E4M3_SAT: return __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
	case FK_F32_E4M3: return __nv_cvt_float_to_fp8(f, __NV_NOSAT, __NV_E4M3);
	case FK_F32_E5M2_SAT: return __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2);
	case FK_F32_E5M2: return __nv_cvt_float_to_fp8(f, __NV_NOSAT, __NV_E5M2);
	case FK_F32_E2M3: return __nv_cvt_float_to_fp6(f, __NV_E2M3, cudaRoundNearest);
	case FK_F32_E3M2: return __nv_cvt_float_to_fp6(f, __NV_E3M2, cudaRoundNearest);
	case FK_F32_E2M1: return __nv_cvt_float_to_fp4(f, __NV_E2M1, cudaRoundNearest);
	case FK_F32_E8M0_RZ: return __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundZero);
	case FK_F32_E8M0_RZ_SAT: return __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundZero);
	case FK_F32_E8M0_RP: return __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundPosInf);
	case FK_F32_E8M0_RP_SAT: return __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundPosInf);
	default: return ptx_f32_to(op, f, unsupported);
	}
}

static __device__ uint32_t intrinsic_back(int op, uint32_t x, int *unsupported)
{
	__half_raw hr;
	__nv_bfloat16_raw br;
	switch (op) {
	case FK_F16_F32: hr.x = (unsigned short)x; return float_bits(__half2float(__half(hr)));
	case FK_BF16_F32: br.x = (unsigned short)x; return float_bits(__bfloat162float(__nv_bfloat16(br)));
	case FK_E4M3_F16: return __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)x, __NV_E4M3).x;
	case FK_E5M2_F16: return __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)x, __NV_E5M2).x;
	case FK_E4M3_F32: return float_bits(__half2float(__half(__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)x, __NV_E4M3))));
	case FK_E5M2_F32: return float_bits(__half2float(__half(__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)x, __NV_E5M2))));
	case FK_E2M3_F16: return __nv_cvt_fp6_to_halfraw((__nv_fp6_storage_t)x, __NV_E2M3).x;
	case FK_E3M2_F16: return __nv_cvt_fp6_to_halfraw((__nv_fp6_storage_t)x, __NV_E3M2).x;
	case FK_E2M1_F16: return __nv_cvt_fp4_to_halfraw((__nv_fp4_storage_t)x, __NV_E2M1).x;
	case FK_E8M0_BF16: return __nv_cvt_e8m0_to_bf16raw((__nv_fp8_storage_t)x).x;
	default: return ptx_back(op, x, unsupported);
	}
}

static __global__ void convert_kernel(int op, const uint32_t *in, uint32_t *out, size_t n, int *unsupported)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int unsup = 0;
	uint32_t r = op < FK_FIRST_BACK ? intrinsic_f32_to(op, as_float(in[i]), &unsup) : intrinsic_back(op, in[i], &unsup);
	out[i] = r;
	if (unsup)
		*unsupported = 1;
}

// Which code the device ran: the architecture it was compiled for, and
// whether cuda_fp8.hpp used the PTX cvt for FP4/FP6/E8M0 (else software).
static __global__ void path_kernel(int *arch, int *short_ptx)
{
#ifdef __CUDA_ARCH__
	*arch = __CUDA_ARCH__;
#else
	*arch = 0;
#endif
#if defined(__CUDA_FP8_INTERNAL_CAN_RELY_ON_PTX_FOR_SHORTTYPESCVT__) && __CUDA_FP8_INTERNAL_CAN_RELY_ON_PTX_FOR_SHORTTYPESCVT__
	*short_ptx = 1;
#else
	*short_ptx = 0;
#endif
}

static int describe_path(struct fk_job *job, char *err, size_t errlen)
{
	int *d = NULL, h[2] = { 0, 0 };
	FK_CUDA(cudaMalloc(&d, 2 * sizeof *d));
	path_kernel<<<1, 1>>>(d, d + 1);
	FK_CUDA(cudaGetLastError());
	FK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	FK_CUDA(cudaFree(d));
	snprintf(job->path, sizeof job->path, "device code for __CUDA_ARCH__ %d; FP4/FP6/E8M0 header conversions: %s", h[0],
		 h[1] ? "PTX cvt" : "software");
	return FK_OK;
}

int fk_run_convert(const struct fk_kernel *k, struct fk_job *job, char *err, size_t errlen)
{
	const struct fk_golden *g = job->golden;
	if (g->nin != 1) {
		snprintf(err, errlen, "a conversion needs one input column, the golden file has %d", g->nin);
		return FK_ERROR;
	}
	if (describe_path(job, err, errlen) != FK_OK)
		return FK_ERROR;
	size_t n = g->lines, bytes = n * sizeof(uint32_t);
	uint32_t *host = (uint32_t *)malloc(bytes), *din = NULL, *dout = NULL;
	int *dunsup = NULL, unsup = 0;
	if (!host) {
		snprintf(err, errlen, "out of memory");
		return FK_ERROR;
	}
	for (size_t i = 0; i < n; i++)
		host[i] = (uint32_t)g->in[i];
	FK_CUDA(cudaMalloc(&din, bytes));
	FK_CUDA(cudaMalloc(&dout, bytes));
	FK_CUDA(cudaMalloc(&dunsup, sizeof *dunsup));
	FK_CUDA(cudaMemset(dunsup, 0, sizeof *dunsup));
	FK_CUDA(cudaMemcpy(din, host, bytes, cudaMemcpyHostToDevice));
	unsigned blocks = (unsigned)((n + 255) / 256);
	convert_kernel<<<blocks, 256>>>(k->arg, din, dout, n, dunsup);
	FK_CUDA(cudaGetLastError());
	FK_CUDA(cudaDeviceSynchronize());
	FK_CUDA(cudaMemcpy(host, dout, bytes, cudaMemcpyDeviceToHost));
	FK_CUDA(cudaMemcpy(&unsup, dunsup, sizeof unsup, cudaMemcpyDeviceToHost));
	FK_CUDA(cudaFree(din));
	FK_CUDA(cudaFree(dout));
	FK_CUDA(cudaFree(dunsup));
	for (size_t i = 0; i < n; i++)
		job->out[i] = host[i];
	free(host);
	return unsup ? FK_UNSUPPORTED : FK_OK;
}
