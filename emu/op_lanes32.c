/* The FP32 route of arithmetic on arrays: emu/op_lanes.c's argument at 24
 * bits instead of 53, for the formats where it holds, so that a register
 * holds twice the lanes and a chunk is one pass (decode, operate, round to
 * odd) before the FP32 conversion lanes round it to the format.  It holds
 * where (fpref_emu_op_lanes32_fits):
 *  - p <= 12: a product of two significands is exact in 24 bits;
 *  - p + 2 <= 24 (stochastic rounding with r bits: p + r + 3 <= 24), so
 *    that the value rounded to odd at 24 bits rounds as the exact one;
 *  - every finite value lies in [2^-40, 2^41) (least subnormal, top of
 *    the largest binade): products, quotients, roots and fma sums then
 *    lie in [2^-81, 2^83) and are normal FP32 numbers or exact zeros, and
 *    the remainders a - q b (a multiple of 2^L ulp(q) >= 2^-144) and
 *    a - s^2 (of ulp(s)^2 >= 2^-86) are exact, as TwoSum's error is.
 * FP16, the FP8, FP6 and FP4 formats and P3109's narrow ones qualify.
 * BF16's range is FP32's own: on AVX-512 it takes this route by the
 * rounding in the instructions and classes of its own (wide below). */
#include <math.h>
#include <string.h>

#include "op_lanes.h"
#include "op_lanes32_x86.h"

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define OP_LANES32_CLONES                                                                                     \
	__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"),                          \
		       optimize("tree-vectorize", "vect-cost-model=dynamic", "no-math-errno")))
#define OP_LANES32_INLINE __attribute__((always_inline)) inline
#else
#define OP_LANES32_CLONES
#define OP_LANES32_INLINE inline
#endif

/* What an operand is read from: a byte by its fields (the usual
 * layouts), a byte through the plan's table (the others), the 16 bits of
 * an IEEE-style format, or floats converted by F16C from FP16 itself or
 * from a byte format's fields placed in FP16's (the value over 2^(15 -
 * bias), so scaled back by half_scale). */
enum source { BYTE_FIELDS, BYTE_TABLE, IEEE16, FLOATS };

/* The constants of decoding by fields, held in locals so that the loops
 * keep them in registers: the value from the sign, exponent field and
 * trailing significand (subnormal where the field is 0); NaN and inf
 * where the field is all ones (IEEE16), else where the magnitude is
 * special_from or more, the pattern is odd_special (FNUZ's and P3109's
 * NaN at -0) or beyond the format's patterns (struct dec, op_lanes.h). */
static inline __attribute__((always_inline)) float by_fields(const struct dec *d, bool ieee16, uint32_t v,
							     uint8_t *special)
{
	uint32_t field = (v >> d->m) & d->top, man = v & ((1u << d->m) - 1), sign = v >> d->sign_shift << 31;
	uint32_t normal = sign | (field + d->rebias) << 23 | man << (23 - d->m), sub;
	float sub_value = (float)(int32_t)man * d->sub_scale; /* a power of two times an integer */
	memcpy(&sub, &sub_value, sizeof sub);
	uint32_t is_sub = 0 - (uint32_t)(field == 0), bits = (is_sub & (sub | sign)) | (~is_sub & normal);
	if (ieee16)
		*special |= (uint8_t)(field == d->top);
	else
		*special |= (uint8_t)(((v & d->mag_mask) >= d->special_from) | (v == d->odd_special) | (v > d->beyond));
	float x;
	memcpy(&x, &bits, sizeof x);
	return x;
}

/* Operand j as a float (exact), *special set where it is NaN or inf. */
static inline __attribute__((always_inline)) float operand(const struct op_lanes_plan *p, const struct dec *d,
							   enum source s, const void *src, size_t j, uint8_t *special)
{
	if (s == BYTE_TABLE) {
		/* one gather (none of bytes, p->special), of a 32-bit index:
		 * GCC gathers by none narrower, and only where the stores cannot
		 * reach the table (run's restrict) */
		int32_t k = ((const uint8_t *)src)[j];
		float x = p->value32[k];
		*special |= (uint8_t)(x != x);
		return x;
	}
	if (s == BYTE_FIELDS)
		return by_fields(d, false, ((const uint8_t *)src)[j], special);
	if (s == FLOATS) /* scaled to the format's value, its specials marked by the caller */
		return ((const float *)src)[j] * d->half_scale;
	return by_fields(d, true, ((const uint16_t *)src)[j], special);
}

