/* The training lab (fpref_golden_lab.h): linear regression trained with
 * Adam under each recipe, every operation through the emulator.  The data
 * and the weights are built as bit patterns from the counter-based stream,
 * so no host floating point enters a result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_emu_lossscale.h"
#include "fpref_emu_scale.h"
#include "fpref_emu_tc.h"
#include "fpref_formats_policy.h"
#include "fpref_golden_lab.h"

enum { B = FPREF_LAB_BATCH, D = FPREF_LAB_IN, N = FPREF_LAB_OUT };

enum fp8_scaling { NOT_FP8, FP8_CURRENT, FP8_DELAYED, FP8_DEEPSEEK, FP8_UNCALIBRATED };

struct recipe {
	const char *name, *summary;
	enum fpref_format_id compute; /* what the matrix products take (FP32 for fp32) */
	bool master;                  /* an FP32 master copy of the weights */
	bool scaler;                  /* PyTorch's GradScaler with its defaults */
	bool fp16_accumulator;        /* the wrong cast order: the tensor core accumulates in FP16 */
	bool ftz;                     /* subnormal results of the casts flushed (the BF16 units) */
	enum fp8_scaling fp8;
	const char *gpu;              /* the tensor-core row of the products (NULL: FP32 FMA chain) */
	/* FP8: the format of the gradients (dY), E4M3 or E5M2 (Transformer
	 * Engine's HYBRID: the backward GEMM multiplies E5M2 by E4M3) */
	enum fpref_format_id grad;
};

static const struct recipe recipes[] = {
	{ "fp32", "FP32 everywhere, products by FP32 FMA chains: the baseline", FPREF_FORMAT_FLOAT32, true, false,
	  false, false, NOT_FP8, NULL, 0 },
	{ "bf16", "BF16 products (tpu-bf16 model: exact, FP32 accumulation), BF16 tensors with FTZ, FP32 master, "
		  "no loss scale", FPREF_FORMAT_BFLOAT16, true, false, false, true, NOT_FP8, "tpu-bf16", 0 },
	{ "fp16-noscale", "autocast FP16 (h100 tensor core, FP32 accumulation), FP32 master, no loss scale",
	  FPREF_FORMAT_FLOAT16, true, false, false, false, NOT_FP8, "h100", 0 },
	{ "fp16-gradscaler", "autocast FP16 with PyTorch's GradScaler (2^16, x0.5 on overflow, x2 after 2000)",
	  FPREF_FORMAT_FLOAT16, true, true, false, false, NOT_FP8, "h100", 0 },
	{ "fp16-no-master", "FP16 weights updated in place (GradScaler kept): no FP32 master copy",
	  FPREF_FORMAT_FLOAT16, false, true, false, false, NOT_FP8, "h100", 0 },
	{ "fp16-wrong-cast-order", "GradScaler, but every product accumulated in FP16 (the tensor core's FP16 "
				   "output) instead of FP32", FPREF_FORMAT_FLOAT16, true, true, true, false,
	  NOT_FP8, "h100", 0 },
	{ "fp8-tensor-delayed", "Transformer Engine's HYBRID (E4M3 X and W, E5M2 gradients) per tensor, delayed "
				"scaling (history 1024, max, margin 0)", FPREF_FORMAT_FLOAT8_E4M3FN, true, false, false,
	  false, FP8_DELAYED, "h100-wgmma", FPREF_FORMAT_FLOAT8_E5M2 },
	{ "fp8-tensor-current", "Transformer Engine's HYBRID (E4M3 X and W, E5M2 gradients) per tensor, current "
				"scaling", FPREF_FORMAT_FLOAT8_E4M3FN, true, false, false, false, FP8_CURRENT,
	  "h100-wgmma", FPREF_FORMAT_FLOAT8_E5M2 },
	{ "fp8-deepseek", "E4M3, DeepSeek-V3: 1x128 tiles (activations, gradients), 128x128 blocks (weights), "
			  "promotion to FP32 every 128", FPREF_FORMAT_FLOAT8_E4M3FN, true, false, false, false,
	  FP8_DEEPSEEK, "h100-wgmma", FPREF_FORMAT_FLOAT8_E4M3FN },
	{ "fp8-uncalibrated", "E4M3 with no scale: a plain cast (PyTorch's .to(float8_e4m3fn): beyond max is NaN)",
	  FPREF_FORMAT_FLOAT8_E4M3FN, true, false, false, false, FP8_UNCALIBRATED, "h100-wgmma",
	  FPREF_FORMAT_FLOAT8_E4M3FN },
};

const char *fpref_golden_lab_recipe_name(enum fpref_lab_recipe r)
{
	return r < FPREF_LAB_RECIPE_COUNT ? recipes[r].name : NULL;
}

