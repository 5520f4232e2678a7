// tcgen05.mma kernels (Blackwell, sm_100a): one 128-line tile per launch,
// one instruction per dot product.  Line L of the tile is row L of A and
// column L of B (B stored N x K, K-major, as A), both from shared memory
// through no-swizzle matrix descriptors; C is loaded into tensor memory
// with tcgen05.st (its diagonal the lines' c, zero elsewhere) and the MMA
// runs with enable-input-d, so the unit itself adds C; the block-scaled
// kinds read unit scale factors that tcgen05.st wrote into tensor memory.
// D's diagonal, read back with tcgen05.ld, is the tile's 128 results.
// Layouts and descriptor bits: kernels/tcgen05_layout.h.  Compiled and its
// SASS read here (kernels/README.md, "tcgen05"); never run on a GPU.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "kernels.h"
#include "tcgen05_layout.h"

#if defined(__CUDA_ARCH__) && (defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL))
#define FK_HAVE_TCGEN05 1
#endif

namespace {

struct Tc5Args {
	const uint8_t *image; // this tile's shared-memory image: A, then B
	const uint32_t *c;    // per line: C's pattern (FP32, or FP16 in the low half)
	uint32_t *out;        // per line: D's pattern
	size_t line0, lines;
	uint32_t idesc, scale_word;
	uint32_t lbo, sbo; // the descriptors' byte offsets (exchanged by the diagnostic knob)
	int kind, f16_out;
	int *unsupported;
};

#ifdef FK_HAVE_TCGEN05
__device__ uint32_t smem_u32(const void *p)
{
	return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ void fence_before() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
__device__ void fence_after() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }

// 32 and 16 register lists for tcgen05.ld / tcgen05.st.
#define FK_REGS32                                                                                       \
	"{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, " \
	"%21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define FK_REGS16 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}"
#define FK_OUT32(r)                                                                                     \
	"=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),    \
		"=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), \
		"=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]),            \
		"=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]), "=r"(r[25]), "=r"(r[26]),            \
		"=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
#define FK_OUT16(r)                                                                                     \
	"=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),    \
		"=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), \
		"=r"(r[15])
#define FK_IN32(r)                                                                                      \
	"r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), \
		"r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15]),       \
		"r"(r[16]), "r"(r[17]), "r"(r[18]), "r"(r[19]), "r"(r[20]), "r"(r[21]), "r"(r[22]),      \
		"r"(r[23]), "r"(r[24]), "r"(r[25]), "r"(r[26]), "r"(r[27]), "r"(r[28]), "r"(r[29]),      \
		"r"(r[30]), "r"(r[31])
#define FK_IN16(r)                                                                                      \
	"r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), \
		"r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15])

// The warp's 32 lanes, 32 consecutive 32-bit columns from taddr.
__device__ void tmem_st32(uint32_t taddr, const uint32_t (&r)[32])
{
	asm volatile("tcgen05.st.sync.aligned.32x32b.x32.b32 [%32], " FK_REGS32 ";" ::FK_IN32(r), "r"(taddr)
		     : "memory");
}

__device__ void tmem_ld32(uint32_t taddr, uint32_t (&r)[32])
{
	asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 " FK_REGS32 ", [%32];" : FK_OUT32(r) : "r"(taddr)
		     : "memory");
}

// FP16: one 16-bit element per column; unpack::16b stores the low half of
// register j in column 2j and the high half in column 2j + 1, pack::16b
// reads them back the same way.
__device__ void tmem_st16x2(uint32_t taddr, const uint32_t (&r)[16])
{
	asm volatile("tcgen05.st.sync.aligned.32x32b.x16.unpack::16b.b32 [%16], " FK_REGS16 ";" ::FK_IN16(r),
		     "r"(taddr)
		     : "memory");
}

__device__ void tmem_ld16x2(uint32_t taddr, uint32_t (&r)[16])
{
	asm volatile("tcgen05.ld.sync.aligned.32x32b.x16.pack::16b.b32 " FK_REGS16 ", [%16];" : FK_OUT16(r)
		     : "r"(taddr)
		     : "memory");
}

