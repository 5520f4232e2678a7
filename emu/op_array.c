/* Arithmetic on arrays.  A context is built once per (operation, format,
 * environment), with three fast paths beside fpref_emu_op:
 *  - add, sub, mul, div, sqrt and fma through binary64, rounded to odd,
 *    and the vector conversion lanes (op_lanes.c, where the argument is;
 *    checked against fpref_emu_op by tests/check_lanes.c), before the
 *    fixed-point path below;
 *  - formats of 8 bits or fewer: a table of every result, computed by
 *    fpref_emu_op (checked on every operand pair in tests/check_ops.c);
 *  - add, sub and mul in 16-bit formats whose whole range fits 62 bits of
 *    fixed point (FP16, E5M2-like), under rne with bits only: exact
 *    integer sums and products, rounded in fixed point (checked against
 *    fpref_emu_op on millions of pairs in make check, every pair in make
 *    check-exhaustive). */
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "fpref_emu.h"
#include "element.h"
#include "op_lanes.h"

struct fpref_emu_op_context {
	enum fpref_op op;
	struct fpref_format f;
	struct fpref_env env;
	size_t bytes;
	int arity;
	unsigned codes_bits;  /* container bits when tabled, else 0 */
	uint8_t *bits;        /* results, indexed a | b << codes_bits */
	uint8_t *flags;
	struct fixed_plan *fixed;
	struct op_lanes_plan *lanes; /* through binary64 and the conversion lanes (op_lanes.c) */
	enum lanes_isa isa;
};

/* The fixed-point path: values in units of the least subnormal. */
struct fixed_plan {
	int man_bits;
	int top_units;        /* exponent, in units, of max finite's leading bit */
	int unit;             /* the least subnormal is 2^unit */
	uint32_t max_code, inf_code, sign_bit;
	bool zero_unsigned;   /* fnuz: no -0 */
	/* One table per use, each as small as it can be, so that random
	 * operands stay in cache. */
	int64_t value[65536];   /* sums: signed fixed-point value, or SPECIAL */
	uint32_t factor[65536]; /* products: significand | (exponent in units + 64) << 16, or FACTOR_SPECIAL */
};
#define FACTOR_SPECIAL UINT32_MAX
#define SPECIAL INT64_MIN

static struct fixed_plan *fixed_plan_new(enum fpref_op op, const struct fpref_format *f, const struct fpref_env *env)
{
	if ((op != FPREF_OP_ADD && op != FPREF_OP_SUB && op != FPREF_OP_MUL) || env->rounding != FPREF_RNE ||
	    env->ftz || env->daz || env->sat_inf_to_nan || env->nan_to_flipped_zero || env->zero_positive || env->sat_keep_inf || !f->is_signed || f->integer || !f->has_zero || !f->subnormals ||
	    f->pad_bits != 0 || fpref_format_container_bits(f) > 16 || fpref_format_container_bits(f) <= 8)
		return NULL;
	int unit = fpref_format_min_exponent(f) - f->man_bits;
	int top = fpref_format_max_exponent(f) - unit;
	if (top > 60)
		return NULL;
	struct fixed_plan *p = malloc(sizeof *p);
	if (!p)
		return NULL;
	p->man_bits = f->man_bits;
	p->top_units = top;
	p->max_code = (uint32_t)fpref_format_max_bits(f, false);
	p->sign_bit = 1u << (f->exp_bits + f->man_bits);
	p->zero_unsigned = f->specials == FPREF_SPECIALS_FNUZ;
	/* overflow under rne: inf, else NaN (its sign is added as for numbers), or max */
	uint64_t special = p->max_code;
	if (env->overflow != FPREF_OVERFLOW_SAT && !fpref_format_inf_bits(f, false, &special))
		fpref_format_nan_bits(f, false, &special);
	p->inf_code = (uint32_t)special;
	p->unit = unit;
	for (uint64_t c = 0; c < 65536; c++) {
		struct fpref_unpacked u;
		/* patterns outside the format are left to the core, as NaN and inf are */
		bool valid = fpref_decode(f, c, &u) != FPREF_DECODE_INVALID;
		bool finite = valid && u.cls != FPREF_CLASS_NAN && u.cls != FPREF_CLASS_INF;
		int64_t v = finite && u.significand ? (int64_t)(u.significand << (u.exponent - unit)) : 0;
		p->value[c] = finite ? (u.negative ? -v : v) : SPECIAL;
		p->factor[c] = finite ? (uint32_t)u.significand | (uint32_t)(u.exponent - unit + 64) << 16 : FACTOR_SPECIAL;
	}
	return p;
}