const char *fpref_golden_lab_recipe_summary(enum fpref_lab_recipe r)
{
	return r < FPREF_LAB_RECIPE_COUNT ? recipes[r].summary : NULL;
}

int fpref_golden_lab_recipe_parse(const char *name, enum fpref_lab_recipe *r)
{
	for (int i = 0; i < FPREF_LAB_RECIPE_COUNT; i++)
		if (strcmp(name, recipes[i].name) == 0) {
			*r = (enum fpref_lab_recipe)i;
			return 0;
		}
	return -1;
}

/* ---- FP32 arithmetic, each operation rounded once (rne) ---- */

struct lab {
	const struct recipe *rc;
	const struct fpref_format *f32, *low;
	const struct fpref_format *grad; /* FP8: the gradients' format (E5M2 under HYBRID), else low */
	struct fpref_env env, cast; /* FP32 arithmetic; casts into the recipe's format */
	struct fpref_accum_model model; /* the forward GEMM's: low x low */
	struct fpref_accum_model back;  /* the backward GEMM's: grad x low (the row of that pair) */
	struct fpref_lab_result *r;
};

static uint32_t op2(const struct lab *L, enum fpref_op op, uint32_t a, uint32_t b)
{
	uint64_t in[3] = { a, b, 0 }, out = 0;
	unsigned flags = 0;
	fpref_emu_op(op, L->f32, in, &L->env, 0, &out, &flags);
	return (uint32_t)out;
}

static uint32_t add(const struct lab *L, uint32_t a, uint32_t b) { return op2(L, FPREF_OP_ADD, a, b); }
static uint32_t sub(const struct lab *L, uint32_t a, uint32_t b) { return op2(L, FPREF_OP_SUB, a, b); }
static uint32_t mul(const struct lab *L, uint32_t a, uint32_t b) { return op2(L, FPREF_OP_MUL, a, b); }
static uint32_t dvd(const struct lab *L, uint32_t a, uint32_t b) { return op2(L, FPREF_OP_DIV, a, b); }
static uint32_t root(const struct lab *L, uint32_t a) { return op2(L, FPREF_OP_SQRT, a, 0); }

static bool nonfinite32(uint32_t x)
{
	return (x & 0x7F800000u) == 0x7F800000u;
}

static bool zero32(uint32_t x)
{
	return (x & 0x7FFFFFFFu) == 0;
}

static uint64_t convert(const struct fpref_format *from, uint64_t x, const struct fpref_format *to,
			const struct fpref_env *env)
{
	uint64_t out = 0;
	unsigned flags = 0;
	fpref_emu_convert(from, x, to, env, 0, &out, &flags);
	return out;
}

/* FP32 values to the recipe's format (counted: nonfinite results and, for
 * gradients, the nonzero values that become zero). */
static void cast_low(struct lab *L, const uint32_t *x, uint64_t *out, size_t n, bool gradient)
{
	for (size_t i = 0; i < n; i++) {
		out[i] = convert(L->f32, x[i], L->low, &L->cast);
		uint32_t back = (uint32_t)convert(L->low, out[i], L->f32, &L->env);
		L->r->nonfinite += nonfinite32(back);
		if (gradient && !zero32(x[i]) && !nonfinite32(x[i])) {
			L->r->grads_nonzero++;
			L->r->grads_flushed += zero32(back);
		}
	}
}

/* ---- the data: bit patterns from the seed's stream ---- */

static uint32_t pattern(bool negative, int exponent, uint64_t mantissa)
{
	return (negative ? 0x80000000u : 0) | (uint32_t)(127 + exponent) << 23 | (uint32_t)(mantissa & 0x7FFFFF);
}

static bool tiny_feature(size_t j)
{
	return j % 8 == 3;
}

static int leading_zeros(uint64_t v)
{
	int n = 0;
	for (uint64_t bit = 1ull << 63; bit && !(v & bit); bit >>= 1)
		n++;
	return n;
}

static bool outlier_feature(size_t j)
{
	return j % 64 == 5;
}

/* x of step t: features of scale 1 with a mild tail (up to 2^3), every
 * 64th an outlier channel of magnitude 2^8..2^9 (beyond E4M3's 448 one
 * time in eight), and every eighth feature tiny (2^-24: FP16's least
 * subnormal). */
static uint32_t data_x(uint64_t seed, size_t t, size_t i, size_t j)
{
	uint64_t index = (((uint64_t)t * B + i) * D + j) * 2;
	uint64_t a = fpref_sr_stream(seed, index), b = fpref_sr_stream(seed, index + 1);
	if (tiny_feature(j))
		return pattern(a >> 63, -24, a);
	if (outlier_feature(j))
		return pattern(a >> 63, 8, a);
	int k = leading_zeros(b) / 2;
	return pattern(a >> 63, (k > 4 ? 4 : k) - 1, a);
}

