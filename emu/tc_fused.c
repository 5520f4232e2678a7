/* The FP32 path's fused groups (fpref_formats_tc_model.h, fused: CDNA1's
 * v_mfma_* f16 and bf16): a group's products and the accumulator summed
 * exactly in a fixed-point word array, then rounded once by the core.
 * The array spans every place two operands of the formats the models take
 * and an FP32 C can reach, so nothing is truncated and the core sees the
 * exact sum's leading 64 bits and a true sticky bit. */
#include "round_core.h"
#include "tc_internal.h"

/* Bit 0 of the array is the place 2^FUSED_BASE; FUSED_WORDS words hold
 * the largest product (below 2^256: two BF16 maxima), C and the carries of
 * up to FPREF_TC_MAX_BLOCK terms, in two's complement. */
#define FUSED_WORDS 10
#define FUSED_BASE (-300)

struct wide {
	uint64_t w[FUSED_WORDS];
};

/* x += (negative ? -1 : 1) * sig * 2^(place - FUSED_BASE) */
static void wide_add(struct wide *x, bool negative, uint64_t sig, int32_t place)
{
	int32_t shift = place - FUSED_BASE;
	size_t word = (size_t)(shift / 64);
	unsigned bit = (unsigned)(shift % 64);
	uint64_t part[FUSED_WORDS] = { 0 };
	part[word] = sig << bit;
	if (bit && word + 1 < FUSED_WORDS)
		part[word + 1] = sig >> (64 - bit);
	uint64_t carry = negative ? 1 : 0; /* -v is ~v + 1 */
	for (size_t i = 0; i < FUSED_WORDS; i++) {
		uint64_t v = negative ? ~part[i] : part[i];
		uint64_t s = x->w[i] + v;
		uint64_t t = s + carry;
		carry = (s < v || t < s) ? 1 : 0;
		x->w[i] = t;
	}
}

static bool wide_zero(const struct wide *x)
{
	for (size_t i = 0; i < FUSED_WORDS; i++)
		if (x->w[i])
			return false;
	return true;
}

/* The bits [lo, lo + 64) of x, lo > -64 (bits below 0 read as zero). */
static uint64_t wide_bits(const struct wide *x, int32_t lo)
{
	if (lo < 0)
		return x->w[0] << -lo;
	size_t i = (size_t)lo / 64;
	unsigned s = (unsigned)lo % 64;
	uint64_t r = x->w[i] >> s;
	if (s && i + 1 < FUSED_WORDS)
		r |= x->w[i + 1] << (64 - s);
	return r;
}

/* Whether any bit of x below place lo >= 0 is set. */
static bool wide_below(const struct wide *x, int32_t lo)
{
	size_t i = (size_t)lo / 64;
	unsigned s = (unsigned)lo % 64;
	for (size_t j = 0; j < i; j++)
		if (x->w[j])
			return true;
	return s && (x->w[i] & (((uint64_t)1 << s) - 1));
}

/* The place of x's leading bit (x nonzero). */
static int32_t wide_top(const struct wide *x)
{
	size_t i = FUSED_WORDS - 1;
	while (!x->w[i])
		i--;
	return (int32_t)(i * 64) + 63 - __builtin_clzll(x->w[i]);
}

/* The least place a nonzero value of f has, and one above its largest. */
static int32_t least_place(const struct fpref_format *f)
{
	struct fpref_unpacked u;
	fpref_format_min_positive(f, &u);
	return u.exponent;
}

static int32_t top_place(const struct fpref_format *f)
{
	struct fpref_unpacked u;
	fpref_format_max_finite(f, &u);
	return u.exponent + 64 - __builtin_clzll(u.significand);
}

/* Whether every term of the group, and the sum of as many as a group
 * holds, lies in the array with its sign bit (it does for every format the
 * models take: fpref_tc_input_ok's). */
static bool fits(const struct fpref_format *in_a, const struct fpref_format *in_b)
{
	return least_place(in_a) + least_place(in_b) >= FUSED_BASE &&
	       top_place(in_a) + top_place(in_b) + 8 < FUSED_BASE + FUSED_WORDS * 64 - 1;
}