/* Round m * 2^s units (m > 0) to the format's pattern, nearest even. */
static uint32_t fixed_round(const struct fixed_plan *p, uint64_t m, int s)
{
	int lead = 63 - __builtin_clzll(m) + s;
	if (lead > p->top_units + 1)
		return p->inf_code;
	int q = lead - p->man_bits > 0 ? lead - p->man_bits : 0; /* the grid's last place, in units */
	int shift = q - s;
	uint64_t k;
	if (shift <= 0) {
		k = m << -shift;
	} else if (shift >= 64) {
		k = 0;
	} else {
		k = m >> shift;
		uint64_t guard = (m >> (shift - 1)) & 1, rest = m & ((UINT64_C(1) << (shift - 1)) - 1);
		k += guard & ((rest != 0) | (k & 1));
	}
	uint64_t code = ((uint64_t)q << p->man_bits) + k;
	return code > p->max_code ? p->inf_code : (uint32_t)code;
}

/* One element, or UINT32_MAX when an operand is NaN or inf (left to the core). */
static inline uint32_t fixed_sum(const struct fixed_plan *p, uint32_t a, uint32_t b, bool subtract)
{
	int64_t x = p->value[a], y = p->value[b];
	if (x == SPECIAL || y == SPECIAL)
		return UINT32_MAX;
	/* negate the value, not the pattern: in FNUZ the flipped +0 is the NaN */
	uint32_t b_sign = (b & p->sign_bit) ^ (subtract ? p->sign_bit : 0);
	int64_t sum = subtract ? x - y : x + y;
	uint32_t negative;
	if (sum == 0) /* -0 only from two negative zeros (nearest even) */
		negative = x == 0 && y == 0 && (a & b_sign & p->sign_bit);
	else
		negative = sum < 0;
	uint32_t code = sum == 0 ? 0 : fixed_round(p, (uint64_t)(sum < 0 ? -sum : sum), 0);
	if (p->zero_unsigned && code == 0)
		negative = 0;
	return code | (negative ? p->sign_bit : 0);
}

static inline uint32_t fixed_product(const struct fixed_plan *p, uint32_t a, uint32_t b)
{
	uint32_t x = p->factor[a], y = p->factor[b];
	if (x == FACTOR_SPECIAL || y == FACTOR_SPECIAL)
		return UINT32_MAX;
	uint32_t negative = ((a ^ b) & p->sign_bit) != 0;
	uint64_t sig = (uint64_t)(x & 0xFFFF) * (y & 0xFFFF);
	/* sa 2^ea * sb 2^eb with ea, eb counted in units: ea + eb + unit in units */
	uint32_t code = sig == 0 ? 0 : fixed_round(p, sig, (int)(x >> 16) + (int)(y >> 16) - 128 + p->unit);
	if (p->zero_unsigned && code == 0)
		negative = 0;
	return code | (negative ? p->sign_bit : 0);
}

