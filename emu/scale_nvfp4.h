/* NVFP4 in the emulator: what the element path (scale_nvfp4.c), the bulk
 * path (scale_nvfp4_bulk.c), Four Over Six in bulk (scale_nvfp4_46.c) and
 * the transform in bulk (scale_nvfp4_rht.c) share: the recipe rows, the
 * recipe's state, and the steps each takes from another.  Each is
 * described where it is defined. */
#ifndef FPREF_EMU_SCALE_NVFP4_H
#define FPREF_EMU_SCALE_NVFP4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_emu.h"
#include "fpref_emu_scale_mx.h"
#include "quant_lanes.h"
#include "scale_f32.h"

#define F32_2688 0x45280000u /* 448 * 6: E4M3's max times E2M1's */
#define F32_SIX 0x40C00000u
#define F32_448 0x43E00000u
#define F32_1_5 0x3FC00000u
#define F32_QUARTER 0x3E800000u
#define F32_E4M3_TINY 0x3C800000u /* 2^-6: torch.finfo(float8_e4m3fn).tiny, torchao's floor */
#define MAX_BLOCK (FPREF_NVFP4_BLOCK * FPREF_NVFP4_BLOCK)

/* The tensor scale T each recipe keeps. */
enum tensor_form {
	TS_ENCODE, /* S = min(2688 / amax, FLT_MAX), 1 for amax 0 (TE) */
	TS_DECODE, /* D = amax / 2688 */
	TS_AMAX,   /* amax itself (Four Over Six) */
	TS_ONE     /* none: D = 1 (torchao's single level) */
};

/* The FP32 value that is rounded to the block's E4M3 scale, from the block's amax m. */
enum block_form {
	BS_MUL_S_RCP6, /* m * (S * (1/6)) */
	BS_DIV6_DIV_D, /* (m / 6) / D */
	BS_DIV_6D,     /* m / (6 * D) */
	BS_BOUND_DIV_A /* (m * M) / amax, times 1.5 for the candidate that scales to 4 */
};

/* What an element x of the block becomes before it is rounded to E2M1. */
enum element_form {
	EL_MUL_RCP,   /* x * min(1 / (s_b * (1/S)), FLT_MAX) */
	EL_DIV_TOTAL, /* x / (D * s_b) */
	EL_MUL_RCP_D_DIV_S, /* x * ((1 / D) / s_b) (torchao 0.18) */
	EL_DIV_46     /* ((x * 6) * M) / (amax * s_b), or 0 where s_b is 0 */
};

struct recipe_row {
	enum fpref_nvfp4_recipe id;
	const char *name;
	bool amax_nan_propagates; /* torch.amax / torch.max: a NaN wins; TE's fmaxf passes over it */
	enum tensor_form tensor;
	enum block_form block;
	bool zero_scale_is_one;   /* a block scale of 0 becomes 1 before the cast (ModelOpt), then: */
	uint32_t scale_floor;     /* the FP32 block scale clamped to [floor, 448] before the cast; 0: no clamp */
	bool scale_saturates;     /* E4M3 cast satfinite (TE's cvt); else torch's .to(): NaN above 464 */
	enum element_form element;
	bool minus_zero_to_plus; /* the E2M1 sign is (x < 0), so -0 is written as +0, and code 8 reads as +0 (ModelOpt) */
	bool has_two_d, has_sr, has_rht;
	/* The FP32 steps as x86 computes them: an invalid operation (inf / inf,
	 * 0 / 0) gives the default NaN 0xFFC00000, negative, and a NaN operand
	 * passes on its own NaN (the first one), so a negative NaN gives the
	 * block scale E4M3 0xFF. */
	bool x86_default_nan;
	/* The tensor's amax where it holds a NaN: torch.max's NaN on the CPU,
	 * 0xFFFFFFFF (torchao), or the default NaN 0x7FC00000 that
	 * torch.maximum of ModelOpt's two 0-d results |max| and |min| gives; 0:
	 * the quiet NaN. */
	uint32_t tensor_amax_nan;
	/* ModelOpt's block amaxes come from torch.maximum(|max|, |min|) over the
	 * tensor's blocks in row-major order: its vectorised loop (16 FP32
	 * lanes on AVX-512) gives a NaN block 0xFFFFFFFF, its scalar tail (the
	 * last n mod 16 of n blocks) the default NaN; 0: no lanes. */
	unsigned block_nan_lanes;
};

struct nvfp4 {
	struct f32_arith a;
	const struct recipe_row *row;
	struct fpref_format e4m3, e2m1, bf16;
	struct fpref_env scale_env; /* rne, satfinite or IEEE overflow */
	struct fpref_env element;   /* rne or the seeded stream, satfinite */
	uint32_t bound;             /* Four Over Six's M, in FP32 */
	uint32_t T;                 /* the tensor scale */
	uint32_t block_encode;      /* TE: S * (1/6) */
	uint32_t tensor_decode;     /* TE: 1/S */
	bool torch_bf16;            /* fpref_nvfp4_params' */
};

/* The bulk path's state (scale_nvfp4_bulk.c). */
struct nvfp4_bulk {
	uint32_t *amax, factor[256]; /* amax: a band's blocks, then their FP32 scales */
	bool divide;
	struct quant_sink *sink;
	struct fpref_emu_converter *scales;
	size_t origin; /* the tensor's index of x[0]: 0, or a band's first where x holds that band alone */
	size_t ahead;  /* how many of x's elements follow the band being quantised */
};