/* d's bits, moved to the neighbour toward the exact value (above d where
 * up) where d's last bit is even and the exact value is not d: the exact
 * value rounded to odd (op_lanes.c's to_odd at 24 bits). */
static inline __attribute__((always_inline)) uint32_t to_odd32(float d, bool inexact, bool up)
{
	uint32_t b;
	memcpy(&b, &d, sizeof b);
	uint32_t step = (uint32_t)inexact & ~b & 1, down = 0 - (uint32_t)(up == (b >> 31));
	return b + ((step ^ down) - down);
}

static void roots(enum lanes_isa isa, const float *u, float *q, size_t n)
{
#if defined(__GNUC__) && defined(__x86_64__)
	if (isa == LANES_ISA_AVX512) {
		fpref_emu_op32_roots_avx512(u, q, n);
		return;
	}
	if (isa == LANES_ISA_AVX2) {
		fpref_emu_op32_roots_avx(u, q, n);
		return;
	}
#else
	(void)isa;
#endif
	for (size_t j = 0; j < n; j++)
		q[j] = sqrtf(u[j]);
}

#if defined(__GNUC__) && defined(__x86_64__)
static void halves_to_floats(enum lanes_isa isa, const uint16_t *a, size_t n, float *y)
{
	if (isa == LANES_ISA_AVX512)
		fpref_emu_op32_halves_avx512(a, n, y);
	else
		fpref_emu_op32_halves_f16c(a, n, y);
}
#endif

/* A byte format's patterns as FP16 patterns of the same fields (sign,
 * exponent field, trailing significand at FP16's top), its NaN and inf
 * marked in special[] (by_fields' rule). */
static OP_LANES32_INLINE void as_halves(const struct dec *d, const uint8_t *a, size_t n, uint16_t *restrict h,
					uint8_t *restrict special)
{
	/* in 16-bit lanes, twice as many a register (every constant fits) */
	const uint16_t sign_shift = (uint16_t)d->sign_shift, mag = (uint16_t)d->mag_mask, up = (uint16_t)(10 - d->m),
		       from = (uint16_t)d->special_from, beyond = (uint16_t)d->beyond;
	const uint16_t odd = d->odd_special > 0xFF ? 0xFFFF : (uint16_t)d->odd_special;
	for (size_t j = 0; j < n; j++) {
		uint16_t v = a[j], m = (uint16_t)(v & mag);
		h[j] = (uint16_t)((uint16_t)(v >> sign_shift << 15) | (uint16_t)(m << up));
		special[j] |= (uint8_t)((m >= from) | (v == odd) | (v > beyond));
	}
}

/* The chunk's results from its operands a, b, c (as s says); whether any
 * element is rare. */
