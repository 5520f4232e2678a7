/* fpref — tensor-core block-FMA models as data (Khattak and Mikaitis,
 * "Accurate Models of NVIDIA Tensor Cores", arXiv:2512.07004; Fasi, Higham,
 * Mikaitis and Pranesh, PeerJ Comput. Sci. 7:e330).  One block takes n
 * exact products and the incoming accumulator, aligns every term to the
 * largest exponent (not below a floor), truncates each term's magnitude to
 * F fraction bits below it, sums exactly and rounds once; longer dot
 * products chain blocks in K order.  Both engines read these rows: the
 * emulator runs the model, the oracle bounds its error. */
#ifndef FPREF_TC_MODEL_H
#define FPREF_TC_MODEL_H

#include <stddef.h>

#include "fpref_formats.h"
#include "fpref_formats_env.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FPREF_TC_NO_FLOOR (-100000)
#define FPREF_TC_MAX_BLOCK 64
#define FPREF_TC_MAX_FRAC 36

struct fpref_tc_model {
	const char *gpu;       /* v100, a100, h100, h100-mma, h100-wgmma, ada, or "generic" */
	const char *inputs;    /* the input formats it covers, comma-separated names ("" for any) */
	int block;             /* products per block, n */
	int frac;              /* F: fraction bits kept below the alignment exponent */
	int floor_fp32;        /* the alignment exponent's floor with FP32 output */
	int floor_fp16;        /* ... with FP16 output */
	enum fpref_rounding round_fp32; /* the block's one rounding, FP32 output */
	enum fpref_rounding round_fp16; /* ... FP16 output */
	const char *fp16_inputs;        /* the inputs with an FP16-output instruction (PTX mma: f16 and FP8, not bf16 or tf32) */
	/* The outputs in lowered_outputs go through the compiler's lowering
	 * instead (mma.sync FP8 on sm_90 becomes conversions to FP16 and two
	 * FP16 tensor-core instructions, HMMA.16816): per instruction of
	 * lowered_k products, the inputs converted to FP16 (exactly), then the
	 * same GPU's float16 row for this output (its n, F, floor and
	 * rounding) chained over its lane groups from a zero accumulator
	 * (group h of the instruction takes the k with
	 * (k / interleave) mod (lowered_k / n) = h, in order of h), then C
	 * added by one addition in the output format (rne).  lowered_k = 0:
	 * the native path above for every output. */
	int lowered_k;
	const char *lowered_outputs; /* "float16", "float16,float32" */
	int interleave;
	const char *source;
	/* A block whose result is zero gives +0, whatever the sign of the sum
	 * it rounds (an exact zero from -0 terms, or a negative sum that rounds
	 * or truncates to zero), where IEEE 754 would give -0: measured on an
	 * H200 (docs/accumulation.md); on V100, A100 and Ada as the independent
	 * model validated on them gives it (Xie et al., arXiv:2511.10909).
	 * false: IEEE's sign (custom models). */
	bool zero_positive;
	/* Block-scaled kinds (tcgen05.mma kind::mxf4nvf4 and kind::mxf4, as
	 * Xie et al. publish them, arXiv:2511.10909): group > 0 sums each group
	 * of `group` products exactly, multiplies the sum by the significands
	 * of its two scales and aligns it at the scales' exponents (every
	 * group counts for the alignment, a zero sum too, unless a scale is
	 * zero); the groups and C are then truncated to F fraction bits below
	 * the largest and summed as one block.  0: scales, where a dot has
	 * them, only move each product's exponent (E8M0 scales). */
	int group;
	/* AMD's two-stage dot-add (CDNA3 v_mfma_*, the same paper): sum_frac > 0
	 * takes the block's products without C (aligned at their largest
	 * exponent, truncated to F bits), in `halves` interleaved parts (k mod
	 * halves; 0 or 1: one part) whose sums are floored to F bits below the
	 * larger; then the sum and C are aligned at the larger of their
	 * exponents, the sum floored (toward -inf) to sum_frac fraction bits,
	 * C to c_frac, or dropped when c_drop > 0 and its exponent is below
	 * that exponent minus c_drop; the two are added exactly and rounded
	 * once (round_fp32). */
	int halves, sum_frac, c_frac, c_drop;
	/* AMD CDNA2 v_mfma_* f16 and bf16 (the same paper; CDNA1 with fused
	 * below): tree > 0 is no block model but FP32 arithmetic, nearest
	 * even: per group of
	 * `block` products, each product rounded to FP32 (fma(a, b, 0)), the
	 * group summed as a balanced pairwise tree (the first half's sum plus
	 * the rest's), then added to C.  flush (CDNA2): subnormal or zero
	 * inputs and C read as +0, every subnormal result flushed to a zero of
	 * its sign. */
	int tree;
	bool flush;
	/* A and B may be any two of `inputs` (E5M2 x E4M3 in FP8 training's
	 * backward GEMMs): the instruction names each operand's type apart
	 * (PTX mma.sync / wgmma .e4m3.e5m2, tcgen05 kind::f8f6f4, CDNA3
	 * fp8_bf8, CDNA4 f8f6f4).  false: both operands of one format. */
	bool mixed;
	/* A NaN result is the all-ones pattern (7FFFFFFF, 7FFF), whatever the
	 * NaN or the infinities that made it, as NVIDIA's units and arithmetic
	 * give it (the independent model validated on Volta to Blackwell, Xie
	 * et al., arXiv:2511.10909).  false: the output format's default NaN
	 * (7FC00000, 7E00; no one documents MFMA NaN bits). */
	bool nan_ones;
	/* A subnormal C is aligned at its format's least normal exponent
	 * (FP16's 2^-14), as a subnormal input is, not at its own binade:
	 * what the independent model validated on Ada and Hopper does (issue
	 * 37, class A3; FP32's least normal is where every row reads C from
	 * anyway).  false: C normalised down to FP32's least normal. */
	bool c_least_normal;
	/* A product of magnitude 2^128 or more is an infinity of its sign
	 * before the block sums (so +inf - inf is NaN, and no C cancels it),
	 * as the multipliers of AMD's CDNA3 bf16 and xf32 instructions give it
	 * (the independent model validated on CDNA3 hardware, issue 37, class
	 * O1).  The products of two operands, before any block scale.  false:
	 * products are exact whatever their size, and only the result
	 * overflows. */
	bool product_inf;
	/* A zero C enters the alignment at the place a C is read from (FP32's
	 * least normal, 2^-126; with c_least_normal, its own format's), so
	 * the block aligns at max(floor, largest product, that place) and
	 * nothing aligns below it: what the independent model does (Xie et
	 * al., arXiv:2511.10909; issue 37, class A1).  No hardware measurement
	 * decides it: every preset leaves it false (a zero C is no term).
	 * The block model only (not the two-stage or FP32 paths). */
	bool zero_c_aligns;
	/* A product with a zero factor enters the alignment: the zero factor
	 * takes exponent -126 (FP32's least normal, whatever its own format),
	 * the other its own, so 0 * 2^127 aligns the block at 2^1 and can
	 * truncate C: what the independent model does (issue 37, class A2).
	 * Undecided pending hardware: every preset leaves it false (a zero
	 * product never sets the alignment).  The block model only. */
	bool zero_operand_aligns;
	/* With tree > 0: each group's products and the accumulator are
	 * summed exactly and rounded once to FP32 (nearest even), instead of
	 * the FP32 operations above; an exact zero takes IEEE's sign (-0 only
	 * from -0 terms), a NaN or inf * 0 or +inf - inf among them gives
	 * the default NaN, an inf otherwise that inf.  AMD CDNA1 v_mfma_*
	 * f16 and bf16 as the independent model has it from its version 2.0.0
	 * on (MMA_E_FDPA, arXiv:2511.10909's code, with a CDNA1 hardware
	 * equivalence test); its earlier versions, where the tree comes from,
	 * took CDNA1 as CDNA2 without the flush.  Not with flush. */
	bool fused;
};