/* The group's finite nonzero terms: magnitude sig * 2^place, and sign. */
struct term {
	uint64_t sig;
	int32_t place;
	bool negative;
};

/* The terms summed exactly, rounded once to FP32 (nearest even, env).
 * When they all lie within 56 bits of the least one's place (most groups
 * of values of like size), a 64-bit sum holds the exact value with room
 * for the carries of FPREF_TC_MAX_BLOCK + 1 terms; within 120 bits (FP16
 * products always are, and C near them), a 128-bit sum; otherwise the
 * word array. */
static uint64_t sum_terms(const struct fpref_emu_round_target *f32, const struct fpref_env *env, const struct term *t,
			  size_t n, bool all_neg_zero)
{
	unsigned flags = 0;
	if (n == 0) /* an exact zero: IEEE's sign under nearest even */
		return all_neg_zero ? 0x80000000 : 0;
	int32_t least = t[0].place, top = t[0].place + 64 - __builtin_clzll(t[0].sig);
	for (size_t i = 1; i < n; i++) {
		least = t[i].place < least ? t[i].place : least;
		int32_t lead = t[i].place + 64 - __builtin_clzll(t[i].sig);
		top = lead > top ? lead : top;
	}
	if (top - least <= 56) { /* 65 terms below 2^56 sum below 2^63: 64 bits hold it */
		int64_t sum = 0;
		for (size_t i = 0; i < n; i++) {
			int64_t v = (int64_t)(t[i].sig << (t[i].place - least));
			sum = t[i].negative ? sum - v : sum + v;
		}
		if (sum == 0)
			return all_neg_zero ? 0x80000000 : 0;
		return fpref_emu_round_pack_target(f32, env, 0, sum < 0, least,
						   (fpref_u128)(sum < 0 ? 0 - (uint64_t)sum : (uint64_t)sum), false, &flags);
	}
	if (top - least <= 120) {
		fpref_u128 sum = 0;
		for (size_t i = 0; i < n; i++) {
			fpref_u128 v = (fpref_u128)t[i].sig << (t[i].place - least);
			sum = t[i].negative ? sum - v : sum + v;
		}
		if (sum == 0)
			return all_neg_zero ? 0x80000000 : 0;
		bool negative = sum >> 127;
		return fpref_emu_round_pack_target(f32, env, 0, negative, least, negative ? 0 - sum : sum, false, &flags);
	}
	struct wide sum = { { 0 } };
	for (size_t i = 0; i < n; i++)
		wide_add(&sum, t[i].negative, t[i].sig, t[i].place);
	if (wide_zero(&sum))
		return all_neg_zero ? 0x80000000 : 0;
	bool negative = sum.w[FUSED_WORDS - 1] >> 63;
	if (negative) { /* the magnitude: ~sum + 1 */
		for (size_t i = 0; i < FUSED_WORDS; i++)
			sum.w[i] = ~sum.w[i];
		wide_add(&sum, false, 1, FUSED_BASE);
	}
	int32_t lo = wide_top(&sum) - 63;
	return fpref_emu_round_pack_target(f32, env, 0, negative, FUSED_BASE + lo, (fpref_u128)wide_bits(&sum, lo),
					   lo > 0 && wide_below(&sum, lo), &flags);
}

/* One group: *acc (FP32 bits) plus the len products of a and b (decoded,
 * operand i of each at i * stride), summed exactly and rounded once. */