static OP_LANES32_INLINE uint8_t run(const struct op_lanes_plan *p, enum lanes_isa isa, enum source s, const void *a,
				     const void *b, const void *c, size_t n, uint32_t *restrict y,
				     uint8_t *restrict rare)
{
	const struct dec d = p->dec32;
	uint8_t any = 0;
	const uint8_t rdn = p->env.rounding == FPREF_RDN;
	const float negate = p->op == FPREF_OP_SUB ? -1 : 1;
	switch (p->op) {
	case FPREF_OP_MUL:
		for (size_t j = 0; j < n; j++) {
			uint8_t sp = s == FLOATS ? rare[j] : 0;
			float u = operand(p, &d, s, a, j, &sp), v = operand(p, &d, s, b, j, &sp), r = u * v; /* exact */
			memcpy(&y[j], &r, sizeof r);
			rare[j] = sp;
			any |= sp;
		}
		break;
	case FPREF_OP_ADD:
	case FPREF_OP_SUB:
		for (size_t j = 0; j < n; j++) {
			uint8_t sp = s == FLOATS ? rare[j] : 0;
			float u = operand(p, &d, s, a, j, &sp), v = operand(p, &d, s, b, j, &sp) * negate;
			float sum = u + v, vv = sum - u, err = (u - (sum - vv)) + (v - vv); /* TwoSum */
			y[j] = to_odd32(sum, err != 0, err > 0);
			rare[j] = sp | (uint8_t)(rdn & (sum == 0)); /* the sign of an exact zero sum */
			any |= rare[j];
		}
		break;
	case FPREF_OP_FMA:
		for (size_t j = 0; j < n; j++) {
			uint8_t sp = s == FLOATS ? rare[j] : 0;
			float u = operand(p, &d, s, a, j, &sp) * operand(p, &d, s, b, j, &sp), v = operand(p, &d, s, c, j, &sp);
			float sum = u + v, vv = sum - u, err = (u - (sum - vv)) + (v - vv);
			y[j] = to_odd32(sum, err != 0, err > 0);
			rare[j] = sp | (uint8_t)(rdn & (sum == 0));
			any |= rare[j];
		}
		break;
	case FPREF_OP_DIV:
		for (size_t j = 0; j < n; j++) {
			uint8_t sp = s == FLOATS ? rare[j] : 0;
			float u = operand(p, &d, s, a, j, &sp), v = operand(p, &d, s, b, j, &sp);
			float q = u / v, r = fmaf(-q, v, u); /* u - q v, exact */
			y[j] = to_odd32(q, r != 0, (r > 0) == (v > 0));
			rare[j] = sp | (uint8_t)(v == 0);
			any |= rare[j];
		}
		break;
	default: { /* sqrt; a negative operand goes to the core */
		float u[OP_LANES_CHUNK] = { 0 }, q[OP_LANES_CHUNK];
		for (size_t j = 0; j < n; j++) {
			uint8_t sp = s == FLOATS ? rare[j] : 0;
			u[j] = operand(p, &d, s, a, j, &sp);
			rare[j] = sp | (uint8_t)(u[j] < 0);
			any |= rare[j];
		}
		roots(isa, u, q, n);
		for (size_t j = 0; j < n; j++) {
			float r = fmaf(-q[j], q[j], u[j]); /* u - q^2, exact */
			y[j] = to_odd32(q[j], r != 0, r > 0);
		}
		break;
	}
	}
	return any;
}

OP_LANES32_CLONES bool fpref_emu_op_lanes32_compute(const struct op_lanes_plan *p, enum lanes_isa isa,
						    const void *const *operands, size_t i, size_t n,
						    uint32_t *restrict y, uint8_t *restrict rare, struct wide_out *w)
{
	const void *src[3];
	for (int k = 0; k < 3; k++) /* sqrt has no b, add no c */
		src[k] = operands[k] ? (const unsigned char *)operands[k] + i * p->bytes : NULL;
#if defined(__GNUC__) && defined(__x86_64__)
	if (p->wide32 && isa == LANES_ISA_AVX512) {
		int arity = fpref_op_arity(p->op);
		return fpref_emu_op32_bf16_odd_avx512(p->op, p->env.rounding == FPREF_RDN, src[0], arity > 1 ? src[1] : NULL,
						      arity > 2 ? src[2] : NULL, n, y, rare, w);
	}
	/* F16C where the plan found it (with AVX2); AVX-512's own steps where
	 * the context runs on it (fma decoded in the registers, rounded in the
	 * instruction) */
	if ((p->binary16_f16c || p->byte_halves) && p->op == FPREF_OP_FMA && isa == LANES_ISA_AVX512)
		return fpref_emu_op32_fma_avx512(&p->dec32, p->byte_halves, p->env.rounding == FPREF_RDN, src[0], src[1], src[2],
						 n, y, rare);
	if ((p->binary16_f16c || p->byte_halves) && isa != LANES_ISA_BASE) {
		float x[3][OP_LANES_CHUNK];
		uint16_t h[OP_LANES_CHUNK];
		memset(rare, 0, n);
		for (int k = 0; k < fpref_op_arity(p->op); k++) {
			const uint16_t *halves = src[k];
			if (isa == LANES_ISA_AVX512) {
				if (p->byte_halves)
					fpref_emu_op32_bytes_avx512(&p->dec32, src[k], n, x[k], rare);
				else
					fpref_emu_op32_binary16_avx512(src[k], n, x[k], rare);
				continue;
			}
			if (p->byte_halves) {
				as_halves(&p->dec32, src[k], n, h, rare);
				halves = h;
			} else {
				for (size_t j = 0; j < n; j++) /* NaN and inf */
					rare[j] |= (uint8_t)((halves[j] & 0x7C00) == 0x7C00);
			}
			halves_to_floats(isa, halves, n, x[k]);
		}
		return run(p, isa, FLOATS, x[0], x[1], x[2], n, y, rare);
	}
#else
	(void)w;
#endif
	if (p->ieee16)
		return run(p, isa, IEEE16, src[0], src[1], src[2], n, y, rare);
	if (p->byte_fields)
		return run(p, isa, BYTE_FIELDS, src[0], src[1], src[2], n, y, rare);
	return run(p, isa, BYTE_TABLE, src[0], src[1], src[2], n, y, rare);
}