struct fpref_emu_op_context *fpref_emu_op_context_new(enum fpref_op op, const struct fpref_format *f,
						      const struct fpref_env *env)
{
	char err[128];
	if (fpref_format_validate(f, err, sizeof err) != 0 || f->man_bits > FPREF_OP_MAX_MAN_BITS)
		return NULL;
	struct fpref_emu_op_context *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->op = op;
	c->f = *f;
	c->env = *env;
	c->bytes = fpref_emu_element_bytes(f);
	c->arity = fpref_op_arity(op);
	unsigned bits = (unsigned)fpref_format_container_bits(f);
	if (bits <= 8 && c->arity <= 2 && env->rounding != FPREF_SR) {
		size_t entries = (size_t)1 << (bits * (unsigned)c->arity);
		/* 3 bytes beyond the last entry: a gather reads 32 bits at a byte's index */
		c->bits = calloc(entries + 3, 1);
		c->flags = calloc(entries + 3, 1);
		if (!c->bits || !c->flags) {
			fpref_emu_op_context_free(c);
			return NULL;
		}
		c->codes_bits = bits;
		uint64_t mask = ((uint64_t)1 << bits) - 1;
		for (size_t k = 0; k < entries; k++) {
			uint64_t in[3] = { k & mask, k >> bits, 0 }, out = 0;
			unsigned fl = 0;
			fpref_emu_op(op, f, in, env, 0, &out, &fl);
			c->bits[k] = (uint8_t)out;
			c->flags[k] = (uint8_t)fl;
		}
	}
	if (!c->codes_bits) {
		c->lanes = malloc(sizeof *c->lanes);
		if (c->lanes && !fpref_emu_op_lanes_plan(op, f, env, c->lanes)) {
			free(c->lanes);
			c->lanes = NULL;
		}
	}
	c->isa = fpref_emu_lanes_isa_available(LANES_ISA_AVX512) ? LANES_ISA_AVX512
		 : fpref_emu_lanes_isa_available(LANES_ISA_AVX2) ? LANES_ISA_AVX2
							     : LANES_ISA_BASE;
	c->fixed = c->lanes ? NULL : fixed_plan_new(op, f, env);
	return c;
}

const char *fpref_emu_op_context_path(const struct fpref_emu_op_context *c)
{
	return c->codes_bits ? "table" : c->lanes ? (fpref_emu_op_lanes_fp32(c->lanes, c->isa) ? "fp32-lanes" : "fp64-lanes") : c->fixed ? "fixed-point" : "generic";
}

const char *fpref_emu_op_context_isa(const struct fpref_emu_op_context *c)
{
	return fpref_emu_lanes_isa_names[c->isa];
}

int fpref_emu_op_context_use_isa(struct fpref_emu_op_context *c, const char *name)
{
	return fpref_emu_lanes_isa_parse(name, &c->isa);
}

void fpref_emu_op_context_free(struct fpref_emu_op_context *c)
{
	if (!c)
		return;
	free(c->fixed);
	free(c->lanes);
	free(c->bits);
	free(c->flags);
	free(c);
}

static size_t elements_by_core(const struct fpref_emu_op_context *c, const void *a, const void *b, const void *cc,
			       void *out, size_t start, size_t end, uint8_t *flags, uint64_t first_index);

/* One element by the core, for the lanes' callback. */
struct core_call {
	const struct fpref_emu_op_context *c;
	const void *a, *b, *cc;
	void *out;
	uint8_t *flags;
	uint64_t first_index;
};

static size_t element_by_core(const void *ctx, size_t i)
{
	const struct core_call *k = ctx;
	return elements_by_core(k->c, k->a, k->b, k->cc, k->out, i, i + 1, k->flags, k->first_index);
}

#if defined(__GNUC__) && defined(__x86_64__)
#define TABLE_GATHER 1
/* Tables by gathers: 8 (AVX2) or 16 (AVX-512) lanes of 32-bit indices
 * a | b << cb (a alone where y is NULL: a unary table), each reading the
 * 32 bits at its byte of the table (padded by 3 bytes) and keeping the low
 * byte.  Returns how many leading elements it did; the rest are the scalar
 * loop's. */
