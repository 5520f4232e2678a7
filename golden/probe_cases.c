/* Probe inputs: families of dot products, each built so that one
 * parameter of a block-FMA unit decides the result (after Fasi, Higham,
 * Mikaitis and Pranesh 2021).  With B a power of two, s a term far below
 * it and j a position or a shift:
 *   block size      B, -B at positions 0 and 1 and s at position j: s is
 *                   cut off when it shares a block with B, kept when a
 *                   block boundary lies before it;
 *   fraction bits   B, -B, B 2^-j (and from c: c = B, -B, B 2^-j): the
 *                   small term survives the alignment iff j <= F;
 *   rounding        B + B + B(2^-j + 2^-j-1), B - B 2^-j: carries, ties and
 *                   renormalisation under rtz or rne;
 *   floor           tiny pairs 2^e, -2^(e-d), ties 2^e + half an ulp +
 *                   2^-d of it, and tiny c alone: below the floor the
 *                   alignment exponent stops falling, so terms that a
 *                   larger exponent would keep are cut off;
 *   C               c large against small products, c small against large
 *                   ones, c cancelling the products;
 * then a seeded tail of dense (one binade) and wide random cases that
 * catch what the families leave open.  Only inputs are built here; the
 * emulator (or the hardware) gives the results. */
#include <stdlib.h>
#include <string.h>

#include "fpref_golden_probe.h"

struct builder {
	const struct fpref_format *in_a, *in_b, *out;
	size_t K, width, count, cap;
	uint64_t *rows, *row;
	bool row_ok, failed;
};

static bool exact(const struct fpref_format *f, bool negative, uint64_t sig, int exp, uint64_t *bits)
{
	struct fpref_unpacked u = { .cls = FPREF_CLASS_NORMAL, .negative = negative, .significand = sig, .exponent = exp };
	return fpref_encode(f, &u, bits) == 0;
}

/* a * b = (-1)^negative sig 2^e with a (of in_a) a power of two, the two
 * as close in size as the formats allow; for two formats, failing that, b
 * (of in_b) the power of two and a the significand (the wider format
 * holds it). */
static bool product(const struct fpref_format *in_a, const struct fpref_format *in_b, bool negative, uint64_t sig,
		    int e, uint64_t *a, uint64_t *b)
{
	int half = e >= 0 ? e / 2 : -((-e + 1) / 2);
	for (int d = 0; d < 1200; d++) {
		int ea = half + (d % 2 ? (d + 1) / 2 : -(d / 2));
		if (exact(in_a, negative, 1, ea, a) && exact(in_b, false, sig, e - ea, b))
			return true;
	}
	for (int d = 0; d < 1200 && !fpref_format_same(in_a, in_b); d++) {
		int eb = half + (d % 2 ? (d + 1) / 2 : -(d / 2));
		if (exact(in_b, false, 1, eb, b) && exact(in_a, negative, sig, e - eb, a))
			return true;
	}
	return false;
}

static void begin(struct builder *b)
{
	if (b->count == b->cap && !b->failed) {
		size_t cap = b->cap ? 2 * b->cap : 1024;
		uint64_t *more = realloc(b->rows, cap * b->width * sizeof *more);
		if (!more) {
			b->failed = true;
			return;
		}
		b->rows = more;
		b->cap = cap;
	}
	if (b->failed)
		return;
	b->row = b->rows + b->count * b->width;
	for (size_t k = 0; k < 2 * b->K; k++)
		b->row[k] = fpref_format_zero_bits(k < b->K ? b->in_a : b->in_b, false);
	b->row[2 * b->K] = fpref_format_zero_bits(b->out, false);
	b->row_ok = true;
}

/* Product k = (-1)^negative sig 2^e. */
static void term(struct builder *b, size_t k, bool negative, uint64_t sig, int e)
{
	if (b->failed || k >= b->K || !product(b->in_a, b->in_b, negative, sig, e, &b->row[k], &b->row[b->K + k]))
		b->row_ok = false;
}

static void accumulator(struct builder *b, bool negative, uint64_t sig, int e)
{
	if (b->failed || !exact(b->out, negative, sig, e, &b->row[2 * b->K]))
		b->row_ok = false;
}

static void finish(struct builder *b)
{
	if (!b->failed && b->row_ok)
		b->count++;
}

struct span {
	int pmin, pmax; /* least and largest power of two a product can be */
	int omin, omax; /* the same for the output */
	int big;        /* B: the largest power of two whose sums stay finite */
};

static int least_exponent(const struct fpref_format *f)
{
	return fpref_format_min_exponent(f) - (f->subnormals ? f->man_bits : 0);
}