/* The weights the data come from (which = 0) and the start (which = 1):
 * 2^-5 for the ordinary features, 2^-10 for the outlier channels, 2^4 for
 * the tiny ones (so that they matter and so that an FP16 copy of them has
 * a coarse last place). */
static uint32_t data_w(uint64_t seed, int which, size_t j, size_t n)
{
	uint64_t a = fpref_sr_stream(seed, (1ull << 60) + ((uint64_t)which * D + j) * N + n);
	return pattern(a >> 63, tiny_feature(j) ? 4 : outlier_feature(j) ? -10 : -5, a);
}

/* ---- products ---- */

/* C (M x N, FP32) = A (M x K) B^T (B given as N x K), A patterns of in_a
 * and B of in_b, through the model's accumulation; the FP8 recipes' scales
 * applied by the caller or, for DeepSeek, per chunk here. */
static int matmul(struct lab *L, const struct fpref_accum_model *model, const struct fpref_format *in_a,
		  const struct fpref_format *in_b, size_t M, size_t Nn, size_t K, const uint64_t *A, const uint64_t *Bt,
		  const uint64_t *sa, const uint64_t *sb, size_t chunks, size_t b_rows, size_t promote, uint32_t *C)
{
	for (size_t m = 0; m < M; m++)
		for (size_t n = 0; n < Nn; n++) {
			uint64_t d = 0;
			int status;
			if (L->rc->fp8 == FP8_DEEPSEEK)
				status = fpref_emu_tc_dot_promoted(&model->tc, in_a, in_b, A + m * K, Bt + n * K, K, 128,
								   sa + m * chunks, sb + (n / b_rows) * chunks, 0, &d);
			else if (promote)
				status = fpref_emu_tc_dot_promoted(&model->tc, in_a, in_b, A + m * K, Bt + n * K, K, promote,
								   NULL, NULL, 0, &d);
			else if (L->rc->fp16_accumulator) {
				status = fpref_emu_model_dot(model, in_a, in_b, A + m * K, Bt + n * K, K, 0, L->low, &L->env,
							     &d);
				d = convert(L->low, d, L->f32, &L->env);
			} else
				status = fpref_emu_model_dot(model, in_a, in_b, A + m * K, Bt + n * K, K, 0, L->f32, &L->env,
							     &d);
			if (status != 0)
				return -1;
			C[m * Nn + n] = (uint32_t)d;
			L->r->nonfinite += nonfinite32((uint32_t)d);
		}
	return 0;
}

/* ---- FP8 quantisation of one operand (rows x cols, FP32) ---- */

struct fp8_operand {
	uint64_t *codes;   /* rows x cols */
	uint64_t *factors; /* the dequantisation factors: 1 per tensor, or per tile/block */
	size_t chunks;     /* factors per row of factor blocks (DeepSeek) */
};

static void count_codes(struct lab *L, const struct fpref_format *fp8, const uint8_t *q, uint64_t *codes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		codes[i] = q[i];
		L->r->nonfinite += nonfinite32((uint32_t)convert(fp8, q[i], L->f32, &L->env)); /* E4M3's NaN, E5M2's Inf and NaN */
	}
}

/* Values whose scaled FP32 product lies half a last place of the format
 * or more beyond its largest finite (E4M3: 464 and up beyond 448; E5M2:
 * 61440 and up beyond 57344): the cast saturates them (satfinite). */
static void count_clipped(struct lab *L, const struct fpref_format *fp8, const uint32_t *x, size_t n, uint32_t scale)
{
	uint32_t max = (uint32_t)convert(fp8, fpref_format_max_bits(fp8, false), L->f32, &L->env);
	uint32_t beyond = max + (1u << (22 - fp8->man_bits));
	for (size_t i = 0; i < n; i++) {
		uint32_t v = mul(L, x[i], scale) & 0x7FFFFFFFu;
		L->r->fp8_saturated += v >= beyond && v <= 0x7F800000u;
	}
}

/* x (rows x cols, FP32) quantised to fp8 (E4M3, or E5M2 for HYBRID's
 * gradients) under the recipe's scaling. */