__device__ void tmem_st8(uint32_t taddr, uint32_t w)
{
	asm volatile("tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %1, %1, %1, %1, %1, %1, %1};" ::"r"(taddr),
		     "r"(w)
		     : "memory");
}

// One MMA, D = A B + D (enable-input-d true: C is what tcgen05.st left in D).
#define FK_TC5_MMA(kind)                                                                            \
	asm volatile("{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n"                                      \
		     "tcgen05.mma.cta_group::1." kind " [%0], %1, %2, %3, p;\n}" ::"r"(d), "l"(da), "l"(db), \
		     "r"(idesc)                                                                    \
		     : "memory")
#define FK_TC5_MMA_SCALED(kind)                                                                     \
	asm volatile("{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n"                                      \
		     "tcgen05.mma.cta_group::1." kind " [%0], %1, %2, %3, [%4], [%5], p;\n}" ::"r"(d),        \
		     "l"(da), "l"(db), "r"(idesc), "r"(sfa), "r"(sfb)                              \
		     : "memory")
__device__ void issue_mma(int kind, uint32_t d, uint64_t da, uint64_t db, uint32_t idesc, uint32_t sfa, uint32_t sfb)
{
	switch (kind) {
	case FK_TC5_F16: FK_TC5_MMA("kind::f16"); break;
	case FK_TC5_TF32: FK_TC5_MMA("kind::tf32"); break;
	case FK_TC5_F8F6F4: FK_TC5_MMA("kind::f8f6f4"); break;
	case FK_TC5_MXF8F6F4: FK_TC5_MMA_SCALED("kind::mxf8f6f4.block_scale.scale_vec::1X"); break;
	case FK_TC5_MXF4NVF4:
		// UE8M0 per 32 (2X) or UE4M3 per 16 (4X): the descriptor's scale
		// type (bit 23) says which the variant is; the vector size is in the opcode.
		if (idesc >> 23 & 1u)
			FK_TC5_MMA_SCALED("kind::mxf4nvf4.block_scale.scale_vec::2X");
		else
			FK_TC5_MMA_SCALED("kind::mxf4nvf4.block_scale.scale_vec::4X");
		break;
	default: FK_TC5_MMA_SCALED("kind::mxf4.block_scale.scale_vec::2X"); break;
	}
}
#endif