void fpref_emu_op_lanes32_finish(const struct op_lanes_plan *p, enum lanes_isa isa, const struct wide_out *w,
				 void *out, uint8_t *flags, size_t n)
{
	(void)isa;
#if defined(__GNUC__) && defined(__x86_64__)
	fpref_emu_op32_classes_avx512(w, p->class_code, p->class_flags, out, flags, n);
#else
	(void)p, (void)w, (void)out, (void)flags, (void)n;
#endif
}

/* Whether f under env fits the route (the header comment's conditions). */
static bool fits(const struct fpref_format *f, const struct fpref_env *env)
{
	int p = f->man_bits + 1;
	int least = fpref_format_min_exponent(f) - f->man_bits, top = fpref_format_max_exponent(f) + 1;
	if (p > 12 || least < -40 || top > 41)
		return false;
	return env->rounding != FPREF_SR || p + (int)env->sr_width + 3 <= 24;
}

/* The decoding by fields of a byte format, kept where it gives every
 * pattern's value and specialness as the tables do. */
static bool byte_fields(struct op_lanes_plan *p)
{
	struct dec *d = &p->dec32;
	uint32_t bits = (uint32_t)fpref_format_container_bits(&p->f);
	d->mag_mask = (1u << (p->f.exp_bits + p->f.man_bits)) - 1;
	d->beyond = (1u << bits) - 1;
	d->special_from = d->mag_mask + 1;
	while (d->special_from > 0 && p->special[d->special_from - 1])
		d->special_from--;
	d->odd_special = UINT32_MAX;
	for (uint32_t b = 0; b <= d->beyond; b++)
		if (p->special[b] && (b & d->mag_mask) < d->special_from) {
			if (d->odd_special != UINT32_MAX)
				return false;
			d->odd_special = b;
		}
	for (uint32_t b = 0; b < 256; b++) {
		uint8_t special = 0;
		float x = by_fields(d, false, b, &special);
		if (special != p->special[b] || (!special && memcmp(&x, &p->value32[b], sizeof x) != 0))
			return false;
	}
	return true;
}

/* Whether a byte format's patterns convert through FP16's fields
 * (as_halves, then F16C) to its values: a CPU with F16C, at most 5
 * exponent bits and 10 trailing significand bits, checked on every
 * pattern. */
static bool byte_halves(struct op_lanes_plan *p)
{
#if defined(__GNUC__) && defined(__x86_64__)
	const struct dec *d = &p->dec32;
	if (!__builtin_cpu_supports("avx2") || p->f.exp_bits > 5 || p->f.man_bits > 10)
		return false;
	uint8_t b[256], special[256] = { 0 };
	uint16_t h[256];
	float x[256];
	for (int k = 0; k < 256; k++)
		b[k] = (uint8_t)k;
	as_halves(d, b, 256, h, special);
	halves_to_floats(LANES_ISA_AVX2, h, 256, x);
	for (int k = 0; k < 256; k++) {
		float v = x[k] * d->half_scale;
		if (!special[k] && memcmp(&v, &p->value32[k], sizeof v) != 0)
			return false;
	}
	return true;
#else
	(void)p;
	return false;
#endif
}

/* BF16's part: on a CPU with AVX-512 (its rounding in the instruction:
 * BF16's subnormals are FP32's, and a remainder below them is not exact),
 * not under stochastic rounding (beyond max, P3109's saturation follows
 * the direction the value rounded, which differs within the class below:
 * check_lanes found it under rule B), and the core's results for
 * 2^200 of each sign, which every exact value of 2^128 or more shares
 * (beyond max + half an ulp, 2^128 (1 - 2^-9), and rounded toward zero
 * with an unbounded exponent still beyond max), and for 2^-149, which
 * every exact value below it shares (below half BF16's least subnormal,
 * 2^-133).  The results between 2^-149 and FP32's normals stay in y,
 * rounded to odd on FP32's subnormal grid (16 places below BF16's least
 * subnormal: enough, as 2 are), and the FP32 lanes take them as BF16's own
 * subnormals (the same bias).  mul and div find where each result lies
 * without an instruction that rounds below FP32's normals (Zen 4 takes
 * several times as long over one: op_lanes32_x86.c's mul_step); their
 * chunks of FP32-normal results take exact32 first, faster still. */
