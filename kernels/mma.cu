// mma.sync kernels: one warp per tile of 8 dot products. Line L of the tile
// is row L of A (rows 8..15 are zero) and column L of B; C is zero but for
// its diagonal, c of each line. D's diagonal is the 8 dot products; the
// other entries (cross products of lines) are discarded. K larger than the
// instruction's k is done by a chain of instructions, the D of one the C of
// the next, as emu/tc_dot.c chains its blocks.
//
// Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k*"), with
// g = lane / 4, t = lane % 4, and P elements per 32-bit register (2 for
// f16/bf16, 1 for tf32, 4 for e4m3/e5m2, either of them in A or B; element
// j in bits j*32/P up):
//   A (16 x k), register r, element j: row g + 8 (r % 2),
//                                      column P t + j + 4 P (r / 2)
//   B (k x 8),  register r, element j: row P t + j + 4 P r, column g
//   C, D (16 x 8), element i (f32: one per register; f16: two per
//                register, i even in the low half): row g + 8 (i / 2),
//                                                    column 2 t + i % 2
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#include "kernels.h"
#include "mma.h"

struct shape {
	int k, bits, f16_out; // the instruction's k, input bits, FP16 C/D
};

static __host__ __device__ struct shape shape_of(int type)
{
	switch (type) {
	case FK_MMA_F16_F16: return { 16, 16, 1 };
	case FK_MMA_TF32_F32: return { 8, 32, 0 };
	case FK_MMA_E4M3_F32: case FK_MMA_E5M2_F32: case FK_MMA_E5M2_E4M3_F32: case FK_MMA_E4M3_E5M2_F32: return { 32, 8, 0 };
	case FK_MMA_E4M3_F16: case FK_MMA_E5M2_F16: case FK_MMA_E5M2_E4M3_F16: case FK_MMA_E4M3_E5M2_F16: return { 32, 8, 1 };
	default: return { 16, 16, 0 };
	}
}

struct lines {
	const uint32_t *a, *b; // lines x K patterns
	size_t n;
	int K;
};

static __device__ uint32_t frag_a(const struct lines *L, size_t tile, int chunk, struct shape s, int r)
{
	int g = (int)(threadIdx.x / 4), t = (int)(threadIdx.x % 4), per = 32 / s.bits;
	int row = g + 8 * (r % 2);
	size_t line = tile * 8 + (size_t)row;
	uint32_t reg = 0;
	for (int j = 0; j < per; j++) {
		int col = per * t + j + 4 * per * (r / 2);
		uint32_t e = row < 8 && line < L->n ? L->a[line * (size_t)L->K + (size_t)(chunk * s.k + col)] : 0u;
		reg |= s.bits == 32 ? e : (e & ((1u << s.bits) - 1u)) << (j * s.bits);
	}
	return reg;
}

static __device__ uint32_t frag_b(const struct lines *L, size_t tile, int chunk, struct shape s, int r)
{
	int g = (int)(threadIdx.x / 4), t = (int)(threadIdx.x % 4), per = 32 / s.bits;
	size_t line = tile * 8 + (size_t)g;
	uint32_t reg = 0;
	for (int j = 0; j < per; j++) {
		int row = per * t + j + 4 * per * r;
		uint32_t e = line < L->n ? L->b[line * (size_t)L->K + (size_t)(chunk * s.k + row)] : 0u;
		reg |= s.bits == 32 ? e : (e & ((1u << s.bits) - 1u)) << (j * s.bits);
	}
	return reg;
}

// Element i of this thread's C/D fragment: its row and column.
static __device__ int frag_row(int i) { return (int)(threadIdx.x / 4) + 8 * (i / 2); }
static __device__ int frag_col(int i) { return 2 * (int)(threadIdx.x % 4) + i % 2; }

