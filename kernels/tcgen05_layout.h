/* The operand layouts and descriptors of kernels/tcgen05.cu (tcgen05.mma on
 * sm_100a), as plain C so that tests/check_tcgen05_layout can check them on
 * a machine without a GPU.  Every constant here is read from the PTX ISA
 * (9.7.16, "TensorCore 5th Generation Family Instructions"): the section it
 * comes from is named beside it.  None of it has run on a Blackwell GPU:
 * kernels/README.md, "tcgen05", says what a first run has to confirm. */
#ifndef FPREF_KERNELS_TCGEN05_LAYOUT_H
#define FPREF_KERNELS_TCGEN05_LAYOUT_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define FK_TC5_HD __host__ __device__
#else
#define FK_TC5_HD
#endif

/* One tile per launch: M = N = 128 (cta_group::1, "Layout D": row i of D in
 * TMEM lane i, column j in TMEM column j), line L of the tile in row L of A
 * and column L of B, so that D's diagonal holds the tile's dot products. */
#define FK_TC5_ROWS 128u
#define FK_TC5_KBYTES 32u      /* K bytes per row per instruction, every kind */
#define FK_TC5_TILE_BYTES (FK_TC5_ROWS * FK_TC5_KBYTES)
#define FK_TC5_LBO 128u        /* bytes between core matrices adjacent in K */
#define FK_TC5_SBO 256u        /* bytes between core matrices adjacent in M/N */
#define FK_TC5_TMEM_COLS 256u  /* allocated: D in 0..127, the scales above */
#define FK_TC5_SFA_COL 128u    /* scale factors of A: columns 128..135 */
#define FK_TC5_SFB_COL 160u    /* scale factors of B: columns 160..167 */
#define FK_TC5_SF_COLS 8u

enum fk_tc5_kind { FK_TC5_F16, FK_TC5_TF32, FK_TC5_F8F6F4, FK_TC5_MXF8F6F4, FK_TC5_MXF4NVF4, FK_TC5_MXF4 };

/* How one row's K elements fill its 32 bytes in shared memory. */
enum fk_tc5_packing {
	FK_TC5_PACK_B32, /* tf32: 8 elements of 4 bytes */
	FK_TC5_PACK_B16, /* f16, bf16: 16 of 2 bytes */
	FK_TC5_PACK_B8,  /* e4m3, e5m2: 32 of 1 byte */
	/* f8f6f4 and mxf8f6f4, FP6 and FP4 ("Packing format used for matrix A
	 * and B by .kind::mxf8f6f4 in Shared Memory"): 16 elements packed
	 * contiguously, then padded to 16 bytes.  Read here as a little-endian
	 * bit stream (element i at bits 6i / 4i of the 16-byte chunk), the pad
	 * after the data: inferred from the text, the figures not read. */
	FK_TC5_PACK_B6X16_P32,
	FK_TC5_PACK_B4X16_P64,
	/* mxf4 and mxf4nvf4: two E2M1 per byte, no padding, element 2j in the
	 * low nibble of byte j (inferred, as above). */
	FK_TC5_PACK_B4
};

struct fk_tc5_variant {
	const char *name;        /* for messages */
	enum fk_tc5_kind kind;
	unsigned type;           /* the instruction descriptor's atype = btype code */
	unsigned k;              /* K of one instruction, in elements */
	enum fk_tc5_packing packing;
	int f16_out;             /* D (and C) in FP16, else FP32 */
	unsigned scale;          /* 0: no scales; 1: UE8M0; 2: UE4M3 */
	unsigned vec;            /* scale_vec::1X, 2X, 4X: scales per row per instruction */
};

/* The variants, indexed by fpref-cuda's table (its `arg`). */
enum fk_tc5_id {
	FK_TC5_F16_F32, FK_TC5_F16_F16, FK_TC5_BF16_F32, FK_TC5_TF32_F32,
	FK_TC5_E4M3_F32, FK_TC5_E5M2_F32, FK_TC5_E4M3_F16, FK_TC5_E5M2_F16,
	FK_TC5_E3M2_F32, FK_TC5_E2M3_F32, FK_TC5_E2M1_F32,
	FK_TC5_MX_E4M3, FK_TC5_MX_E5M2, FK_TC5_MX_E3M2, FK_TC5_MX_E2M3, FK_TC5_MX_E2M1,
	FK_TC5_NVF4_4X_UE4M3, FK_TC5_MXF4NVF4_2X_UE8M0, FK_TC5_MXF4_2X_UE8M0,
	FK_TC5_VARIANTS
};