static int quantize(struct lab *L, const struct fpref_format *fp8, const uint32_t *x, size_t rows, size_t cols,
		    bool weights, struct fpref_delayed_state *delayed, struct fp8_operand *o, uint8_t *q, char *err,
		    size_t errlen)
{
	size_t n = rows * cols;
	uint32_t f = 0x3F800000u;
	o->chunks = 1;
	switch (L->rc->fp8) {
	case FP8_CURRENT: {
		struct fpref_current_params p = { fp8, false, 0, FPREF_AMAX_NAN_DEFAULT };
		uint32_t scale = 0;
		if (fpref_emu_current_quantize(&p, x, n, q, NULL, &scale, &f, err, errlen) != 0)
			return -1;
		count_clipped(L, fp8, x, n, scale);
		break;
	}
	case FP8_DELAYED:
		count_clipped(L, fp8, x, n, delayed->scale); /* the scale this tensor is quantised with */
		if (fpref_emu_delayed_step(delayed, x, n, q, &f, NULL, err, errlen) != 0)
			return -1;
		break;
	case FP8_DEEPSEEK: {
		struct fpref_block_params p = { fp8, FPREF_BLOCK_DEEPSEEK, weights ? 128 : 1, 128, false,
						FPREF_F32_DEEPSEEK_EPS, FPREF_AMAX_NAN_DEFAULT };
		size_t nf = fpref_scale_blocks(rows, p.block_rows) * fpref_scale_blocks(cols, 128);
		uint32_t *factors = malloc(nf * sizeof *factors);
		if (!factors || fpref_emu_block_quantize(&p, x, rows, cols, q, factors, err, errlen) != 0) {
			free(factors);
			return -1;
		}
		for (size_t i = 0; i < nf; i++)
			o->factors[i] = factors[i];
		o->chunks = fpref_scale_blocks(cols, 128);
		free(factors);
		count_codes(L, fp8, q, o->codes, n);
		return 0;
	}
	default: /* uncalibrated: PyTorch's cast, beyond max to NaN */
		for (size_t i = 0; i < n; i++)
			q[i] = (uint8_t)convert(L->f32, x[i], fp8, &L->cast);
		break;
	}
	o->factors[0] = f;
	count_codes(L, fp8, q, o->codes, n);
	return 0;
}

/* An FP8 product: DeepSeek's scales enter per chunk in matmul; the
 * per-tensor recipes multiply the FP32 result by scale_inv(A) scale_inv(B),
 * as one FP32 factor (cuBLASLt's alpha). */
static int fp8_matmul(struct lab *L, const struct fpref_accum_model *model, const struct fpref_format *in_a,
		      const struct fpref_format *in_b, size_t M, size_t Nn, size_t K, const uint64_t *A, const uint64_t *Bt,
		      const uint64_t *fa, const uint64_t *fb, size_t chunks, size_t b_rows, size_t promote, uint32_t *C)
{
	if (matmul(L, model, in_a, in_b, M, Nn, K, A, Bt, fa, fb, chunks, b_rows, promote, C) != 0)
		return -1;
	if (L->rc->fp8 != FP8_DEEPSEEK) {
		uint32_t f = mul(L, (uint32_t)fa[0], (uint32_t)fb[0]);
		for (size_t i = 0; i < M * Nn; i++)
			C[i] = mul(L, C[i], f);
	}
	return 0;
}

/* ---- the run ---- */

struct tensors {
	uint32_t x[B * D], xt[D * B], y[B * N], w[D * N], wt[N * D], yhat[B * N], dy[B * N], dyt[N * B], dw[D * N];
	uint32_t dwt[N * D];
	uint32_t m[D * N], v[D * N];
	uint64_t lx[B * D], lxt[D * B], lwt[N * D], ldyt[N * B], l16[D * N]; /* operands in the recipe's format */
	uint64_t fx[B * 2], fxt[D], fw[2], fdy[N];                            /* FP8 factors */
	uint8_t q[B * D];
};

static void transpose(const uint32_t *a, size_t rows, size_t cols, uint32_t *t)
{
	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < cols; j++)
			t[j * rows + i] = a[i * cols + j];
}

static void to_u64(const uint32_t *a, uint64_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = a[i];
}

/* The FP32 sum of a * b in index order, one FMA per term. */
static uint32_t dot32(const struct lab *L, const uint32_t *a, const uint32_t *b, size_t n, size_t stride)
{
	uint32_t s = 0;
	for (size_t k = 0; k < n; k++) {
		uint64_t in[3] = { a[k], b[k * stride], s }, out = 0;
		unsigned flags = 0;
		fpref_emu_op(FPREF_OP_FMA, L->f32, in, &L->env, 0, &out, &flags);
		s = (uint32_t)out;
	}
	return s;
}

static void make_batch(const struct lab *L, uint64_t seed, size_t t, const uint32_t *wstar, struct tensors *T)
{
	for (size_t i = 0; i < B; i++)
		for (size_t j = 0; j < D; j++)
			T->x[i * D + j] = data_x(seed, t, i, j);
	for (size_t i = 0; i < B; i++)
		for (size_t n = 0; n < N; n++)
			T->y[i * N + n] = dot32(L, T->x + i * D, wstar + n, D, N);
}