/* The block scales of a dot product: one pair per `every` products along
 * K, patterns of `format`: float8_e8m0fnu, or float8_e4m3fn read as UE4M3
 * (its sign ignored).  A NULL pointer to this struct: unit scales. */
struct fpref_tc_scales {
	const struct fpref_format *format;
	const uint64_t *a, *b;
	size_t every;
};
/* The block scales of a GEMM D = A B + C (M x N x K): a row-major
 * M x ceil(K / every), one per `every` products of each row of A, and b
 * row-major ceil(K / every) x N, one per `every` products of each column
 * of B; element (i, j) takes row i of a and column j of b as its dot
 * product's fpref_tc_scales. */
struct fpref_tc_gemm_scales {
	const struct fpref_format *format;
	const uint64_t *a, *b;
	size_t every;
};
/* Whether the scales suit the model: every a positive multiple of the
 * model's group (of its block when the model has no group, which takes
 * E8M0 scales only, the two-stage path too), the format E8M0 or E4M3;
 * never the FP32 path (tree). */
bool fpref_tc_scales_ok(const struct fpref_tc_model *m, const struct fpref_tc_scales *s);

size_t fpref_tc_model_count(void);
/* The preset a chip's name stands for (b200 -> tcgen05, mi300x ->
 * mfma-cdna3, h200 -> h100, ...; docs/tensor-cores.md's chip table), or another spelling of a
 * preset (tcgen05-mxf4), in any case; or the name itself when it is
 * neither.  fpref_tc_model_find resolves these names itself, and takes
 * preset names in any case too. */