/* Four Over Six's buffers in bulk (scale_nvfp4_46.c). */
struct four_six {
	uint32_t *hp, *y, *raw, value[16], scale[256], six_m; /* value: E2M1's codes; scale: E4M3's */
	uint8_t *sc, *c;
	size_t *idx;
	/* rows of whole blocks of 16, and bands of 16 whole rows of 16x16
	 * blocks (band_46_rows): each chain's error; NULL otherwise */
	float *err;
	/* other bands: their values gathered block after block, and each
	 * block's member count */
	uint32_t *xg;
	size_t *members;
	/* fpref_emu_nvfp4_dequant_46 of each E4M3 code c's scale and E2M1 code
	 * k at deq[16 c + k] (fpref_emu_nvfp4_four_six_tables) */
	float *deq;
	/* the errors at eight lanes (fpref_emu_nvfp4_group_46_eight), not sixteen: a
	 * CPU without AVX-512 (quant_sixteen_lanes) */
	bool eight_lanes;
};

typedef float f32x16 __attribute__((vector_size(64)));
typedef uint32_t u32x16 __attribute__((vector_size(64)));

/* A band's layout for group_46: nb blocks of `rows` rows of 16 (1: rows
 * of whole blocks; 16: 16x16 blocks), block g's row r at x + r stride + 16
 * g, its codes to codes + r stride + 16 g; each row r of the band's chains
 * (2 g for 6's, 2 g + 1 for 4's) side by side in the converter's output, 16
 * codes each, from c + 16 (2 nb r + chain). */
struct band_46 {
	const uint32_t *x;
	const uint8_t *c;
	uint8_t *codes;
	size_t nb, rows, stride;
};

/* Errors of chains 2i (6's) and 2i + 1 (4's) of eight blocks from block g0
 * of the band w (chains past `chains` zero), each block's candidate of the
 * smaller picked (scale_nvfp4_46.c); at sixteen lanes and at eight, the same
 * results. */
unsigned fpref_emu_nvfp4_group_46(const struct four_six *f, enum fpref_nvfp4_choice choice, const struct band_46 *w,
				  size_t g0, size_t chains, const uint8_t *sc, const uint32_t *raw, uint8_t *sb,
				  float *err);
unsigned fpref_emu_nvfp4_group_46_eight(const struct four_six *f, enum fpref_nvfp4_choice choice,
					const struct band_46 *w, size_t g0, size_t chains, const uint8_t *sc,
					const uint32_t *raw, uint8_t *sb, float *err);

/* From the element path (scale_nvfp4.c). */
int fpref_emu_nvfp4_init(struct nvfp4 *q, const struct fpref_nvfp4_params *p, size_t rows, size_t cols, char *err,
		      size_t errlen);
size_t fpref_emu_nvfp4_block_of(const struct fpref_nvfp4_params *p, size_t cols, size_t r, size_t c);
size_t fpref_emu_nvfp4_block_members(const struct fpref_nvfp4_params *p, size_t rows, size_t cols, size_t b,
				     size_t *idx);
void fpref_emu_nvfp4_hadamard(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, bool inverse,
			      const uint32_t *x, size_t n, uint32_t *out);
uint32_t fpref_emu_nvfp4_tensor_scale(const struct nvfp4 *q, uint32_t amax);
uint32_t fpref_emu_nvfp4_e4m3_value(const struct nvfp4 *q, uint8_t code);
uint32_t fpref_emu_nvfp4_block_scale_value(const struct nvfp4 *q, uint32_t m, bool four);
uint32_t fpref_emu_nvfp4_element_factor(const struct nvfp4 *q, uint8_t sb, bool *divide);
uint32_t fpref_emu_nvfp4_dequant_46(const struct nvfp4 *q, uint8_t code, uint32_t s);
void fpref_emu_nvfp4_block_codes(const struct nvfp4 *q, const uint32_t *x, size_t origin, const size_t *idx, size_t m,
			uint8_t sb, uint8_t *codes);
void fpref_emu_nvfp4_block_46(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, const uint32_t *x,
			      const size_t *idx, size_t m, uint32_t m_b, uint8_t *scale, uint8_t *codes);
void fpref_emu_nvfp4_band_maxima(const struct fpref_nvfp4_params *p, const uint32_t *x, size_t rows,
				     size_t cols, uint32_t *amax);
uint32_t fpref_emu_nvfp4_nan_block_amax(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, const uint32_t *x,
			       size_t origin, size_t rows, size_t cols, size_t b);
/* From Four Over Six in bulk (scale_nvfp4_46.c). */
void fpref_emu_nvfp4_four_six_free(struct four_six *f);
void fpref_emu_nvfp4_four_six_tables(const struct nvfp4 *q, struct four_six *f);
void fpref_emu_nvfp4_band_46(struct nvfp4 *q, const struct fpref_nvfp4_params *p, struct nvfp4_bulk *b,
			     struct four_six *f, const uint32_t *x, size_t rows, size_t cols, size_t r0, size_t r1,
			     uint8_t *codes, uint8_t *scales);
/* From the transform in bulk (scale_nvfp4_rht.c). */
/* (eight: at eight lanes, for a CPU without AVX-512; the same results) */
bool fpref_emu_nvfp4_hadamard_host(unsigned signs, bool inverse, const uint32_t *x, size_t n, uint32_t *out,
				   size_t ahead, bool eight);
uint32_t fpref_emu_nvfp4_hadamard_host_max(unsigned signs, const uint32_t *x, size_t n, bool eight);
void fpref_emu_nvfp4_hadamard_bulk(const struct nvfp4 *q, const struct fpref_nvfp4_params *p, bool inverse,
			  const struct fpref_emu_converter *to_bf16, const uint32_t *x, size_t n, uint32_t *out,
			  size_t ahead);

#endif