__attribute__((target("avx2"))) static size_t gather_avx2(const uint8_t *table, unsigned cb, const uint8_t *x,
							    const uint8_t *y, uint8_t *z, size_t n)
{
	const __m256i m = _mm256_set1_epi32((1 << cb) - 1), low = _mm256_set1_epi32(0xFF);
	const __m128i shift = _mm_cvtsi32_si128((int)cb);
	const __m256i pack = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12,
					      -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256i a = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(x + i)));
		__m256i b = y ? _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(y + i))) : _mm256_setzero_si256();
		__m256i k = _mm256_or_si256(_mm256_and_si256(a, m), _mm256_sll_epi32(_mm256_and_si256(b, m), shift));
		__m256i v = _mm256_and_si256(_mm256_i32gather_epi32((const int *)(const void *)table, k, 1), low);
		v = _mm256_shuffle_epi8(v, pack); /* each half's four bytes at its bottom */
		uint32_t lo = (uint32_t)_mm256_extract_epi32(v, 0), hi = (uint32_t)_mm256_extract_epi32(v, 4);
		memcpy(z + i, &lo, 4);
		memcpy(z + i + 4, &hi, 4);
	}
	return i;
}

__attribute__((target("avx512f,avx512bw"))) static size_t gather_avx512(const uint8_t *table, unsigned cb,
									 const uint8_t *x, const uint8_t *y, uint8_t *z,
									 size_t n)
{
	const __m512i m = _mm512_set1_epi32((1 << cb) - 1);
	const __m128i shift = _mm_cvtsi32_si128((int)cb);
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		__m512i a = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(x + i)));
		__m512i b = y ? _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(y + i))) : _mm512_setzero_si512();
		__m512i k = _mm512_or_si512(_mm512_and_si512(a, m), _mm512_sll_epi32(_mm512_and_si512(b, m), shift));
		__m512i v = _mm512_i32gather_epi32(k, (const void *)table, 1);
		_mm_storeu_si128((__m128i *)(z + i), _mm512_cvtepi32_epi8(v)); /* the low byte of each */
	}
	return i;
}
#endif

/* The tabled results of n elements; the count of operands outside the
 * format's codes (whose elements the caller redoes).  Everything the loop
 * reads is a local restrict pointer or value: through the byte stores the
 * compiler would otherwise reload the context every element. */
static size_t table_lookup(const struct fpref_emu_op_context *c, const uint8_t *restrict x, const uint8_t *restrict y,
			   uint8_t *restrict z, size_t n, uint8_t *restrict flags)
{
	const uint8_t *restrict bits = c->bits, *restrict tflags = c->flags;
	const unsigned cb = c->codes_bits;
	const uint8_t outside = (uint8_t)~((1u << cb) - 1);
	size_t out_of_range = 0;
	if (outside) { /* a pass of its own, eight codes a word */
		uint64_t any = 0;
		for (int k = 0; k < c->arity; k++) {
			const uint8_t *v = k ? y : x;
			size_t i = 0;
			for (; i + 8 <= n; i += 8) {
				uint64_t w;
				memcpy(&w, v + i, 8);
				any |= w;
			}
			for (; i < n; i++)
				any |= v[i];
		}
		out_of_range = (any & (0x0101010101010101u * outside)) != 0;
	}
	if (c->arity == 2 && !flags) {
		size_t i = 0;
#ifdef TABLE_GATHER
		if (c->isa == LANES_ISA_AVX512)
			i = gather_avx512(bits, cb, x, y, z, n);
		else if (c->isa == LANES_ISA_AVX2)
			i = gather_avx2(bits, cb, x, y, z, n);
#endif
		for (; i < n; i++)
			z[i] = bits[(size_t)(x[i] & (uint8_t)~outside) | (size_t)(y[i] & (uint8_t)~outside) << cb];
	} else if (c->arity == 2) {
		for (size_t i = 0; i < n; i++) {
			size_t k = (size_t)(x[i] & (uint8_t)~outside) | (size_t)(y[i] & (uint8_t)~outside) << cb;
			z[i] = bits[k];
			flags[i] = tflags[k];
		}
	} else if (!flags) {
		size_t i = 0;
#ifdef TABLE_GATHER
		if (c->isa == LANES_ISA_AVX512)
			i = gather_avx512(bits, cb, x, NULL, z, n);
		else if (c->isa == LANES_ISA_AVX2)
			i = gather_avx2(bits, cb, x, NULL, z, n);
#endif
		for (; i < n; i++)
			z[i] = bits[x[i] & (uint8_t)~outside];
	} else {
		for (size_t i = 0; i < n; i++) {
			size_t k = x[i] & (uint8_t)~outside;
			z[i] = bits[k];
			flags[i] = tflags[k];
		}
	}
	return out_of_range;
}