const char *fpref_tc_model_alias(const char *name);
/* The chip aliases, one by one (NULL past the end): name, and the preset
 * it stands for. */
const char *fpref_tc_model_alias_at(size_t i, const char **target);
const struct fpref_tc_model *fpref_tc_model_at(size_t i);
/* The model of a GPU for an input format, or NULL. */
const struct fpref_tc_model *fpref_tc_model_find(const char *gpu, const struct fpref_format *input);
/* The model of a GPU for A of format a and B of format b: the row of a when
 * it takes the pair (b = a, or a mixed row listing both), or NULL. */
const struct fpref_tc_model *fpref_tc_model_find_pair(const char *gpu, const struct fpref_format *a,
						      const struct fpref_format *b);
/* Whether the model's instruction takes A of format a and B of format b:
 * one of its inputs twice, or, on a mixed row, any two of them (a custom
 * model, whose inputs are "", any pair the models can take). */
bool fpref_tc_pair_ok(const struct fpref_tc_model *m, const struct fpref_format *a, const struct fpref_format *b);
/* The (A, B) pairs a model's instruction takes, in words for a message
 * ("float8_e4m3fn x float8_e5m2, ..."; "any pair" for a custom model). */
void fpref_tc_model_pairs(const struct fpref_tc_model *m, char *buf, size_t len);
/* Whether the model has an instruction for this input and output (float32
 * always; float16 for the inputs in fp16_inputs). */
bool fpref_tc_output_ok(const struct fpref_tc_model *m, const struct fpref_format *input,
			const struct fpref_format *output);
/* Whether the models can take inputs of this format (products must be exact
 * at 23 fraction bits: at most 11 significand bits). */
bool fpref_tc_input_ok(const struct fpref_format *input);

/* A kernel built from one instruction shape of the model's ISA
 * ("m16n8k8", "m64n128k16", "32x32x4"; any case): m's block becomes the
 * shape's K where K is the smaller (the kernel chains blocks of K), and
 * stays where the instruction's K is a multiple of it.  -1 with a message
 * for a shape the ISA does not have for m's inputs, a model with no
 * shapes to choose (custom, FP32-path and scalar rows), or a lowered
 * output. */
