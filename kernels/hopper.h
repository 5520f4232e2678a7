/* Hopper-class kernels: WGMMA FP8/F16/BF16 dot products and cuBLASLt FP8 GEMM.
 *
 * Both entry points return 0 on success, 1 when the work cannot run here
 * (no device, wrong architecture, combination the unit or library lacks;
 * err says why) and -1 on an error (bad argument or a failed CUDA/cuBLASLt
 * call; err says which).  Format names are fpref's: float8_e4m3fn,
 * float8_e5m2, float16, bfloat16, float32 (short aliases e4m3, e5m2, f16,
 * bf16, f32 are accepted too).  kernels/HOPPER.md describes the layouts. */
#ifndef FPREF_KERNELS_HOPPER_H
#define FPREF_KERNELS_HOPPER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One dot product per line: d[i] = c[i] + sum_k a[i*K+k] * b[i*K+k] through
 * wgmma.mma_async m64n64k32 (FP8) or m64n64k16 (F16/BF16), K/32 (or K/16)
 * instructions chained in one accumulator.  a, b: lines*K elements, 1 byte
 * each for FP8, 2 (bit patterns) for float16/bfloat16.  c, d: lines values of
 * out_format (float, or uint16_t FP16 bits).  c == NULL runs the first
 * instruction with scale-d = 0 (C = 0, as in the published data); c != NULL
 * preloads the accumulator with c and runs every instruction with scale-d = 1. */
int fpref_cuda_wgmma_dot(const char *in_format, const char *out_format, int K,
                         const uint8_t *a, const uint8_t *b, const void *c, void *d,
                         size_t lines, char *err, size_t errlen);

/* The same with A and B of two formats: a in a_format, b in b_format
 * (float8_e5m2 x float8_e4m3fn or float8_e4m3fn x float8_e5m2, each ->
 * float32 or float16: wgmma's atype and btype; a pair of one format runs
 * as fpref_cuda_wgmma_dot). */
int fpref_cuda_wgmma_dot_ab(const char *a_format, const char *b_format, const char *out_format,
                            int K, const uint8_t *a, const uint8_t *b, const void *c, void *d,
                            size_t lines, char *err, size_t errlen);

/* D = A·B through cublasLtMatmul with FP8 inputs, alpha = 1, beta = 0, A and
 * B scale pointers set to 1.0.  a: row-major MxK, b: row-major KxN, d:
 * row-major MxN of out_format (float32: float; bfloat16/float16: uint16_t
 * bits).  M, N, K must be multiples of 16 (cuBLASLt's FP8 alignment rule).
 * desc receives the algorithm the heuristic chose (id, tile, stages,
 * split-K, ...). */
int fpref_cuda_cublaslt_gemm(const char *a_format, const char *b_format, const char *out_format,
                             int fast_accum, int M, int N, int K, const uint8_t *a,
                             const uint8_t *b, void *d, char *desc, size_t desclen, char *err,
                             size_t errlen);

/* Host-side model of the operand layout, for tests without a GPU. */

/* Byte offset, from the descriptor's start address, at which the wgmma unit
 * reads element (row, col) of a K-major operand, computed from the descriptor
 * bits alone with the PTX ISA's canonical no-swizzle K-major layout
 * ((8,m),(T,2k)):((1T,SBO),(1,LBO)) in elements, T = 16 / elem_bytes.
 * Returns -1 when the descriptor is not a no-swizzle one. */
long fpref_wgmma_model_offset(uint64_t desc, int elem_bytes, int row, int col);

/* The descriptor the kernel builds for a tile at shared address smem_addr. */
uint64_t fpref_wgmma_tile_desc(uint32_t smem_addr, int swap_lbo_sbo);

/* Where the kernel's packing code stores byte kbyte (0..31) of tile row
 * row (0..63), relative to the tile start. */
unsigned fpref_wgmma_pack_offset_host(unsigned row, unsigned kbyte);

/* Row and column of D that accumulator value v (0..31, in the order of the
 * instruction's register list; FP16 packs v = 2q and 2q+1 into register q)
 * of warpgroup thread t (0..127) holds, for m64n64. */
void fpref_wgmma_acc_coord_host(unsigned t, unsigned v, unsigned *row, unsigned *col);

#ifdef __cplusplus
}
#endif

/* Device-and-host definitions shared by the kernel and the host model. */
#ifdef __CUDACC__
#define FPREF_WGMMA_TILE_ROWS 64u    /* M = N of the instruction: one line per row */
#define FPREF_WGMMA_TILE_KBYTES 32u  /* K bytes per instruction: k32 FP8 or k16 F16 */
#define FPREF_WGMMA_CORE_BYTES 128u  /* a core matrix: 8 rows of 16 bytes, contiguous */
#define FPREF_WGMMA_LBO 128u         /* bytes between core matrices adjacent in K */
#define FPREF_WGMMA_SBO 256u         /* bytes between core matrices adjacent in M/N */

/* Each 8-row group holds its two K-adjacent core matrices side by side. */
__host__ __device__ inline unsigned fpref_wgmma_pack_offset(unsigned row, unsigned kbyte)
{
    return (row / 8u) * FPREF_WGMMA_SBO + (kbyte / 16u) * FPREF_WGMMA_LBO + (row % 8u) * 16u +
           kbyte % 16u;
}

/* PTX ISA matrix-descriptor-encode: 16-byte units, 14 bits. */
__host__ __device__ inline uint64_t fpref_wgmma_desc_encode(uint32_t x)
{
    return (uint64_t)((x & 0x3FFFFu) >> 4);
}

/* Bits 13-0 start address, 29-16 leading byte offset, 45-32 stride byte
 * offset, 63-62 swizzle mode (0: none); base offset 0 (unused without swizzle). */
__host__ __device__ inline uint64_t fpref_wgmma_make_desc(uint32_t smem_addr, int swap_lbo_sbo)
{
    uint32_t lbo = swap_lbo_sbo ? FPREF_WGMMA_SBO : FPREF_WGMMA_LBO;
    uint32_t sbo = swap_lbo_sbo ? FPREF_WGMMA_LBO : FPREF_WGMMA_SBO;
    return fpref_wgmma_desc_encode(smem_addr) | (fpref_wgmma_desc_encode(lbo) << 16) |
           (fpref_wgmma_desc_encode(sbo) << 32);
}

/* The accumulator fragment of m64nN (PTX ISA figures for wgmma D): warp w
 * holds rows 16w..16w+15; value v: bit 0 the odd column, bit 1 the row + 8,
 * v / 4 the group of 8 columns; lane l: row l / 4, column pair l % 4. */
__host__ __device__ inline void fpref_wgmma_acc_coord(unsigned t, unsigned v, unsigned *row,
                                                      unsigned *col)
{
    unsigned warp = t / 32u, lane = t % 32u;
    *row = 16u * warp + lane / 4u + 8u * ((v / 2u) % 2u);
    *col = 8u * (v / 4u) + 2u * (lane % 4u) + v % 2u;
}
#endif

#endif