/* What a GEMM of the run multiplied, for the report. */
static void note_gemm(struct lab *L, size_t i, const char *name, const char *product, const char *a,
		      const struct fpref_format *in_a, const char *b, const struct fpref_format *in_b)
{
	L->r->gemms[i] = (struct fpref_lab_gemm){ name, product, a, in_a, b, in_b, L->rc->gpu };
}

/* Y-hat = X W in the recipe's arithmetic, as FP32 values. */
static int forward(struct lab *L, struct tensors *T, struct fpref_delayed_state *ds, char *err, size_t errlen)
{
	const struct recipe *rc = L->rc;
	const struct fpref_format *in = rc->compute == FPREF_FORMAT_FLOAT32 ? L->f32 : L->low;
	note_gemm(L, 0, "forward", "Y = X W", "X", in, "W", in);
	transpose(T->w, D, N, T->wt);
	if (rc->fp8 == NOT_FP8) {
		if (rc->compute == FPREF_FORMAT_FLOAT32) {
			to_u64(T->x, T->lx, B * D);
			to_u64(T->wt, T->lwt, N * D);
		} else {
			cast_low(L, T->x, T->lx, B * D, false);
			if (rc->master)
				cast_low(L, T->wt, T->lwt, N * D, false);
			else /* the weights are the FP16 copy: exact */
				for (size_t i = 0; i < N * D; i++)
					T->lwt[i] = convert(L->f32, T->wt[i], L->low, &L->cast);
		}
		if (matmul(L, &L->model, in, in, B, N, D, T->lx, T->lwt, NULL, NULL, 0, 1, 0, T->yhat) != 0)
			return -1;
		if (rc->compute != FPREF_FORMAT_FLOAT32) /* autocast's output: linear runs in the low format */
			for (size_t i = 0; i < B * N; i++)
				T->yhat[i] = (uint32_t)convert(L->low, convert(L->f32, T->yhat[i], L->low, &L->cast),
							       L->f32, &L->env);
		return 0;
	}
	struct fp8_operand ox = { T->lx, T->fx, 1 }, ow = { T->lwt, T->fw, 1 };
	if (quantize(L, L->low, T->x, B, D, false, &ds[0], &ox, T->q, err, errlen) != 0 ||
	    quantize(L, L->low, T->wt, N, D, true, &ds[1], &ow, T->q, err, errlen) != 0)
		return -1;
	return fp8_matmul(L, &L->model, L->low, L->low, B, N, D, T->lx, T->lwt, T->fx, T->fw, ox.chunks, 128, 0,
			  T->yhat);
}

/* The weight gradient as PyTorch's linear computes it, dW^T = dY^T X (dY
 * already scaled): A the gradient, B the saved activation; dW as FP32
 * values of what the recipe holds.  The model has no dgrad (dX = dY W^T):
 * its input is data, whose gradient nothing needs. */