/* atype / btype codes ("Instruction descriptor"): kind::f16 F16 0, BF16 1;
 * kind::tf32 TF32 2; kind::f8f6f4 and mxf8f6f4 E4M3 0, E5M2 1, E2M3 3,
 * E3M2 4, E2M1 5; kind::mxf4 and mxf4nvf4 E2M1 1. */
static const struct fk_tc5_variant fk_tc5_variants[FK_TC5_VARIANTS] = {
	{ "kind::f16 f16 -> f32", FK_TC5_F16, 0, 16, FK_TC5_PACK_B16, 0, 0, 0 },
	{ "kind::f16 f16 -> f16", FK_TC5_F16, 0, 16, FK_TC5_PACK_B16, 1, 0, 0 },
	{ "kind::f16 bf16 -> f32", FK_TC5_F16, 1, 16, FK_TC5_PACK_B16, 0, 0, 0 },
	{ "kind::tf32 -> f32", FK_TC5_TF32, 2, 8, FK_TC5_PACK_B32, 0, 0, 0 },
	{ "kind::f8f6f4 e4m3 -> f32", FK_TC5_F8F6F4, 0, 32, FK_TC5_PACK_B8, 0, 0, 0 },
	{ "kind::f8f6f4 e5m2 -> f32", FK_TC5_F8F6F4, 1, 32, FK_TC5_PACK_B8, 0, 0, 0 },
	{ "kind::f8f6f4 e4m3 -> f16", FK_TC5_F8F6F4, 0, 32, FK_TC5_PACK_B8, 1, 0, 0 },
	{ "kind::f8f6f4 e5m2 -> f16", FK_TC5_F8F6F4, 1, 32, FK_TC5_PACK_B8, 1, 0, 0 },
	{ "kind::f8f6f4 e3m2 -> f32", FK_TC5_F8F6F4, 4, 32, FK_TC5_PACK_B6X16_P32, 0, 0, 0 },
	{ "kind::f8f6f4 e2m3 -> f32", FK_TC5_F8F6F4, 3, 32, FK_TC5_PACK_B6X16_P32, 0, 0, 0 },
	{ "kind::f8f6f4 e2m1 -> f32", FK_TC5_F8F6F4, 5, 32, FK_TC5_PACK_B4X16_P64, 0, 0, 0 },
	{ "kind::mxf8f6f4 e4m3, ue8m0 x1", FK_TC5_MXF8F6F4, 0, 32, FK_TC5_PACK_B8, 0, 1, 1 },
	{ "kind::mxf8f6f4 e5m2, ue8m0 x1", FK_TC5_MXF8F6F4, 1, 32, FK_TC5_PACK_B8, 0, 1, 1 },
	{ "kind::mxf8f6f4 e3m2, ue8m0 x1", FK_TC5_MXF8F6F4, 4, 32, FK_TC5_PACK_B6X16_P32, 0, 1, 1 },
	{ "kind::mxf8f6f4 e2m3, ue8m0 x1", FK_TC5_MXF8F6F4, 3, 32, FK_TC5_PACK_B6X16_P32, 0, 1, 1 },
	{ "kind::mxf8f6f4 e2m1, ue8m0 x1", FK_TC5_MXF8F6F4, 5, 32, FK_TC5_PACK_B4X16_P64, 0, 1, 1 },
	{ "kind::mxf4nvf4 e2m1, ue4m3 x4", FK_TC5_MXF4NVF4, 1, 64, FK_TC5_PACK_B4, 0, 2, 4 },
	{ "kind::mxf4nvf4 e2m1, ue8m0 x2", FK_TC5_MXF4NVF4, 1, 64, FK_TC5_PACK_B4, 0, 1, 2 },
	{ "kind::mxf4 e2m1, ue8m0 x2", FK_TC5_MXF4, 1, 64, FK_TC5_PACK_B4, 0, 1, 2 },
};

/* The 32-bit instruction descriptor ("Instruction descriptor", the tables
 * for kind::tf32/f16/f8f6f4, for kind::mxf8f6f4 and for kind::mxf4/mxf4nvf4),
 * dense, no negation, A and B K-major (transpose bits 0), scale IDs 0.
 *   all kinds: atype bits 7-9, btype from bit 10, N >> 3 in bits 17-22;
 *   unscaled: dtype in bits 4-5 (F16 0, F32 1), M >> 4 in bits 24-28;
 *   scaled: B's scale ID in bits 4-5, scale type in bit 23 (UE8M0 1, UE4M3
 *   0), M >> 7 in bits 27-28, A's scale ID in bits 29-30; mxf4 kinds: btype
 *   two bits (10-11), bit 31 K = 64 (0) or 96 (1). */