static bool wide(struct op_lanes_plan *p)
{
#if defined(__GNUC__) && defined(__x86_64__)
	if (!p->bfloat16 || !fpref_emu_lanes_isa_available(LANES_ISA_AVX512) || p->env.rounding == FPREF_SR)
		return false;
	const struct fpref_format *f64 = fpref_format_get(FPREF_FORMAT_FLOAT64);
	for (int negative = 0; negative < 2; negative++) {
		unsigned flags = 0;
		uint64_t big = (uint64_t)negative << 63 | (uint64_t)(1023 + 200) << 52;
		if (fpref_emu_convert(f64, big, &p->f, &p->env, fpref_env_sr_random(&p->env, 0), &p->class_code[negative],
				      &flags) != 0)
			return false;
		p->class_flags[negative] = (uint8_t)flags;
		flags = 0;
		if (fpref_emu_convert(fpref_format_get(FPREF_FORMAT_FLOAT32), (uint64_t)negative << 31 | 1, &p->f, &p->env,
				      fpref_env_sr_random(&p->env, 0), &p->class_code[2 + negative], &flags) != 0)
			return false;
		p->class_flags[2 + negative] = (uint8_t)flags;
	}
	/* without flags the classes' codes are those of values y can hold:
	 * 2^-149 itself, and FLT_MAX (y's value for those beyond it) where it
	 * takes 2^200's code, as it does unless a policy tells them apart */
	p->codes_in_y = true;
	for (int negative = 0; negative < 2; negative++) {
		uint64_t code = 0;
		unsigned flags = 0;
		if (fpref_emu_convert(fpref_format_get(FPREF_FORMAT_FLOAT32), (uint64_t)negative << 31 | 0x7F7FFFFF, &p->f,
				      &p->env, fpref_env_sr_random(&p->env, 0), &code, &flags) != 0 ||
		    code != p->class_code[negative])
			p->codes_in_y = false;
	}
	return fpref_emu_lanes_plan(fpref_format_get(FPREF_FORMAT_FLOAT32), &p->f, &p->env, &p->conv32);
#else
	(void)p;
	return false;
#endif
}

bool fpref_emu_op_lanes32_plan(struct op_lanes_plan *p)
{
	p->wide32 = !fits(&p->f, &p->env) && wide(p);
#if defined(__GNUC__) && defined(__x86_64__)
	/* BF16 mul: its exact products need no rounding to odd (every mode,
	 * sr too: the conversion lanes round the exact value); div: rounded to
	 * odd at 24 bits, which stands for the quotient where 8 + 2 <= 24 (sr
	 * with r bits: 8 + r + 3 <= 24, fits' rule); the chunks out of FP32's
	 * normals go on by the FP64 route */
	bool div_fits = p->env.rounding != FPREF_SR || 8 + (int)p->env.sr_width + 3 <= 24;
	p->exact32 = p->bfloat16 && (p->op == FPREF_OP_MUL || (p->op == FPREF_OP_DIV && div_fits)) &&
		     fpref_emu_lanes_isa_available(LANES_ISA_AVX512) &&
		     fpref_emu_lanes_plan(fpref_format_get(FPREF_FORMAT_FLOAT32), &p->f, &p->env, &p->conv32);
#endif
	if (!fits(&p->f, &p->env))
		return false;
	struct dec *d = &p->dec32;
	d->m = (uint32_t)p->f.man_bits;
	d->top = (1u << p->f.exp_bits) - 1;
	d->rebias = (uint32_t)(127 - p->f.bias);
	d->sign_shift = (uint32_t)(p->f.exp_bits + p->f.man_bits);
	d->sub_scale = (float)p->sub_scale;
	p->byte_fields = !p->ieee16 && byte_fields(p);
	d->half_scale = p->binary16_f16c ? 1 : (float)ldexp(1, 15 - p->f.bias);
	p->byte_halves = p->byte_fields && byte_halves(p);
	return fpref_emu_lanes_plan(fpref_format_get(FPREF_FORMAT_FLOAT32), &p->f, &p->env, &p->conv32);
}