// One instruction: d = a b + d. d holds four f32 patterns, or (f16_out) two
// registers of two f16 each in d[0], d[1].
#define FK_MMA_F32(instr)                                                                                     \
	asm volatile(instr " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                             \
		     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                                                \
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define FK_MMA_F16(instr)                                                                                     \
	asm volatile(instr " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"                                        \
		     : "+r"(d[0]), "+r"(d[1])                                                                        \
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
static __device__ int mma(int type, const uint32_t a[4], const uint32_t b[2], uint32_t d[4])
{
	switch (type) {
#if __CUDA_ARCH__ >= 800
	case FK_MMA_F16_F32: FK_MMA_F32("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"); return 0;
	case FK_MMA_F16_F16: FK_MMA_F16("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"); return 0;
	case FK_MMA_BF16_F32: FK_MMA_F32("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"); return 0;
	case FK_MMA_TF32_F32: FK_MMA_F32("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"); return 0;
#endif
#if __CUDA_ARCH__ >= 890
	case FK_MMA_E4M3_F32: FK_MMA_F32("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"); return 0;
	case FK_MMA_E5M2_F32: FK_MMA_F32("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32"); return 0;
	case FK_MMA_E4M3_F16: FK_MMA_F16("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16"); return 0;
	case FK_MMA_E5M2_F16: FK_MMA_F16("mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16"); return 0;
	// A and B of two formats: the same fragments (one byte per element in
	// both), A's bytes read as the first type, B's as the second.
	case FK_MMA_E5M2_E4M3_F32: FK_MMA_F32("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32"); return 0;
	case FK_MMA_E4M3_E5M2_F32: FK_MMA_F32("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"); return 0;
	case FK_MMA_E5M2_E4M3_F16: FK_MMA_F16("mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16"); return 0;
	case FK_MMA_E4M3_E5M2_F16: FK_MMA_F16("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16"); return 0;
#endif
	default:
		(void)a;
		(void)b;
		(void)d;
		return 1;
	}
}
#undef FK_MMA_F32
#undef FK_MMA_F16

// C's element i for this thread: c of the line on the diagonal, else zero.
static __device__ uint32_t c_element(const uint32_t *c, size_t n, size_t tile, int i)
{
	int row = frag_row(i), col = frag_col(i);
	size_t line = tile * 8 + (size_t)row;
	return row == col && row < 8 && line < n ? c[line] : 0u;
}

static __global__ void mma_kernel(int type, struct lines L, const uint32_t *c, uint32_t *out, int *unsupported)
{
	struct shape s = shape_of(type);
	size_t tile = blockIdx.x;
	uint32_t d[4];
	if (s.f16_out) {
		d[0] = c_element(c, L.n, tile, 0) | c_element(c, L.n, tile, 1) << 16;
		d[1] = c_element(c, L.n, tile, 2) | c_element(c, L.n, tile, 3) << 16;
		d[2] = d[3] = 0;
	} else {
		for (int i = 0; i < 4; i++)
			d[i] = c_element(c, L.n, tile, i);
	}
	for (int chunk = 0; chunk < L.K / s.k; chunk++) {
		uint32_t a[4], b[2];
		for (int r = 0; r < 4; r++)
			a[r] = frag_a(&L, tile, chunk, s, r);
		for (int r = 0; r < 2; r++)
			b[r] = frag_b(&L, tile, chunk, s, r);
		if (mma(type, a, b, d) != 0) {
			*unsupported = 1;
			return;
		}
	}
	for (int i = 0; i < 4; i++) {
		int row = frag_row(i);
		size_t line = tile * 8 + (size_t)row;
		if (row == frag_col(i) && row < 8 && line < L.n)
			out[line] = s.f16_out ? (d[i / 2] >> (16 * (i % 2))) & 0xFFFFu : d[i];
	}
}

int fk_run_mma(const struct fk_kernel *k, struct fk_job *job, char *err, size_t errlen)
{
	const struct fk_golden *g = job->golden;
	struct shape s = shape_of(k->arg);
	if (g->K < 1 || g->K % s.k != 0) {
		snprintf(err, errlen, "the golden file's K = %d is not a multiple of the instruction's k = %d", g->K, s.k);
		return FK_ERROR;
	}
	size_t n = g->lines, K = (size_t)g->K, tiles = (n + 7) / 8;
	uint32_t *ha = (uint32_t *)malloc(2 * n * K * sizeof *ha), *hc = (uint32_t *)malloc(n * sizeof *hc);
	if (!ha || !hc) {
		snprintf(err, errlen, "out of memory");
		return FK_ERROR;
	}
	for (size_t i = 0; i < n; i++) {
		const uint64_t *row = g->in + i * (size_t)g->nin;
		for (size_t j = 0; j < K; j++) {
			ha[i * K + j] = (uint32_t)row[j];
			ha[n * K + i * K + j] = (uint32_t)row[K + j];
		}
		hc[i] = (uint32_t)row[2 * K];
	}
	uint32_t *dab = NULL, *dc = NULL, *dout = NULL;
	int *dunsup = NULL, unsup = 0;
	FK_CUDA(cudaMalloc(&dab, 2 * n * K * sizeof *dab));
	FK_CUDA(cudaMalloc(&dc, n * sizeof *dc));
	FK_CUDA(cudaMalloc(&dout, n * sizeof *dout));
	FK_CUDA(cudaMalloc(&dunsup, sizeof *dunsup));
	FK_CUDA(cudaMemset(dunsup, 0, sizeof *dunsup));
	FK_CUDA(cudaMemset(dout, 0, n * sizeof *dout));
	FK_CUDA(cudaMemcpy(dab, ha, 2 * n * K * sizeof *dab, cudaMemcpyHostToDevice));
	FK_CUDA(cudaMemcpy(dc, hc, n * sizeof *dc, cudaMemcpyHostToDevice));
	struct lines L = { dab, dab + n * K, n, g->K };
	mma_kernel<<<(unsigned)tiles, 32>>>(k->arg, L, dc, dout, dunsup);
	FK_CUDA(cudaGetLastError());
	FK_CUDA(cudaDeviceSynchronize());
	FK_CUDA(cudaMemcpy(hc, dout, n * sizeof *hc, cudaMemcpyDeviceToHost));
	FK_CUDA(cudaMemcpy(&unsup, dunsup, sizeof unsup, cudaMemcpyDeviceToHost));
	FK_CUDA(cudaFree(dab));
	FK_CUDA(cudaFree(dc));
	FK_CUDA(cudaFree(dout));
	FK_CUDA(cudaFree(dunsup));
	for (size_t i = 0; i < n; i++)
		job->out[i] = hc[i];
	free(ha);
	free(hc);
	snprintf(job->path, sizeof job->path, "mma.sync, %d instruction%s of k = %d per dot product, D of one the C of the next",
		 g->K / s.k, g->K / s.k > 1 ? "s" : "", s.k);
	return unsup ? FK_UNSUPPORTED : FK_OK;
}