static struct span span_of(const struct fpref_format *in_a, const struct fpref_format *in_b,
			   const struct fpref_format *out)
{
	struct span s;
	s.pmin = least_exponent(in_a) + least_exponent(in_b);
	s.pmax = fpref_format_max_exponent(in_a) + fpref_format_max_exponent(in_b);
	s.omin = fpref_format_min_exponent(out) - (out->subnormals ? out->man_bits : 0);
	s.omax = fpref_format_max_exponent(out);
	s.big = s.pmax < s.omax - 3 ? s.pmax : s.omax - 3;
	return s;
}

/* Where block boundaries lie. */
static void block_family(struct builder *b, const struct span *s, int B)
{
	for (int far = 40; far >= 8; far -= 16)
		for (size_t j = 2; j < b->K; j++) {
			int e = B - far > s->pmin ? B - far : s->pmin;
			begin(b);
			term(b, 0, false, 1, B);
			term(b, 1, true, 1, B);
			term(b, j, false, 1, e);
			finish(b);
			/* the same with c: c and the first products share the first block */
			begin(b);
			accumulator(b, false, 1, B);
			term(b, 0, true, 1, B);
			term(b, j, j % 2 == 0, 1, e);
			finish(b);
		}
}

/* How many fraction bits a block keeps below its largest term. */
static void fraction_family(struct builder *b, int B)
{
	for (int j = 1; j <= FPREF_TC_MAX_FRAC + 4; j++)
		for (int v = 0; v < 4; v++) {
			begin(b);
			if (v < 2) {
				term(b, 0, false, 1, B);
				term(b, 1, true, 1, B);
				term(b, 2, v == 1, v == 1 ? 3 : 1, B - j);
			} else if (v == 2) {
				accumulator(b, false, 1, B);
				term(b, 0, true, 1, B);
				term(b, 1, false, 1, B - j);
			} else {
				accumulator(b, false, 1, B);
				term(b, 0, false, 1, B - j);
			}
			finish(b);
		}
}

/* Carries, ties and renormalisation of the block sum. */
static void rounding_family(struct builder *b, int B)
{
	for (int j = 1; j <= FPREF_TC_MAX_FRAC + 2; j++)
		for (int v = 0; v < 6; v++) {
			begin(b);
			switch (v) {
			case 0: /* 2B + B 2^-j (a tie at the right j) */
			case 1: /* 2B + 3 B 2^-j-1 (above the tie) */
				term(b, 0, false, 1, B);
				term(b, 1, false, 1, B);
				term(b, 2, false, v ? 3 : 1, B - j - v);
				break;
			case 2: /* B - B 2^-j: the sum falls a binade */
				term(b, 0, false, 1, B);
				term(b, 1, true, 1, B - j);
				break;
			case 3: /* 3B + B 2^-j + B 2^-j-2: carry past two bits */
				term(b, 0, false, 3, B);
				term(b, 1, false, 1, B);
				term(b, 2, false, 1, B - j);
				term(b, 3, false, 1, B - j - 2);
				break;
			case 4: /* negative: -(2B + 3 B 2^-j-1) */
				term(b, 0, true, 1, B);
				term(b, 1, true, 1, B);
				term(b, 2, true, 3, B - j - 1);
				break;
			default: /* c = B, products B 2^-j and B 2^-j: sub-ulp terms that add up */
				accumulator(b, false, 1, B);
				term(b, 0, false, 1, B - j);
				term(b, 1, false, 1, B - j);
				break;
			}
			finish(b);
		}
}

/* Tiny terms: the floor of the alignment exponent and gradual underflow. */
static void tiny_family(struct builder *b, const struct span *s)
{
	static const int gaps[] = { 1, 4, 8, 12, 16, 20, 24, 28, 32 };
	int lo = s->pmin > s->omin - 40 ? s->pmin : s->omin - 40, hi = 4;
	for (int e = lo; e <= hi; e++) {
		for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
			begin(b);
			term(b, 0, false, 1, e);
			term(b, 1, true, 1, e - gaps[g]);
			finish(b);
		}
		begin(b);
		term(b, 0, e % 2 != 0, 3, e);
		finish(b);
		/* 2^e, half its ulp in the output and a term below that: under
		 * rne the last decides the tie, if the alignment kept it */
		int half = (e - b->out->man_bits > s->omin ? e - b->out->man_bits : s->omin) - 1;
		for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
			begin(b);
			term(b, 0, false, 1, e);
			term(b, 1, false, 1, half);
			term(b, 2, false, 1, half - gaps[g]);
			finish(b);
		}
	}
	/* c alone, and c with a tiny product: only c sets the exponent */
	for (int e = s->omin; e <= hi; e++)
		for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g += 2) {
			begin(b);
			uint64_t sig = (1ull << gaps[g]) + 1;
			if (gaps[g] > b->out->man_bits)
				sig = 3;
			accumulator(b, false, sig, e - (sig == 3 ? 1 : gaps[g]));
			finish(b);
			begin(b);
			accumulator(b, true, 1, e);
			term(b, 0, false, 1, e - gaps[g] > s->pmin ? e - gaps[g] : s->pmin);
			finish(b);
		}
}