static inline FK_TC5_HD uint32_t fk_tc5_idesc(const struct fk_tc5_variant *v, unsigned M, unsigned N)
{
	uint32_t d = (uint32_t)v->type << 7 | (uint32_t)v->type << 10 | (uint32_t)(N >> 3) << 17;
	if (v->scale == 0)
		return d | (uint32_t)(v->f16_out ? 0u : 1u) << 4 | (uint32_t)(M >> 4) << 24;
	return d | (uint32_t)(v->scale == 1 ? 1u : 0u) << 23 | (uint32_t)(M >> 7) << 27;
}

/* matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4 ("Shared memory descriptor"). */
static inline FK_TC5_HD uint64_t fk_tc5_desc_encode(uint32_t x)
{
	return (uint64_t)((x & 0x3FFFFu) >> 4);
}

/* The 64-bit shared memory descriptor: start address bits 0-13, leading
 * byte offset 16-29, stride byte offset 32-45, the fixed 0b001 in bits
 * 46-48 (tcgen05's descriptor has it where wgmma's has none), base offset
 * 49-51 = 0, relative leading offsets (bit 52 = 0), no swizzle (bits 61-63
 * = 0). */
static inline FK_TC5_HD uint64_t fk_tc5_smem_desc(uint32_t smem_addr, uint32_t lbo, uint32_t sbo)
{
	return fk_tc5_desc_encode(smem_addr) | fk_tc5_desc_encode(lbo) << 16 | fk_tc5_desc_encode(sbo) << 32 |
	       (uint64_t)1 << 46;
}

/* Where byte kbyte (0..31) of tile row row (0..127) goes: the canonical
 * K-major no-swizzle layout ("Shared Memory Layout and Swizzling",
 * ((8,m),(T,2k)):((1T,SBO),(1,LBO))), core matrices of 8 rows x 16 bytes
 * stored as 128 contiguous bytes, the two of a row group side by side (LBO)
 * and the row groups one after another (SBO): the layout kernels/wgmma.cu
 * uses, which an H200 run confirmed for wgmma (kernels/HOPPER.md). */
static inline FK_TC5_HD unsigned fk_tc5_offset(unsigned row, unsigned kbyte)
{
	return (row / 8u) * FK_TC5_SBO + (kbyte / 16u) * FK_TC5_LBO + (row % 8u) * 16u + kbyte % 16u;
}

/* One row's K elements (bit patterns, low bits) as the 32 bytes the unit
 * reads, in K order. */
static inline void fk_tc5_pack_row(const struct fk_tc5_variant *v, const uint64_t *e, uint8_t out[FK_TC5_KBYTES])
{
	memset(out, 0, FK_TC5_KBYTES);
	for (unsigned i = 0; i < v->k; i++) {
		unsigned chunk = i / 16u, j = i % 16u, bit;
		uint32_t x = (uint32_t)e[i];
		switch (v->packing) {
		case FK_TC5_PACK_B32:
			for (unsigned b = 0; b < 4; b++)
				out[4 * i + b] = (uint8_t)(x >> (8 * b));
			break;
		case FK_TC5_PACK_B16:
			out[2 * i] = (uint8_t)x;
			out[2 * i + 1] = (uint8_t)(x >> 8);
			break;
		case FK_TC5_PACK_B8:
			out[i] = (uint8_t)x;
			break;
		case FK_TC5_PACK_B6X16_P32:
			bit = 6u * j;
			out[16 * chunk + bit / 8] |= (uint8_t)((x & 0x3Fu) << (bit % 8));
			if (bit % 8 > 2)
				out[16 * chunk + bit / 8 + 1] |= (uint8_t)((x & 0x3Fu) >> (8 - bit % 8));
			break;
		case FK_TC5_PACK_B4X16_P64:
			out[16 * chunk + j / 2] |= (uint8_t)((x & 0xFu) << (4 * (j % 2)));
			break;
		case FK_TC5_PACK_B4:
			out[i / 2] |= (uint8_t)((x & 0xFu) << (4 * (i % 2)));
			break;
		}
	}
}

/* The scale byte that means 1: UE8M0 2^0 = 0x7F, UE4M3 1.0 = 0x38 (E4M3's
 * bias 7, sign bit unused).  The golden dot files have no scale columns,
 * so every scale is 1 and every byte of the scale columns is written with
 * it: whichever lane, column and byte the unit reads (the scale-factor
 * layouts of "Block Scaling for tcgen05.mma" are figures, not read here),
 * it reads 1. */
static inline FK_TC5_HD uint32_t fk_tc5_unit_scale_word(const struct fk_tc5_variant *v)
{
	uint32_t b = v->scale == 2 ? 0x38u : 0x7Fu;
	return b * 0x01010101u;
}

#endif