static uint64_t fused_group(const struct fpref_emu_round_target *f32, const struct fpref_env *env,
			    const struct fpref_format *in_a, const struct fpref_format *in_b, const struct operands *a,
			    const struct operands *b, size_t stride, size_t len, uint64_t acc)
{
	struct term t[FPREF_TC_MAX_BLOCK + 1];
	size_t n = 0;
	bool nan = false, pos_inf = false, neg_inf = false, all_neg_zero = true;
	for (size_t i = 0; i < len; i++) {
		size_t ia = i * stride;
		size_t ib = ia;
		unsigned kinds = (unsigned)a->kind[ia] | (unsigned)b->kind[ib];
		bool negative = (a->negative[ia] ^ b->negative[ib]) != 0;
		if ((kinds & NOT_A_NUMBER) || ((kinds & INF) && (kinds & ZERO)))
			nan = true;
		else if (kinds & INF)
			*(negative ? &neg_inf : &pos_inf) = true;
		else if (!(kinds & ZERO))
			t[n++] = (struct term){ (uint64_t)a->sig[ia] * b->sig[ib],
						 a->exp[ia] - in_a->man_bits + b->exp[ib] - in_b->man_bits, negative };
		all_neg_zero = all_neg_zero && (kinds & ZERO) && negative;
	}
	/* the accumulator, an FP32 pattern (the only output of these rows): its
	 * fields read in place, as tree_start reads them */
	uint32_t field = (uint32_t)(acc >> 23) & 0xFF, man = (uint32_t)acc & 0x7FFFFF;
	bool c_negative = (acc >> 31) & 1;
	if (field == 0xFF && man)
		nan = true;
	else if (field == 0xFF)
		*(c_negative ? &neg_inf : &pos_inf) = true;
	else if (field || man)
		t[n++] = (struct term){ field ? man | 0x800000 : man, field ? (int32_t)field - 150 : -149, c_negative };
	all_neg_zero = all_neg_zero && !field && !man && c_negative;
	uint64_t bits;
	if (nan || (pos_inf && neg_inf))
		fpref_format_nan_bits(f32->format, false, &bits);
	else if (pos_inf || neg_inf)
		bits = neg_inf ? 0xFF800000 : 0x7F800000;
	else
		bits = sum_terms(f32, env, t, n, all_neg_zero);
	return bits;
}

uint64_t fpref_emu_tc_fused_group(const struct plan *p, const struct operands *a, const struct operands *b, size_t len,
				  uint64_t c)
{
	struct fpref_emu_round_target f32;
	fpref_emu_round_target_init(&f32, fpref_format_get(FPREF_FORMAT_FLOAT32));
	struct fpref_env env;
	fpref_env_default(&env);
	return fused_group(&f32, &env, p->in_a, p->in_b, a, b, 1, len, c);
}

uint64_t fpref_emu_tc_fused_chain(const struct plan *p, const struct operands *a, const struct operands *b, size_t K,
				  uint64_t c)
{
	size_t n = (size_t)p->block;
	struct fpref_emu_round_target f32; /* not the plan's target, narrowed to the row's F */
	fpref_emu_round_target_init(&f32, fpref_format_get(FPREF_FORMAT_FLOAT32));
	struct fpref_env env;
	fpref_env_default(&env);
	for (size_t k0 = 0; k0 < K; k0 += n) {
		struct operands x = operands_at(a, k0), y = operands_at(b, k0);
		c = fused_group(&f32, &env, p->in_a, p->in_b, &x, &y, 1, K - k0 < n ? K - k0 : n, c);
	}
	return c;
}

int fpref_emu_tc_fused_step(const struct fpref_format *in_a, const struct fpref_format *in_b, const uint64_t *a,
			    const uint64_t *b, size_t bstride, size_t len, uint64_t *acc)
{
	struct fpref_unpacked u;
	if (!fits(in_a, in_b) || len > FPREF_TC_MAX_BLOCK ||
	    fpref_decode(fpref_format_get(FPREF_FORMAT_FLOAT32), *acc, &u) == FPREF_DECODE_INVALID)
		return -1;
	struct operands x, y;
	if (operands_new(&x, len) != 0)
		return -1;
	if (operands_new(&y, len) != 0) {
		operands_free(&x);
		return -1;
	}
	int r = 0;
	for (size_t i = 0; i < len && r == 0; i++)
		r = decode_one(in_a, a[i], &x, i) | decode_one(in_b, b[i * bstride], &y, i);
	struct fpref_emu_round_target f32;
	fpref_emu_round_target_init(&f32, fpref_format_get(FPREF_FORMAT_FLOAT32));
	struct fpref_env env;
	fpref_env_default(&env);
	if (r == 0)
		*acc = fused_group(&f32, &env, in_a, in_b, &x, &y, 1, len, *acc);
	operands_free(&x);
	operands_free(&y);
	return r ? -1 : 0;
}