/* Where C enters: against small and large products, and cancelling them. */
static void c_family(struct builder *b, const struct span *s, int B)
{
	for (int j = 1; j <= FPREF_TC_MAX_FRAC + 2; j += 3) {
		int small = B - j > s->omin ? B - j : s->omin;
		begin(b); /* c small, the products large */
		accumulator(b, j % 2 == 0, 3, small);
		term(b, 0, false, 1, B);
		term(b, b->K - 1, false, 1, B - 1);
		finish(b);
		begin(b); /* c large, the products small */
		accumulator(b, false, 1, B + 1);
		term(b, 0, true, 3, B - j);
		term(b, b->K / 2, false, 1, B - j - 1);
		finish(b);
		begin(b); /* c cancels the first product, the last one remains */
		accumulator(b, true, 1, B);
		term(b, 0, false, 1, B);
		term(b, b->K - 1, false, 1, B - j);
		finish(b);
	}
	/* the sign of an exact zero */
	begin(b);
	accumulator(b, true, 1, B);
	term(b, 0, false, 1, B);
	finish(b);
	begin(b);
	term(b, 0, true, 1, B);
	term(b, 1, false, 1, B);
	finish(b);
}

/* Seeded cases: dense ones (every term within two binades, many
 * carries) and wide ones (exponents over 40 binades). */
static void random_family(struct builder *b, const struct span *s, uint64_t seed, size_t n)
{
	int man = b->in_a->man_bits > b->in_b->man_bits ? b->in_a->man_bits : b->in_b->man_bits;
	uint64_t sig_mask = (1ull << (man + 1)) - 1;
	for (size_t c = 0; c < n; c++) {
		int spread = c % 2 ? 40 : 2, centre = c % 4 == 3 ? s->big - 20 : 0;
		begin(b);
		for (size_t k = 0; k < b->K; k++) {
			uint64_t r = fpref_sr_stream(seed, c * (b->K + 1) + k);
			uint64_t sig = ((r >> 8) & sig_mask) | 1;
			int e = centre - (int)(r % (uint64_t)(spread + 1));
			if (!product(b->in_a, b->in_b, (r >> 7) & 1, sig, e, &b->row[k], &b->row[b->K + k])) {
				b->row[k] = fpref_format_zero_bits(b->in_a, false);
				b->row[b->K + k] = fpref_format_zero_bits(b->in_b, false);
			}
		}
		uint64_t r = fpref_sr_stream(seed, c * (b->K + 1) + b->K);
		if (r % 3)
			accumulator(b, (r >> 2) & 1, ((r >> 8) & 0xFFFFF) | 1, centre - 20 - (int)((r >> 3) % 4));
		finish(b);
	}
}

int fpref_golden_probe_inputs(const struct fpref_format *in, const struct fpref_format *out, size_t K, uint64_t seed,
		       uint64_t **rows, size_t *count)
{
	return fpref_golden_probe_inputs_pair(in, in, out, K, seed, rows, count);
}

int fpref_golden_probe_inputs_pair(const struct fpref_format *in_a, const struct fpref_format *in_b,
				   const struct fpref_format *out, size_t K, uint64_t seed, uint64_t **rows, size_t *count)
{
	if (K < 1 || K > 512 || !fpref_tc_input_ok(in_a) || !fpref_tc_input_ok(in_b))
		return -1;
	struct builder b = { in_a, in_b, out, K, 2 * K + 1, 0, 0, NULL, NULL, false, false };
	struct span s = span_of(in_a, in_b, out);
	int scales[3] = { s.big, 0, s.pmin / 2 > s.omin / 2 ? s.pmin / 2 : s.omin / 2 };
	for (int i = 0; i < 3; i++) {
		block_family(&b, &s, scales[i]);
		fraction_family(&b, scales[i]);
		rounding_family(&b, scales[i]);
		c_family(&b, &s, scales[i]);
	}
	tiny_family(&b, &s);
	random_family(&b, &s, seed, 400);
	if (b.failed) {
		free(b.rows);
		return -1;
	}
	*rows = b.rows;
	*count = b.count;
	return 0;
}