size_t fpref_emu_op_array(const struct fpref_emu_op_context *c, const void *a, const void *b, const void *cc,
			  void *out, size_t n, uint8_t *flags, uint64_t first_index)
{
	if (c->codes_bits && c->bytes == 1) {
		if (table_lookup(c, a, b, out, n, flags) == 0)
			return 0;
		/* rare: patterns outside the format; redo those elements below */
	}
	if (c->lanes) {
		struct core_call k = { c, a, b, cc, out, flags, first_index };
		return fpref_emu_op_lanes(c->lanes, c->isa, a, b, cc, out, n, flags, first_index, element_by_core, &k);
	}
	if (c->fixed && !flags && c->bytes == 2) {
		const uint16_t *x = a, *y = b;
		uint16_t *z = out;
		size_t invalid = 0;
		const struct fixed_plan *p = c->fixed;
		const bool subtract = c->op == FPREF_OP_SUB;
		/* one loop per operation, so that each stays small and branch-light */
		if (c->op == FPREF_OP_MUL) {
			for (size_t i = 0; i < n; i++) {
				uint32_t r = fixed_product(p, x[i], y[i]);
				if (__builtin_expect(r == UINT32_MAX, 0)) /* a NaN or inf operand: the core */
					invalid += elements_by_core(c, a, b, cc, out, i, i + 1, NULL, first_index);
				else
					z[i] = (uint16_t)r;
			}
		} else {
			for (size_t i = 0; i < n; i++) {
				uint32_t r = fixed_sum(p, x[i], y[i], subtract);
				if (__builtin_expect(r == UINT32_MAX, 0))
					invalid += elements_by_core(c, a, b, cc, out, i, i + 1, NULL, first_index);
				else
					z[i] = (uint16_t)r;
			}
		}
		return invalid;
	}
	return elements_by_core(c, a, b, cc, out, 0, n, flags, first_index);
}

static size_t elements_by_core(const struct fpref_emu_op_context *c, const void *a, const void *b, const void *cc,
			       void *out, size_t start, size_t end, uint8_t *flags, uint64_t first_index)
{
	const void *operands[3] = { a, b, cc };
	size_t invalid = 0;
	for (size_t i = start; i < end; i++) {
		uint64_t in[3] = { 0, 0, 0 }, result = 0;
		for (int j = 0; j < c->arity; j++)
			in[j] = fpref_element_load(operands[j], i, c->bytes);
		unsigned fl = 0;
		if (fpref_emu_op(c->op, &c->f, in, &c->env, fpref_env_sr_random(&c->env, first_index + i), &result, &fl) !=
		    0) {
			unsigned ignored = 0;
			result = c->f.specials == FPREF_SPECIALS_NONE ? 0
								       : fpref_emu_pack_nan(&c->f, &c->env, false, false, &ignored);
			fl = FPREF_FLAG_INVALID;
			invalid++;
		}
		fpref_element_store(out, i, c->bytes, result);
		if (flags)
			flags[i] = (uint8_t)fl;
	}
	return invalid;
}