__global__ void __launch_bounds__(128) tc5_kernel(Tc5Args p)
{
#ifdef FK_HAVE_TCGEN05
	__shared__ __align__(1024) uint8_t tile[2 * FK_TC5_TILE_BYTES];
	__shared__ __align__(8) uint64_t mbar;
	__shared__ uint32_t tmem_base;
	const unsigned t = threadIdx.x, warp = t / 32u, lane = t % 32u;
	// The host packed the tile (fk_tc5_pack_row, fk_tc5_offset): copy it as is.
	for (unsigned i = t; i < 2 * FK_TC5_TILE_BYTES / 16u; i += blockDim.x)
		reinterpret_cast<uint4 *>(tile)[i] = reinterpret_cast<const uint4 *>(p.image)[i];
	if (warp == 0) {
		asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_u32(&tmem_base)),
			     "r"(FK_TC5_TMEM_COLS)
			     : "memory");
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
	}
	if (t == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&mbar)) : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	// The generic-proxy stores of the tile, seen by the unit (async proxy).
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	fence_before();
	__syncthreads();
	fence_after();
	const uint32_t base = tmem_base;
	// Warp w owns lanes 32w..32w+31 (rows of D), and the diagonal block
	// of columns 32w..32w+31: C there, zero elsewhere in the block.
	const uint32_t taddr = base + ((32u * warp) << 16) + 32u * warp;
	const size_t line = p.line0 + 32u * warp + lane;
	const uint32_t c = line < p.lines ? p.c[line] : 0u;
	if (p.f16_out) {
		uint32_t r[16];
#pragma unroll
		for (unsigned j = 0; j < 16; ++j)
			r[j] = (2 * j == lane ? c & 0xFFFFu : 0u) | (2 * j + 1 == lane ? (c & 0xFFFFu) << 16 : 0u);
		tmem_st16x2(taddr, r);
	} else {
		uint32_t r[32];
#pragma unroll
		for (unsigned j = 0; j < 32; ++j)
			r[j] = j == lane ? c : 0u;
		tmem_st32(taddr, r);
	}
	if (p.kind >= FK_TC5_MXF8F6F4) {
		const uint32_t lanes = base + ((32u * warp) << 16);
		tmem_st8(lanes + FK_TC5_SFA_COL, p.scale_word);
		tmem_st8(lanes + FK_TC5_SFB_COL, p.scale_word);
	}
	asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
	fence_before();
	__syncthreads();
	if (t == 0) {
		fence_after();
		const uint64_t da = fk_tc5_smem_desc(smem_u32(tile), p.lbo, p.sbo);
		const uint64_t db = fk_tc5_smem_desc(smem_u32(tile + FK_TC5_TILE_BYTES), p.lbo, p.sbo);
		issue_mma(p.kind, base, da, db, p.idesc, base + FK_TC5_SFA_COL, base + FK_TC5_SFB_COL);
		// The mbarrier completes when the MMA (every prior tcgen05 op of
		// this thread) has.
		asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
				     smem_u32(&mbar))
			     : "memory");
	}
	uint32_t done = 0;
	while (!done)
		asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\nselp.u32 %0, 1, 0, p;\n}"
			     : "=r"(done)
			     : "r"(smem_u32(&mbar))
			     : "memory");
	fence_after();
	uint32_t d = 0;
	if (p.f16_out) {
		uint32_t r[16];
		tmem_ld16x2(taddr, r);
		asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
#pragma unroll
		for (unsigned j = 0; j < 16; ++j)
			if (j == lane / 2)
				d = (r[j] >> (16 * (lane % 2))) & 0xFFFFu;
	} else {
		uint32_t r[32];
		tmem_ld32(taddr, r);
		asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
#pragma unroll
		for (unsigned j = 0; j < 32; ++j)
			if (j == lane)
				d = r[j];
	}
	if (line < p.lines)
		p.out[line] = d;
	fence_before();
	__syncthreads();
	if (warp == 0) {
		fence_after();
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(base), "r"(FK_TC5_TMEM_COLS)
			     : "memory");
	}
#else
	if (threadIdx.x == 0)
		*p.unsupported = 1;
#endif
}

// Device buffers released on every path.
struct Buffers {
	void *image = nullptr, *c = nullptr, *out = nullptr, *flag = nullptr;
	~Buffers()
	{
		cudaFree(image);
		cudaFree(c);
		cudaFree(out);
		cudaFree(flag);
	}
};

} // namespace

