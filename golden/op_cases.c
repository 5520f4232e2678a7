/* Structured cases of an operation: operands whose results fall where
 * kernels go wrong (NaN payloads, exact zeros, the overflow band, ties,
 * the subnormal edge, orderings, and every pair of a narrow format).
 * Its own file: fpref_golden_op_structured is called by tests as well as
 * by generate.c, and the families share nothing with the other inputs but
 * the pattern helpers (generate_internal.h) and the NaN payloads. */
#include "fpref_emu.h"
#include "round_core.h"
#include "fpref_golden.h"
#include "generate_internal.h"

/* ---- operations: results at the places kernels get wrong ---- */

struct op_cases {
	fpref_golden_emit_fn *emit;
	void *ctx;
	enum fpref_op op;
	const struct fpref_format *f;
	uint64_t seed, counter;
	int p;                       /* precision */
};

static uint64_t next_random(struct op_cases *c)
{
	return fpref_sr_stream(c->seed ^ 0x6f70636173657321ull, c->counter++);
}

/* The pattern nearest sig * 2^exp (rne, saturating). */
static uint64_t make(const struct fpref_format *f, bool negative, fpref_u128 sig, int32_t exp)
{
	struct fpref_env env;
	fpref_env_default(&env);
	env.overflow = FPREF_OVERFLOW_SAT;
	unsigned flags = 0;
	return fpref_emu_round_pack(f, &env, 0, negative, exp, sig, false, &flags);
}

/* A random significand of exactly p bits. */
static uint64_t full_significand(struct op_cases *c)
{
	uint64_t top = 1ull << (c->p - 1);
	return top | (next_random(c) & (top - 1));
}

/* A random p-bit significand times 2^(base + a random 0..span-1), drawn in
 * that order (one statement each: the order of a call's arguments is
 * unspecified, and the files must not depend on the compiler). */
static uint64_t random_near(struct op_cases *c, bool negative, int32_t base, unsigned span)
{
	uint64_t sig = full_significand(c);
	int32_t e = base + (int32_t)(next_random(c) % span);
	return make(c->f, negative, sig, e);
}

static void op_vector(struct op_cases *c, uint64_t a, uint64_t b, uint64_t x)
{
	uint64_t in[3] = { a, b, x };
	for (int i = 0; i < fpref_op_arity(c->op); i++)
		if (!valid(c->f, in[i]))
			return;
	c->emit(c->ctx, in);
}

static uint64_t apply(struct op_cases *c, enum fpref_op op, uint64_t a, uint64_t b, enum fpref_rounding r)
{
	struct fpref_env env;
	fpref_env_default(&env);
	env.rounding = r;
	env.overflow = FPREF_OVERFLOW_SAT;
	uint64_t in[3] = { a, b, 0 }, out = 0;
	unsigned flags = 0;
	fpref_emu_op(op, c->f, in, &env, 0, &out, &flags);
	return out;
}

/* NaNs of many payloads and both signs in every operand position. */
static void nan_cases(struct op_cases *c, uint64_t one)
{
	uint64_t nans[2 * NAN_PAYLOADS];
	size_t nn = fpref_golden_nan_patterns(c->f, nans, 2 * NAN_PAYLOADS);
	enum fpref_op op = c->op;
	for (size_t i = 0; i < nn; i++) {
		uint64_t n = nans[i];
		if (fpref_op_is_compare(op))
			op_vector(c, n, n, 0);
		op_vector(c, n, one, one);
		op_vector(c, one, n, one);
		if (op == FPREF_OP_FMA)
			op_vector(c, one, one, n);
	}
}

/* Exact zeros of both signs: x - x, x + (-x), products and quotients of
 * zero, fma(a, b, -(a b)) with a b exact. */
static void zero_cases(struct op_cases *c)
{
	const struct fpref_format *f = c->f;
	enum fpref_op op = c->op;
	uint64_t sign = sign_of(f);
	for (int i = 0; i < 8; i++) {
		uint64_t x = random_near(c, false, -4 - (c->p - 1), 8);
		uint64_t zero = fpref_format_zero_bits(f, false), neg = i & 1 ? sign : 0;
		op_vector(c, x | neg, (x | neg) ^ (op == FPREF_OP_ADD ? sign : 0), 0);
		op_vector(c, x | neg, zero | (i & 2 ? sign : 0), 0);
		op_vector(c, zero | (i & 2 ? sign : 0), x | neg, 0);
		if (op == FPREF_OP_FMA) {
			uint64_t odd = 3 + 2 * (next_random(c) % 4);
			int32_t e = (int32_t)(next_random(c) % 4);
			uint64_t small = make(f, false, odd, e);
			uint64_t prod = apply(c, FPREF_OP_MUL, x, small, FPREF_RNE);
			op_vector(c, x | neg, small, prod ^ (neg ? 0 : sign));
		}
	}
	uint64_t zeros[2] = { fpref_format_zero_bits(f, false), fpref_format_zero_bits(f, true) };
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			op_vector(c, zeros[a], zeros[b], zeros[b]);
}