int fpref_tc_model_shape(struct fpref_tc_model *m, const struct fpref_format *output, const char *shape, char *err,
			 size_t errlen);
/* Whether an output takes the lowered path of a model (lowered_k > 0 and
 * the output in lowered_outputs). */
bool fpref_tc_lowered(const struct fpref_tc_model *m, const struct fpref_format *output);
/* The block model that one lowered instruction runs: the same GPU's row
 * for float16 inputs, or NULL when the table has none. */
const struct fpref_tc_model *fpref_tc_model_lowered_blocks(const struct fpref_tc_model *m);

/* d, or the row's NaN (nan_ones) where d is a NaN of output: what each
 * engine's tensor-core entries return. */
uint64_t fpref_tc_model_nan(const struct fpref_tc_model *m, const struct fpref_format *output, uint64_t d);

/* The alignment floor of a block with this output (float16: floor_fp16,
 * else floor_fp32), raised to the place a zero C takes where the row says
 * zero_c_aligns (a nonzero C is never read below that place, so a zero
 * C's term is the same as that floor). */
int fpref_tc_model_floor(const struct fpref_tc_model *m, const struct fpref_format *output);
/* The least place a C of this output is read at: FP32's least normal
 * exponent (-126), or the output's own with c_least_normal. */
int fpref_tc_model_c_least(const struct fpref_tc_model *m, const struct fpref_format *output);
/* Whether the row's conventions suit its path: zero_c_aligns and
 * zero_operand_aligns are the block model's (not the two-stage or FP32
 * tree paths; zero_operand_aligns not the group path either); fused is
 * the tree path's, without flush.  Both engines refuse a row where this
 * is false. */
bool fpref_tc_model_conventions_ok(const struct fpref_tc_model *m);
/* The environment of a block's one rounding, which each engine's rounding
 * core applies: the row's rounding for this output, overflow to inf
 * whatever the rounding (the units give inf even when rounding toward
 * zero), and zero results +0 where the row says zero_positive. */
void fpref_tc_model_env(const struct fpref_tc_model *m, const struct fpref_format *output, struct fpref_env *env);

/* The model as a line of text, for an output format ("float32" or
 * "float16"), saying which path it takes. */
void fpref_tc_model_describe(const struct fpref_tc_model *m, const char *output, char *buf, size_t len);

/* A model from parameters: block 1..FPREF_TC_MAX_BLOCK, frac
 * 1..FPREF_TC_MAX_FRAC, floor (FPREF_TC_NO_FLOOR for none) for both
 * outputs, rounding rtz or rne.  0, or -1 with a message in err. */
int fpref_tc_model_custom(int block, int frac, int floor, enum fpref_rounding rounding, struct fpref_tc_model *m,
			  char *err, size_t errlen);

/* A custom model's conventions, a comma-separated list of zero-positive
 * (every zero result +0), nan-ones (NaN = all ones), c-least-normal (a
 * subnormal C aligned at its format's least normal), product-inf
 * (products of 2^128 or more are infinities), zero-c-aligns (a zero C
 * enters the alignment) and zero-operand-aligns (a product with a zero
 * factor does, the zero at 2^-126): the row fields of those names set
 * true.  0, or -1 with a message naming the unknown word.
 * fpref_tc_model_describe writes them after "; traits " for a generic
 * model, and fpref_tc_model_from_description reads them back. */
int fpref_tc_model_traits(struct fpref_tc_model *m, const char *list, char *err, size_t errlen);
const char *fpref_tc_model_trait_choices(void);

/* A generic model read back from its description (the line
 * fpref_tc_model_describe writes for it, as golden files carry it).  0, or
 * -1 when the text is not such a line. */
int fpref_tc_model_from_description(const char *text, struct fpref_tc_model *m);

