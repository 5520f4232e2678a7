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

int fpref_emu_tc_fused_step(const struct fpref_format *in_a, const struct fpref_format *in_b, const uint64_t *a,
			    const uint64_t *b, size_t bstride, size_t len, uint64_t *acc)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	if (!fits(in_a, in_b))
		return -1;
	struct wide sum = { { 0 } };
	bool nan = false, pos_inf = false, neg_inf = false, all_neg_zero = true;
	for (size_t i = 0; i <= len; i++) {
		struct fpref_unpacked x, y;
		bool negative;
		if (i < len) {
			if (fpref_decode(in_a, a[i], &x) == FPREF_DECODE_INVALID ||
			    fpref_decode(in_b, b[i * bstride], &y) == FPREF_DECODE_INVALID)
				return -1;
			negative = x.negative != y.negative;
			bool zero = x.cls == FPREF_CLASS_ZERO || y.cls == FPREF_CLASS_ZERO;
			bool inf = x.cls == FPREF_CLASS_INF || y.cls == FPREF_CLASS_INF;
			if (x.cls == FPREF_CLASS_NAN || y.cls == FPREF_CLASS_NAN || (inf && zero)) {
				nan = true;
				continue;
			}
			if (inf) {
				*(negative ? &neg_inf : &pos_inf) = true;
				continue;
			}
			all_neg_zero = all_neg_zero && zero && negative;
			if (!zero)
				wide_add(&sum, negative, x.significand * y.significand, x.exponent + y.exponent);
		} else {
			if (fpref_decode(f32, *acc, &x) == FPREF_DECODE_INVALID)
				return -1;
			if (x.cls == FPREF_CLASS_NAN) {
				nan = true;
			} else if (x.cls == FPREF_CLASS_INF) {
				*(x.negative ? &neg_inf : &pos_inf) = true;
			} else {
				all_neg_zero = all_neg_zero && x.cls == FPREF_CLASS_ZERO && x.negative;
				if (x.cls != FPREF_CLASS_ZERO)
					wide_add(&sum, x.negative, x.significand, x.exponent);
			}
		}
	}
	if (nan || (pos_inf && neg_inf)) {
		fpref_format_nan_bits(f32, false, acc);
		return 0;
	}
	if (pos_inf || neg_inf) {
		*acc = neg_inf ? 0xFF800000 : 0x7F800000;
		return 0;
	}
	if (wide_zero(&sum)) { /* an exact zero: IEEE's sign under nearest even */
		*acc = all_neg_zero ? 0x80000000 : 0;
		return 0;
	}
	bool negative = sum.w[FUSED_WORDS - 1] >> 63;
	if (negative) { /* the magnitude: ~sum + 1 */
		for (size_t i = 0; i < FUSED_WORDS; i++)
			sum.w[i] = ~sum.w[i];
		wide_add(&sum, false, 1, FUSED_BASE);
	}
	int32_t lo = wide_top(&sum) - 63;
	struct fpref_env env;
	fpref_env_default(&env);
	unsigned flags = 0;
	*acc = fpref_emu_round_pack(f32, &env, 0, negative, FUSED_BASE + lo, (fpref_u128)wide_bits(&sum, lo),
				    lo > 0 && wide_below(&sum, lo), &flags);
	return 0;
}