/* Results in the overflow band: just below, at and just above the tie
 * above max finite, and up to the next binade. */
static void overflow_cases(struct op_cases *c)
{
	const struct fpref_format *f = c->f;
	enum fpref_op op = c->op;
	uint64_t max = fpref_format_max_bits(f, false), step = 1ull << f->pad_bits, sign = sign_of(f);
	struct fpref_unpacked m;
	fpref_format_max_finite(f, &m);
	int32_t top = m.exponent + c->p - 1; /* exponent of max's leading bit */
	for (int i = 0; i < 64; i++) {
		uint64_t neg = i & 1 ? sign : 0, a = max - (uint64_t)(i / 2 % 2) * step, b, x = 0;
		if (op == FPREF_OP_ADD || op == FPREF_OP_SUB) {
			/* max + b with b in [h/2, h) or [h, 2h), h half an ulp of max */
			b = make(f, false, full_significand(c), top - 2 * c->p + 1 - (int32_t)(i / 4 % 2));
			op_vector(c, max | neg, b | (op == FPREF_OP_SUB ? neg ^ sign : neg), 0);
		} else if (op == FPREF_OP_MUL || op == FPREF_OP_FMA) {
			b = random_near(c, false, -(c->p - 1), 5);
			a = apply(c, FPREF_OP_DIV, max, b, i % 8 == 6 ? FPREF_RDN : FPREF_RUP);
			if (op == FPREF_OP_FMA)
				x = i & 4 ? fpref_format_zero_bits(f, false)
					  : random_near(c, false, top - 2 * c->p - 2, 3);
			op_vector(c, a | neg, b, x | neg);
		} else if (op == FPREF_OP_DIV) {
			/* a = b max rounded up, b in [1/2, 1): a / b a little above max */
			b = make(f, false, full_significand(c), -c->p);
			a = apply(c, FPREF_OP_MUL, max, b, FPREF_RUP);
			op_vector(c, a | neg, b, 0);
		}
	}
}

/* Products that are exact midpoints of the format (two odd significands
 * whose product has p + 1 bits), and fma of such a product with a c far
 * below it, whose sum double rounding through a wider format loses. */
static void tie_cases(struct op_cases *c)
{
	const struct fpref_format *f = c->f;
	enum fpref_op op = c->op;
	if (c->p < 3 || (op != FPREF_OP_MUL && op != FPREF_OP_FMA))
		return;
	int found = 0;
	for (int tries = 0; tries < 4000 && found < 32; tries++) {
		int bits_a = 2 + (int)(next_random(c) % (uint64_t)(c->p - 1));
		uint64_t A = (next_random(c) & ((1ull << (bits_a - 1)) - 1)) | 1ull << (bits_a - 1) | 1;
		int bits_b = c->p + 2 - bits_a;
		if (bits_b < 1 || bits_b > c->p)
			continue;
		uint64_t B = (bits_b > 1 ? (next_random(c) & ((1ull << (bits_b - 1)) - 1)) | 1ull << (bits_b - 1) : 1) | 1;
		fpref_u128 P = (fpref_u128)A * B;
		int len = 0;
		for (fpref_u128 t = P; t; t >>= 1)
			len++;
		if (len != c->p + 1)
			continue;
		found++;
		uint64_t neg = found & 1 ? sign_of(f) : 0;
		uint64_t a = make(f, false, A, -(bits_a - 1)), b = make(f, false, B, -(bits_b - 1) + (int32_t)(found % 3));
		if (op == FPREF_OP_MUL) {
			op_vector(c, a | neg, b, 0);
			continue;
		}
		int32_t e = len - 1 - (bits_a - 1) - (bits_b - 1) + (int32_t)(found % 3); /* the product's leading exponent */
		const int below[] = { c->p + 2, 25, 26, 54, 55 };
		for (size_t k = 0; k < sizeof below / sizeof below[0]; k++)
			op_vector(c, a | neg, b, make(f, (k + (size_t)found) % 2 != 0, 1, e - below[k]));
	}
}

/* Results at the top of the subnormal range, where rounding first at full
 * precision leaves one bit and a tie. */
static void subnormal_cases(struct op_cases *c)
{
	const struct fpref_format *f = c->f;
	enum fpref_op op = c->op;
	if (!f->subnormals || f->man_bits == 0 || (op != FPREF_OP_MUL && op != FPREF_OP_DIV && op != FPREF_OP_FMA))
		return;
	int32_t emin = fpref_format_min_exponent(f);
	for (int i = 0; i < 32; i++) {
		uint64_t neg = i & 1 ? sign_of(f) : 0;
		int32_t ea = (int32_t)(next_random(c) % 5) - 2;
		uint64_t a = make(f, false, full_significand(c), ea - (c->p - 1)), b;
		int32_t target = emin - 1 - (int32_t)(i / 2 % 3);
		if (op == FPREF_OP_DIV)
			b = make(f, false, full_significand(c), ea - target - (c->p - 1));
		else
			b = make(f, false, full_significand(c), target - ea - (c->p - 1));
		op_vector(c, a | neg, b, fpref_format_zero_bits(f, i & 2));
	}
}