static int backward(struct lab *L, struct tensors *T, struct fpref_delayed_state *ds, char *err, size_t errlen)
{
	const struct recipe *rc = L->rc;
	transpose(T->x, B, D, T->xt);
	transpose(T->dy, B, N, T->dyt);
	if (rc->fp8 == NOT_FP8) {
		const struct fpref_format *in = rc->compute == FPREF_FORMAT_FLOAT32 ? L->f32 : L->low;
		note_gemm(L, 1, "wgrad", "dW^T = dY^T X", "dY^T", in, "X", in);
		if (in == L->f32) {
			to_u64(T->xt, T->lxt, D * B);
			to_u64(T->dyt, T->ldyt, N * B);
		} else {
			for (size_t i = 0; i < D * B; i++) /* the saved activation, as the forward cast it */
				T->lxt[i] = convert(L->f32, T->xt[i], L->low, &L->cast);
			cast_low(L, T->dyt, T->ldyt, N * B, true);
		}
		if (matmul(L, &L->back, in, in, N, D, B, T->ldyt, T->lxt, NULL, NULL, 0, 1, 0, T->dwt) != 0)
			return -1;
		transpose(T->dwt, N, D, T->dw);
		if (in != L->f32) { /* the gradient as the low format holds it */
			cast_low(L, T->dw, T->l16, D * N, true);
			for (size_t i = 0; i < D * N; i++)
				T->dw[i] = (uint32_t)convert(L->low, T->l16[i], L->f32, &L->env);
		}
		return 0;
	}
	struct fp8_operand ox = { T->lxt, T->fxt, 1 }, og = { T->ldyt, T->fdy, 1 };
	note_gemm(L, 1, "wgrad", "dW^T = dY^T X", "dY^T", L->grad, "X", L->low);
	if (quantize(L, L->low, T->xt, D, B, false, &ds[2], &ox, T->q, err, errlen) != 0 ||
	    quantize(L, L->grad, T->dyt, N, B, false, &ds[3], &og, T->q, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < N * B; i++) { /* the gradient's flush: its code zero although the value was not */
		if (!zero32(T->dyt[i]) && !nonfinite32(T->dyt[i])) {
			L->r->grads_nonzero++;
			L->r->grads_flushed += (T->ldyt[i] & 0x7F) == 0;
		}
	}
	/* HYBRID: E5M2 x E4M3 through the row's two-format dot, each operand
	 * read in its own format */
	if (fp8_matmul(L, &L->back, L->grad, L->low, N, D, B, T->ldyt, T->lxt, T->fdy, T->fxt, og.chunks, 1,
		       rc->fp8 == FP8_DEEPSEEK ? 0 : 128, T->dwt) != 0)
		return -1;
	transpose(T->dwt, N, D, T->dw);
	return 0;
}

/* The wrong cast order's loss: the residuals in FP16, squared and summed
 * in FP16 (each product and each sum rounded there), then FP32: what
 * autocast's FP32 mse_loss avoids. */
static uint32_t fp16_sum_of_squares(struct lab *L, const uint32_t *r)
{
	uint64_t h[B * N], s = 0;
	unsigned flags = 0;
	for (size_t i = 0; i < B * N; i++)
		h[i] = convert(L->f32, r[i], L->low, &L->cast);
	fpref_emu_dot(FPREF_SUM_RECURSIVE, 0, L->low, L->low, h, h, B * N, 0, L->low, &L->env, &s, &flags);
	uint32_t back = (uint32_t)convert(L->low, s, L->f32, &L->env);
	L->r->nonfinite += nonfinite32(back);
	return back;
}

#define F32_LR 0x3B000000u    /* 2^-9 */
#define F32_BETA1 0x3F666666u /* 0.9f */
#define F32_BETA2 0x3F7FBE77u /* 0.999f */
#define F32_EPS 0x322BCC77u   /* 1e-8f */

/* Adam as torch.optim.Adam writes it (single tensor, no weight decay):
 * m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2, step = lr / (1 - b1^t),
 * denom = sqrt(v) / sqrt(1 - b2^t) + eps, w = w - step m / denom; every
 * operation in FP32.  Returns the update. */
static uint32_t adam(const struct lab *L, uint32_t g, uint32_t *m, uint32_t *v, uint32_t bc1, uint32_t bc2_sqrt)
{
	uint32_t one = 0x3F800000u;
	*m = add(L, mul(L, F32_BETA1, *m), mul(L, sub(L, one, F32_BETA1), g));
	*v = add(L, mul(L, F32_BETA2, *v), mul(L, sub(L, one, F32_BETA2), mul(L, g, g)));
	uint32_t denom = add(L, dvd(L, root(L, *v), bc2_sqrt), F32_EPS);
	return mul(L, dvd(L, F32_LR, bc1), dvd(L, *m, denom));
}

static int setup(struct lab *L, const struct fpref_lab_config *c, struct fpref_lab_result *r, char *err, size_t errlen)
{
	memset(L, 0, sizeof *L);
	L->rc = &recipes[c->recipe];
	L->r = r;
	L->f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	L->low = fpref_format_get(L->rc->compute);
	L->grad = L->rc->fp8 != NOT_FP8 ? fpref_format_get(L->rc->grad) : L->low;
	fpref_env_default(&L->env);
	fpref_env_default(&L->cast);
	L->cast.ftz = L->rc->ftz;
	/* The recipe's matrix products: PyTorch's autocast list says linear
	 * runs in the low format (mse_loss in FP32, as below). */
	const struct fpref_policy *p = fpref_policy_find("pytorch-cuda");
	const struct fpref_policy_list *lin = p ? fpref_policy_lookup(p, "linear") : NULL;
	const struct fpref_policy_list *mse = p ? fpref_policy_lookup(p, "mse_loss") : NULL;
	if (!lin || lin->kind != FPREF_POLICY_LOWER || !mse || mse->kind != FPREF_POLICY_FP32) {
		snprintf(err, errlen, "the pytorch-cuda policy does not list linear and mse_loss as the lab expects");
		return -1;
	}
	if (!L->rc->gpu) {
		L->model.kind = FPREF_ACCUM_PLAIN;
		L->model.order = FPREF_SUM_FMA_CHAIN;
		L->back = L->model;
		return 0;
	}
	const struct fpref_tc_model *m = fpref_tc_model_find(L->rc->gpu, L->low);
	const struct fpref_tc_model *mb = fpref_tc_model_find_pair(L->rc->gpu, L->grad, L->low);
	if (!m) {
		snprintf(err, errlen, "no %s tensor-core row for %s", L->rc->gpu, L->low->name);
		return -1;
	}
	if (!mb) {
		char pairs[256];
		fpref_tc_model_pairs(m, pairs, sizeof pairs);
		snprintf(err, errlen, "the %s row does not take %s x %s (it takes %s)", L->rc->gpu, L->grad->name,
			 L->low->name, pairs);
		return -1;
	}
	L->model.kind = FPREF_ACCUM_TC;
	L->model.tc = *m;
	L->back.kind = FPREF_ACCUM_TC;
	L->back.tc = *mb;
	return 0;
}

static void note_scale(struct fpref_lab_result *r, size_t step, uint32_t scale)
{
	if (step > 0)
		r->scale_changes++;
	size_t i = step > 0 ? r->scale_changes : 0;
	if (i < FPREF_LAB_SCALE_LOG)
		r->scale_log[i] = (struct fpref_lab_scale_change){ step, scale };
}

/* One optimizer step on every weight (beta^t advanced), its nonzero and
 * lost updates counted. */
static void update(struct lab *L, struct tensors *T, uint32_t *b1t, uint32_t *b2t)
{
	*b1t = mul(L, *b1t, F32_BETA1);
	*b2t = mul(L, *b2t, F32_BETA2);
	uint32_t bc1 = sub(L, 0x3F800000u, *b1t), bc2_sqrt = root(L, sub(L, 0x3F800000u, *b2t));
	for (size_t i = 0; i < D * N; i++) {
		uint32_t u = adam(L, T->dw[i], &T->m[i], &T->v[i], bc1, bc2_sqrt);
		uint32_t w = sub(L, T->w[i], u);
		if (!L->rc->master)
			w = (uint32_t)convert(L->low, convert(L->f32, w, L->low, &L->cast), L->f32, &L->env);
		if (!zero32(u)) {
			L->r->updates_nonzero++;
			L->r->updates_lost += w == T->w[i];
		}
		T->w[i] = w;
	}
}

static size_t count_unchanged(const uint32_t *w, const uint32_t *start)
{
	size_t n = 0;
	for (size_t i = 0; i < D * N; i++)
		n += w[i] == start[i];
	return n;
}

/* Step t of the trace: the counters' growth since `before`, and the state. */
static void trace_step(struct fpref_lab_step *s, const struct fpref_lab_result *before,
		       const struct fpref_lab_result *r, uint32_t loss, uint32_t scale, bool skipped, size_t unchanged)
{
	*s = (struct fpref_lab_step){
		.loss = loss,
		.scale = scale,
		.skipped = skipped,
		.nonfinite = r->nonfinite - before->nonfinite,
		.grads_nonzero = r->grads_nonzero - before->grads_nonzero,
		.grads_flushed = r->grads_flushed - before->grads_flushed,
		.updates_nonzero = r->updates_nonzero - before->updates_nonzero,
		.updates_lost = r->updates_lost - before->updates_lost,
		.fp8_saturated = r->fp8_saturated - before->fp8_saturated,
		.weights_unchanged = unchanged,
	};
}

static int train(const struct fpref_lab_config *c, struct fpref_lab_result *r, char *err, size_t errlen)
{
	struct lab L;
	memset(r, 0, sizeof *r);
	if (setup(&L, c, r, err, errlen) != 0)
		return -1;
	const struct recipe *rc = L.rc;
	struct tensors *T = calloc(1, sizeof *T);
	uint32_t *wstar = malloc(D * N * sizeof *wstar), *start = malloc(D * N * sizeof *start);
	struct fpref_delayed_state ds[4];
	size_t nds = 0;
	int status = -1;
	if (!T || !wstar || !start) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if (rc->fp8 == FP8_DELAYED)
		for (; nds < 4; nds++) {
			/* ds[3] quantises the gradient (E5M2 under HYBRID), the others X, W and X^T */
			struct fpref_delayed_params p = { nds == 3 ? L.grad : L.low, 1024, FPREF_AMAX_MAX, 0,
							  FPREF_AMAX_NAN_DEFAULT };
			if (fpref_delayed_init(&ds[nds], &p, err, errlen) != 0)
				goto done;
		}
	struct fpref_scaler scaler;
	if (rc->scaler) {
		struct fpref_scaler_config sc;
		fpref_emu_scaler_config_default(FPREF_SCALER_PYTORCH, &sc);
		if (fpref_emu_scaler_init(&scaler, &sc, err, errlen) != 0)
			goto done;
		r->scaled = true;
		note_scale(r, 0, (uint32_t)fpref_emu_scaler_scale_fp32(&scaler));
	}
	for (size_t j = 0; j < D; j++)
		for (size_t n = 0; n < N; n++) {
			wstar[j * N + n] = data_w(c->seed, 0, j, n);
			uint32_t w0 = data_w(c->seed, 1, j, n);
			if (!rc->master) /* the model is FP16 from the start */
				w0 = (uint32_t)convert(L.low, convert(L.f32, w0, L.low, &L.cast), L.f32, &L.env);
			T->w[j * N + n] = start[j * N + n] = w0;
		}
	uint32_t b1t = 0x3F800000u, b2t = 0x3F800000u; /* beta^t */
	/* 2 / (B N) as FP32: B N is a power of two, so the scaling is exact */
	uint32_t two_over = pattern(false, 1 - 9, 0);
	for (size_t t = 0; t < c->steps; t++) {
		struct fpref_lab_result before = *r;
		make_batch(&L, c->seed, t, wstar, T);
		if (forward(&L, T, ds, err, errlen) != 0)
			goto done;
		uint32_t rr[B * N];
		for (size_t i = 0; i < B * N; i++) /* mse_loss: FP32 */
			rr[i] = sub(&L, T->yhat[i], T->y[i]);
		uint32_t loss = mul(&L, rc->fp16_accumulator ? fp16_sum_of_squares(&L, rr) : dot32(&L, rr, rr, B * N, 1),
				    pattern(false, -9, 0));
		r->nonfinite += nonfinite32(loss);
		if (t == 0)
			r->first_loss = loss;
		r->final_loss = loss;
		uint32_t scale = rc->scaler ? (uint32_t)fpref_emu_scaler_scale_fp32(&scaler) : 0x3F800000u;
		uint32_t g = mul(&L, two_over, scale);
		for (size_t i = 0; i < B * N; i++)
			T->dy[i] = mul(&L, rr[i], g);
		if (backward(&L, T, ds, err, errlen) != 0)
			goto done;
		bool skipped = false;
		if (rc->scaler) { /* unscale_: FP32(grad) * (1 / scale); inf/NaN skips the step */
			uint32_t inv = (uint32_t)fpref_emu_scaler_inverse_fp32(&scaler);
			bool overflow = false;
			for (size_t i = 0; i < D * N; i++) {
				overflow |= nonfinite32(T->dw[i]);
				T->dw[i] = mul(&L, T->dw[i], inv);
			}
			struct fpref_scaler_step st;
			fpref_emu_scaler_update(&scaler, overflow, &st);
			if (st.scale_next != st.scale_used)
				note_scale(r, t + 1, (uint32_t)fpref_emu_scaler_scale_fp32(&scaler));
			skipped = overflow;
			r->skipped_steps += skipped;
		}
		if (!skipped)
			update(&L, T, &b1t, &b2t);
		if (c->trace)
			trace_step(&c->trace[t], &before, r, loss, scale, skipped, count_unchanged(T->w, start));
	}
	r->steps = c->steps;
	r->weights = D * N;
	r->weights_unchanged = count_unchanged(T->w, start);
	r->final_scale = rc->scaler ? (uint32_t)fpref_emu_scaler_scale_fp32(&scaler) : 0x3F800000u;
	status = 0;
done:
	for (size_t i = 0; i < nds; i++)
		fpref_delayed_free(&ds[i]);
	free(T);
	free(wstar);
	free(start);
	return status;
}

int fpref_golden_lab_run(const struct fpref_lab_config *c, struct fpref_lab_result *r, char *err, size_t errlen)
{
	if (c->recipe >= FPREF_LAB_RECIPE_COUNT || c->steps < 1 || c->steps > FPREF_LAB_MAX_STEPS) {
		snprintf(err, errlen, "recipe or steps out of range (steps 1..%d)", FPREF_LAB_MAX_STEPS);
		return -1;
	}
	struct fpref_lab_config run = *c;
	if (c->recipe == FPREF_LAB_FP32 && c->compare && !c->trace) /* the run is its own baseline */
		run.trace = c->fp32_trace;
	if (train(&run, r, err, errlen) != 0)
		return -1;
	if (!c->compare)
		return 0;
	struct fpref_lab_result base;
	struct fpref_lab_config bc = *c;
	bc.recipe = FPREF_LAB_FP32;
	bc.trace = c->fp32_trace;
	if (c->recipe == FPREF_LAB_FP32) {
		base = *r;
		if (c->fp32_trace && c->trace && c->fp32_trace != c->trace)
			memcpy(c->fp32_trace, c->trace, c->steps * sizeof *c->trace);
	} else if (train(&bc, &base, err, errlen) != 0)
		return -1;
	struct lab L;
	setup(&L, &bc, &base, err, errlen);
	r->fp32_loss = base.final_loss;
	if (c->fp32_result)
		*c->fp32_result = base;
	r->relative_difference = dvd(&L, sub(&L, r->final_loss, base.final_loss) & 0x7FFFFFFFu,
				     base.final_loss & 0x7FFFFFFFu);
	return 0;
}