int fk_run_tcgen05(const struct fk_kernel *k, struct fk_job *job, char *err, size_t errlen)
{
	const struct fk_golden *g = job->golden;
	if (k->arg < 0 || k->arg >= FK_TC5_VARIANTS) {
		snprintf(err, errlen, "no tcgen05 variant %d", k->arg);
		return FK_ERROR;
	}
	const struct fk_tc5_variant *v = &fk_tc5_variants[k->arg];
	if (g->K != (int)v->k) {
		snprintf(err, errlen, "the golden file's K = %d is not the instruction's K = %u (%s)", g->K, v->k, v->name);
		return FK_ERROR;
	}
	const size_t n = g->lines, K = v->k, tiles = (n + FK_TC5_ROWS - 1) / FK_TC5_ROWS;
	const size_t tile2 = 2 * (size_t)FK_TC5_TILE_BYTES;
	uint8_t *image = (uint8_t *)calloc(tiles, tile2);
	uint32_t *hc = (uint32_t *)malloc(n * sizeof *hc);
	if (!image || !hc) {
		free(image);
		free(hc);
		snprintf(err, errlen, "out of memory");
		return FK_ERROR;
	}
	for (size_t i = 0; i < n; i++) {
		const uint64_t *row = g->in + i * (size_t)g->nin;
		uint8_t bytes[FK_TC5_KBYTES];
		uint8_t *a = image + i / FK_TC5_ROWS * tile2, *b = a + FK_TC5_TILE_BYTES;
		unsigned r = (unsigned)(i % FK_TC5_ROWS);
		for (int m = 0; m < 2; m++) {
			fk_tc5_pack_row(v, row + m * K, bytes);
			for (unsigned kb = 0; kb < FK_TC5_KBYTES; kb++)
				(m ? b : a)[fk_tc5_offset(r, kb)] = bytes[kb];
		}
		hc[i] = (uint32_t)row[2 * K];
	}
	// Diagnostic knob, as kernels/wgmma.cu's: the descriptors with LBO and
	// SBO exchanged, for a first run whose every line mismatches.
	const char *swap_env = getenv("FPREF_TCGEN05_SWAP_LBO_SBO");
	const int swap = swap_env && strcmp(swap_env, "1") == 0;
	Buffers buf;
	int unsup = 0, status = FK_OK;
	cudaError_t e = cudaMalloc(&buf.image, tiles * tile2);
	if (e == cudaSuccess)
		e = cudaMalloc(&buf.c, n * sizeof *hc);
	if (e == cudaSuccess)
		e = cudaMalloc(&buf.out, n * sizeof *hc);
	if (e == cudaSuccess)
		e = cudaMalloc(&buf.flag, sizeof(int));
	if (e == cudaSuccess)
		e = cudaMemcpy(buf.image, image, tiles * tile2, cudaMemcpyHostToDevice);
	if (e == cudaSuccess)
		e = cudaMemcpy(buf.c, hc, n * sizeof *hc, cudaMemcpyHostToDevice);
	if (e == cudaSuccess)
		e = cudaMemset(buf.flag, 0, sizeof(int));
	if (e == cudaSuccess)
		e = cudaMemset(buf.out, 0, n * sizeof *hc);
	// One launch per tile: one CTA, one tile, one instruction.
	for (size_t tile = 0; e == cudaSuccess && tile < tiles; tile++) {
		Tc5Args p = { static_cast<const uint8_t *>(buf.image) + tile * tile2, static_cast<const uint32_t *>(buf.c),
			      static_cast<uint32_t *>(buf.out), tile * FK_TC5_ROWS, n,
			      fk_tc5_idesc(v, FK_TC5_ROWS, FK_TC5_ROWS), fk_tc5_unit_scale_word(v),
			      swap ? FK_TC5_SBO : FK_TC5_LBO, swap ? FK_TC5_LBO : FK_TC5_SBO, (int)v->kind,
			      v->f16_out, static_cast<int *>(buf.flag) };
		tc5_kernel<<<1, 128>>>(p);
		e = cudaGetLastError();
		if (e == cudaSuccess)
			e = cudaDeviceSynchronize();
		if (e == cudaSuccess)
			e = cudaMemcpy(&unsup, buf.flag, sizeof unsup, cudaMemcpyDeviceToHost);
		if (e == cudaSuccess && unsup)
			break;
	}
	if (e == cudaSuccess && !unsup)
		e = cudaMemcpy(hc, buf.out, n * sizeof *hc, cudaMemcpyDeviceToHost);
	if (e != cudaSuccess) {
		snprintf(err, errlen, "tcgen05 (%s): %s (%s)", v->name, cudaGetErrorString(e), cudaGetErrorName(e));
		status = e == cudaErrorNoKernelImageForDevice ? FK_UNSUPPORTED : FK_ERROR;
	} else if (unsup) {
		snprintf(err, errlen, "this build has no sm_100a code for tcgen05 (compile with -gencode arch=compute_100a,code=sm_100a)");
		status = FK_UNSUPPORTED;
	} else {
		for (size_t i = 0; i < n; i++)
			job->out[i] = hc[i];
		snprintf(job->path, sizeof job->path,
			 "tcgen05.mma cta_group::1 %s, M=N=128 K=%u, one per dot, C in TMEM%s%s", v->name, v->k,
			 v->scale ? ", unit scales in TMEM" : "", swap ? "; LBO/SBO swapped (knob)" : "");
	}
	free(image);
	free(hc);
	return status;
}