/* The format's subnormals (least, 2, 3, a third, a half, the largest two)
 * of both signs as operands, beside one. */
static void subnormal_operands(struct op_cases *c, uint64_t one)
{
	const struct fpref_format *f = c->f;
	uint64_t mask = (1ull << f->man_bits) - 1;
	if (!f->subnormals || f->man_bits == 0 || !f->has_zero)
		return;
	const uint64_t subs[] = { 1, 2, 3, mask / 3, mask / 2, mask / 2 + 1, mask - 1, mask };
	for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
		for (int neg = 0; neg < 2; neg++) {
			uint64_t x = pattern(f, neg != 0, 0, subs[i]);
			op_vector(c, x, one, one);
			op_vector(c, one, x, x);
		}
}

/* Orderings of negative numbers and of the two zeros. */
static void compare_cases(struct op_cases *c)
{
	const struct fpref_format *f = c->f;
	uint64_t sign = sign_of(f);
	if (!sign)
		return;
	for (int i = 0; i < 16; i++) {
		uint64_t x = random_near(c, true, -4 - (c->p - 1), 8);
		uint64_t y = i & 1 ? x : random_near(c, true, -4 - (c->p - 1), 8);
		op_vector(c, x | sign, y | sign, 0);
		op_vector(c, x & ~sign, y | sign, 0);
	}
}

/* Formats of 8 bits or fewer: for every positive finite b, the a that puts
 * a * b (a / b) at each side of max finite and of each midpoint at the top
 * of the subnormal range. */
static void narrow_cases(struct op_cases *c)
{
	const struct fpref_format *f = c->f;
	enum fpref_op op = c->op;
	uint64_t max = fpref_format_max_bits(f, false), step = 1ull << f->pad_bits;
	if (fpref_format_width(f) > 8 || (op != FPREF_OP_MUL && op != FPREF_OP_DIV && op != FPREF_OP_FMA))
		return;
	if (op == FPREF_OP_FMA && fpref_format_width(f) <= 6) { /* every product, with c = 0 and the least of both signs */
		uint64_t cs[3] = { fpref_format_zero_bits(f, false), 1ull << f->pad_bits, (1ull << f->pad_bits) | sign_of(f) };
		for (uint64_t a = 0; a <= fpref_format_max_bits(f, true); a += step)
			for (uint64_t b = 0; b <= fpref_format_max_bits(f, true); b += step)
				for (int k = 0; k < 3; k++)
					op_vector(c, a, b, cs[k]);
		return;
	}
	enum fpref_op inverse = op == FPREF_OP_DIV ? FPREF_OP_MUL : FPREF_OP_DIV;
	struct fpref_unpacked least;
	fpref_format_min_positive(f, &least);
	uint64_t targets[8];
	size_t nt = 0;
	targets[nt++] = max;
	targets[nt++] = f->has_zero ? step : 0; /* the least positive: a step below it lies the tie above zero */
	if (f->subnormals && f->man_bits > 0) /* the largest subnormals: their ties sit below them */
		for (uint64_t m = (1ull << f->man_bits) - 1; m > 0 && nt < 4; m--)
			targets[nt++] = pattern(f, false, 0, m);
	(void)least;
	for (uint64_t b = step; b <= max; b += step) {
		if (!valid(f, b))
			continue;
		for (size_t t = 0; t < nt; t++)
			for (int up = 0; up < 2; up++) {
				uint64_t a = apply(c, inverse, targets[t], b, up ? FPREF_RUP : FPREF_RDN);
				op_vector(c, a, b, fpref_format_zero_bits(f, false));
				if (a >= step && !up)
					op_vector(c, a - step, b, fpref_format_zero_bits(f, false));
				if (a + step <= max && up)
					op_vector(c, a + step, b, fpref_format_zero_bits(f, false));
			}
	}
}

void fpref_golden_op_structured(enum fpref_op op, const struct fpref_format *f, uint64_t seed,
				fpref_golden_emit_fn *emit, void *ctx)
{
	struct op_cases c = { emit, ctx, op, f, seed, 0, fpref_format_precision(f) };
	if (f->pad_bits)
		return;
	narrow_cases(&c);
	if (!f->has_zero)
		return;
	struct fpref_unpacked one_value = { .cls = FPREF_CLASS_NORMAL, .significand = 1, .exponent = 0 };
	uint64_t one;
	if (fpref_encode(f, &one_value, &one) != 0)
		one = fpref_format_max_bits(f, false);
	nan_cases(&c, one);
	subnormal_operands(&c, one);
	if (fpref_op_is_compare(op)) {
		compare_cases(&c);
		return;
	}
	if (op == FPREF_OP_MIN || op == FPREF_OP_MAX)
		return;
	zero_cases(&c);
	if (op != FPREF_OP_SQRT)
		overflow_cases(&c);
	tie_cases(&c);
	subnormal_cases(&c);
}