/* Plain accumulation orders (emu/accumulate.c runs them), for comparison. */
enum fpref_sum_order {
	FPREF_SUM_RECURSIVE, /* s = c; s = s + a_k*b_k in K order */
	FPREF_SUM_PAIRWISE,  /* the products summed as a balanced tree, then added to c */
	FPREF_SUM_BLOCKED,   /* blocks of `block` products summed, each block sum added to s */
	FPREF_SUM_FMA_CHAIN, /* s = fma(a_k, b_k, s): one rounding per step */
	FPREF_SUM_KAHAN      /* compensated (Kahan) summation of the rounded products */
};
const char *fpref_sum_order_name(enum fpref_sum_order o);
int fpref_sum_order_parse(const char *s, enum fpref_sum_order *o);

/* An accumulation model of a dot product as fpref dot, gemm and
 * verify-gemm take it: a tensor-core block model (promoted to an FP32
 * accumulator every `promote` products when promote > 0), a plain order
 * rounded in the output format (blocks of `block` for FPREF_SUM_BLOCKED),
 * or one correct rounding of the exact value. */
enum fpref_accum_kind { FPREF_ACCUM_TC, FPREF_ACCUM_PLAIN, FPREF_ACCUM_EXACT };
struct fpref_tc_fma_row;
struct fpref_accum_model {
	enum fpref_accum_kind kind;
	struct fpref_tc_model tc;
	enum fpref_sum_order order;
	size_t block, promote;
	/* cuBLASLt's split-K (> 0): K in slices of splitk products, each
	 * slice through the tensor-core model from zero (FP32 output), the
	 * slices' sums added in K order by FP32 additions (rne) from zero, then
	 * C added by one FP32 addition (the reduction's epilogue). */
	size_t splitk;
	/* The preset's FMA-chain row a plain FPREF_SUM_FMA_CHAIN stands for
	 * (fpref_tc_fma_model sets it), so that a report names the preset;
	 * NULL for every other model. */
	const struct fpref_tc_fma_row *fma;
};

/* Instructions that are FMA chains, not block models: NVIDIA's FP64 mma
 * (DMMA) and AMD's FP32 and FP64 v_mfma_* compute d = fma(a_k, b_k, d) in
 * K order from C, each step rounded (to nearest even) in the inputs'
 * format, which is C's and D's: the plain order FPREF_SUM_FMA_CHAIN with
 * --out the input format.  A row: the preset's name (a chip's resolves as
 * for the block rows), the one input it takes, its instruction shapes
 * (any of them: every K chains the same FMAs) and what it rests on. */
struct fpref_tc_fma_row {
	const char *gpu, *input, *shapes, *source;
};
const struct fpref_tc_fma_row *fpref_tc_fma_at(size_t i);
/* Whether promotion to an FP32 accumulator every N products (DeepSeek-V3's)
 * is modelled on a row: not on CDNA1/2's FP32-arithmetic rows (tree), where
 * false comes with the reason for a refusal (pair: the inputs, as a
 * message names them). */
bool fpref_tc_promote_ok(const struct fpref_tc_model *m, const char *pair, char *err, size_t errlen);
/* The model line of an FMA-chain row (gpu, fpref gemm, verify-gemm and the
 * Python package print it): the preset, its input and the order. */
const char *fpref_tc_fma_describe(const struct fpref_tc_fma_row *r, char *buf, size_t len);
/* The FMA-chain row of a preset (or a chip's name) for an input, or NULL. */
const struct fpref_tc_fma_row *fpref_tc_fma_find(const char *gpu, const struct fpref_format *input);
/* The accumulation model of an FMA-chain row for A, B and the output, and
 * an instruction shape (NULL: none): the plain FMA chain.  0, or -1 with a
 * message (A or B not the row's input, an output other than it, a shape
 * its ISA lacks). */
int fpref_tc_fma_model(const struct fpref_tc_fma_row *r, const struct fpref_format *a, const struct fpref_format *b,
		       const struct fpref_format *output, const char *shape, struct fpref_accum_model *m, char *err,
		       size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
