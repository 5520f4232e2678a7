/* Generation: the inputs of a job (every pattern, edge cases, a seeded
 * sample), each vector computed by the emulator and by the oracle, the
 * file written whole or not at all. */
#include <errno.h>
#include <fcntl.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fpref_emu.h"
#include "round_core.h"
#include "fpref_formats_file.h"
#include "fpref_formats_npy.h"
#include "fpref_golden.h"
#include "fpref_golden_probe.h"
#include "fpref_ref.h"
#include "fpref_emu_tc.h"

/* ---- a growing text buffer ---- */
struct text {
	char *s;
	size_t len, cap;
	bool failed;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 1 << 16;
		while (cap < t->len + n + 1)
			cap *= 2;
		char *bigger = realloc(t->s, cap);
		if (!bigger) {
			t->failed = true;
			return;
		}
		t->s = bigger;
		t->cap = cap;
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static void put_str(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

static void put_hex(struct text *t, const struct fpref_format *f, uint64_t bits)
{
	char hex[24];
	fpref_format_hex(f, bits, hex, sizeof hex);
	put_str(t, hex);
}

/* ---- inputs ---- */

static uint64_t pattern(const struct fpref_format *f, bool negative, uint64_t field, uint64_t mantissa)
{
	uint64_t bits = field << f->man_bits | (mantissa & ((1ull << f->man_bits) - 1));
	if (negative && f->is_signed)
		bits |= 1ull << (f->exp_bits + f->man_bits);
	return bits << f->pad_bits;
}

static uint64_t exponent_field_of(const struct fpref_format *f, uint64_t bits)
{
	return (bits >> (f->pad_bits + f->man_bits)) & ((1ull << f->exp_bits) - 1);
}

static bool valid(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	return fpref_decode(f, bits, &u) == FPREF_DECODE_OK;
}

static void add_unique(uint64_t *v, size_t *n, size_t max, const struct fpref_format *f, uint64_t bits)
{
	if (!valid(f, bits) || *n == max)
		return;
	for (size_t i = 0; i < *n; i++)
		if (v[i] == bits)
			return;
	v[(*n)++] = bits;
}

/* The values where formats have their edges: zeros, the subnormal range,
 * the least normal, one and its neighbours, the largest finite, inf, NaNs;
 * both signs. */
static size_t edge_values(const struct fpref_format *f, uint64_t *v, size_t max)
{
	size_t n = 0;
	uint64_t mask = (1ull << f->man_bits) - 1, top = (1ull << f->exp_bits) - 1;
	for (int sign = 0; sign < 2; sign++) {
		bool neg = sign == 1;
		add_unique(v, &n, max, f, pattern(f, neg, 0, 0));
		add_unique(v, &n, max, f, pattern(f, neg, 0, 1));
		add_unique(v, &n, max, f, pattern(f, neg, 0, mask));
		add_unique(v, &n, max, f, pattern(f, neg, 1, 0));
		add_unique(v, &n, max, f, pattern(f, neg, 1, 1));
		struct fpref_unpacked one = { .cls = FPREF_CLASS_NORMAL, .negative = neg, .significand = 1, .exponent = 0 };
		uint64_t b;
		if (fpref_encode(f, &one, &b) == 0) {
			add_unique(v, &n, max, f, b);
			add_unique(v, &n, max, f, b + (1ull << f->pad_bits));
			add_unique(v, &n, max, f, b - (1ull << f->pad_bits));
		}
		uint64_t m = fpref_format_max_bits(f, neg);
		add_unique(v, &n, max, f, m);
		add_unique(v, &n, max, f, m - (1ull << f->pad_bits));
		if (fpref_format_inf_bits(f, neg, &b))
			add_unique(v, &n, max, f, b);
		if (fpref_format_nan_bits(f, neg, &b))
			add_unique(v, &n, max, f, b);
		add_unique(v, &n, max, f, pattern(f, neg, top, 1));    /* a signaling NaN where IEEE */
		add_unique(v, &n, max, f, pattern(f, neg, top, mask)); /* all ones */
	}
	return n;
}

/* NaNs of an IEEE format with many payloads, quiet and signaling, both
 * signs: into out (2 * NAN_PAYLOADS at most), their count. */
#define NAN_PAYLOADS 11
static size_t nan_patterns(const struct fpref_format *f, uint64_t *out)
{
	if (f->specials != FPREF_SPECIALS_IEEE || f->man_bits < 2)
		return 0;
	uint64_t quiet = 1ull << (f->man_bits - 1), top = (1ull << f->exp_bits) - 1, mask = (1ull << f->man_bits) - 1;
	const uint64_t payloads[NAN_PAYLOADS] = { quiet,
						  quiet | 1,
						  quiet | 2,
						  quiet | (quiet >> 1),
						  mask,
						  quiet | (0x5555555555555555ull & (quiet - 1)),
						  1,
						  2,
						  quiet >> 1,
						  quiet - 1,
						  0x2AAAAAAAAAAAAAAAull & (quiet - 1) };
	size_t n = 0;
	for (size_t i = 0; i < NAN_PAYLOADS; i++)
		for (int neg = 0; neg < 2; neg++)
			if (payloads[i] & mask)
				out[n++] = pattern(f, neg != 0, top, payloads[i]);
	return n;
}

size_t fpref_golden_edge_values(const struct fpref_format *f, uint64_t *out, size_t max)
{
	return edge_values(f, out, max);
}

size_t fpref_golden_nan_patterns(const struct fpref_format *f, uint64_t *out, size_t max)
{
	uint64_t nans[2 * NAN_PAYLOADS];
	size_t n = nan_patterns(f, nans);
	if (n > max)
		n = max;
	memcpy(out, nans, n * sizeof *out);
	return n;
}

/* ---- conversions: the source values nearest every rounding threshold ---- */

/* A growing set of source patterns, sorted and made unique at the end. */
struct values {
	uint64_t *v;
	size_t n, cap;
	bool failed;
};

static void push(struct values *s, uint64_t bits)
{
	if (s->failed)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		uint64_t *bigger = realloc(s->v, cap * sizeof *bigger);
		if (!bigger) {
			s->failed = true;
			return;
		}
		s->v = bigger;
		s->cap = cap;
	}
	s->v[s->n++] = bits;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void sort_unique(struct values *s)
{
	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof *s->v, compare_u64);
	size_t k = 1;
	for (size_t i = 1; i < s->n; i++)
		if (s->v[i] != s->v[k - 1])
			s->v[k++] = s->v[i];
	s->n = k;
}

static uint64_t sign_of(const struct fpref_format *f)
{
	return f->is_signed ? 1ull << (f->exp_bits + f->man_bits + f->pad_bits) : 0;
}

/* A positive finite pattern of src (bits below its largest finite), both signs. */
static void push_both(struct values *s, const struct fpref_format *src, uint64_t bits)
{
	struct fpref_unpacked u;
	if (fpref_decode(src, bits, &u) != FPREF_DECODE_OK || u.cls == FPREF_CLASS_NAN || u.cls == FPREF_CLASS_INF)
		return;
	push(s, bits);
	if (src->is_signed)
		push(s, bits | sign_of(src));
}

/* The source values on both sides of the exact positive value sig * 2^exp
 * (the one equal to it, where there is one), and `reach` more on each side. */
static void around(struct values *s, const struct fpref_format *src, uint64_t sig, int32_t exp, int reach)
{
	struct fpref_env env;
	fpref_env_default(&env);
	env.overflow = FPREF_OVERFLOW_SAT;
	unsigned flags = 0;
	env.rounding = FPREF_RDN;
	uint64_t below = fpref_emu_round_pack(src, &env, 0, false, exp, (fpref_u128)sig, false, &flags);
	env.rounding = FPREF_RUP;
	uint64_t above = fpref_emu_round_pack(src, &env, 0, false, exp, (fpref_u128)sig, false, &flags);
	uint64_t step = 1ull << src->pad_bits, top = fpref_format_max_bits(src, false);
	for (int k = 0; k <= reach; k++) {
		if (below >= (uint64_t)k * step)
			push_both(s, src, below - (uint64_t)k * step);
		if (above + (uint64_t)k * step <= top)
			push_both(s, src, above + (uint64_t)k * step);
	}
}

/* The target values whose neighbourhoods hold its thresholds: every
 * positive finite value of a format of 8 bits or fewer; for wider ones the
 * zero, subnormal, least-normal, one, mid-range and largest binades, with
 * even and odd last bits. */
static void anchors(const struct fpref_format *t, struct values *a)
{
	uint64_t top = fpref_format_max_bits(t, false), step = 1ull << t->pad_bits;
	if (fpref_format_width(t) <= 8) {
		for (uint64_t b = 0; b <= top; b += step)
			push(a, b);
		return;
	}
	uint64_t mask = (1ull << t->man_bits) - 1, half = 1ull << (t->man_bits - 1);
	uint64_t field_top = exponent_field_of(t, top), mid = (uint64_t)t->bias / 2;
	const uint64_t spots[][2] = {
		{ 0, 0 }, { 0, 1 }, { 0, 2 }, { 0, 3 }, { 0, 4 }, { 0, 5 }, { 0, 6 }, { 0, 7 }, { 0, mask / 4 },
		{ 0, mask / 4 + 1 }, { 0, half - 1 }, { 0, half }, { 0, half + 1 }, { 0, mask - 1 },
		{ 0, mask }, { 1, 0 }, { 1, 1 }, { 1, 2 }, { mid, 0x5555555555555555ull & mask },
		{ mid, 0xAAAAAAAAAAAAAAAAull & mask }, { (uint64_t)t->bias - 1, mask }, { (uint64_t)t->bias, 0 },
		{ (uint64_t)t->bias, 1 }, { (uint64_t)t->bias, 2 }, { (uint64_t)t->bias, 3 },
		{ (uint64_t)t->bias + mid, 0x3333333333333333ull & mask }, { (uint64_t)t->bias + mid, 0xCCCCCCCCCCCCCCCCull & mask },
	};
	for (size_t i = 0; i < sizeof spots / sizeof spots[0]; i++) {
		uint64_t b = pattern(t, false, spots[i][0], spots[i][1]);
		if (b <= top)
			push(a, b);
	}
	for (uint64_t k = 0; k < 4 && k * step <= top; k++)
		push(a, top - k * step);
	(void)field_top;
}

/* Source patterns around every rounding threshold of the target: each
 * anchor value itself and the midpoint above it, as the nearest source
 * values on both sides and their neighbours; the overflow tie, the band up
 * to the next binade, values far beyond; values below half the least
 * positive; the source's subnormals and NaNs of many payloads.  Both signs. */
static void threshold_values(const struct fpref_format *src, const struct fpref_format *tgt, unsigned omit,
			     struct values *s)
{
	struct values a = { 0 };
	anchors(tgt, &a);
	uint64_t tmax = fpref_format_max_bits(tgt, false);
	for (size_t i = 0; i < a.n; i++) {
		struct fpref_unpacked u;
		if ((a.v[i] & sign_of(tgt)) || fpref_decode(tgt, a.v[i], &u) != FPREF_DECODE_OK)
			continue;
		if ((u.cls == FPREF_CLASS_ZERO || (!tgt->has_zero && a.v[i] == 0)) && !(omit & FPREF_GOLDEN_OMIT_MIDPOINTS)) {
			struct fpref_unpacked least;
			fpref_format_min_positive(tgt, &least);
			around(s, src, 1, least.exponent - 1, 2);     /* the tie above zero */
			around(s, src, 3, least.exponent - 2, 1);     /* between it and the least */
			around(s, src, 1, least.exponent - 2, 1);     /* below it */
			around(s, src, 1, least.exponent - 4, 1);
			if (u.cls == FPREF_CLASS_ZERO)
				continue;
		}
		around(s, src, u.significand, u.exponent, 1);
		if (a.v[i] != tmax) {
			if (!(omit & FPREF_GOLDEN_OMIT_MIDPOINTS))
				around(s, src, 2 * u.significand + 1, u.exponent - 1, 2);
			continue;
		}
		if (omit & FPREF_GOLDEN_OMIT_OVERFLOW)
			continue;
		/* the overflow band: (max, tie), the tie, [tie, max + ulp), beyond */
		around(s, src, 4 * u.significand + 1, u.exponent - 2, 1);
		around(s, src, 2 * u.significand + 1, u.exponent - 1, 3);
		around(s, src, 4 * u.significand + 3, u.exponent - 2, 1);
		around(s, src, u.significand + 1, u.exponent, 2);
		around(s, src, u.significand, u.exponent + 1, 0);
		around(s, src, u.significand, u.exponent + 8, 0);
		push_both(s, src, fpref_format_max_bits(src, false));
	}
	free(a.v);
	s->failed = s->failed || a.failed;
	uint64_t mask = (1ull << src->man_bits) - 1;
	if (src->subnormals && src->man_bits > 0 && src->has_zero) {
		const uint64_t subs[] = { 1, 2, 3, mask / 3, mask / 2, mask / 2 + 1, mask - 1, mask };
		for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
			push_both(s, src, pattern(src, false, 0, subs[i]));
	}
	uint64_t nans[2 * NAN_PAYLOADS];
	size_t nn = nan_patterns(src, nans);
	for (size_t i = 0; i < nn; i++)
		push(s, nans[i]);
}

/* A seeded operand: one time in four any pattern, otherwise finite with a
 * random exponent (near `near` when that is not UINT64_MAX). */
static uint64_t random_operand(const struct fpref_format *f, uint64_t seed, uint64_t index, uint64_t near)
{
	uint64_t top = (1ull << f->exp_bits) - 1;
	for (uint64_t k = 0;; k++) {
		uint64_t r = fpref_sr_stream(seed, 8 * index + k);
		uint64_t bits;
		if (r % 4 == 0 && k < 4)
			bits = (r >> 8) & (fpref_format_width(f) >= 56 ? ~0ull : (1ull << fpref_format_width(f)) - 1);
		else {
			uint64_t field = (r >> 2) % (top + 1);
			if (near != UINT64_MAX && (r >> 20) % 2) {
				int64_t shifted = (int64_t)near + (int64_t)((r >> 24) % 7) - 3;
				field = shifted < 0 ? 0 : (uint64_t)shifted > top ? top : (uint64_t)shifted;
			}
			uint64_t mantissa = r >> 28;
			if ((r >> 12) % 8 == 0)
				mantissa = (r >> 15) % 2 ? ~0ull : 0;
			bits = pattern(f, (r >> 16) & 1, field, mantissa) >> f->pad_bits;
		}
		bits <<= f->pad_bits;
		if (valid(f, bits))
			return bits;
	}
}

static uint64_t exponent_field(const struct fpref_format *f, uint64_t bits)
{
	return (bits >> (f->pad_bits + f->man_bits)) & ((1ull << f->exp_bits) - 1);
}

/* ---- one vector, both engines ---- */

struct job_state {
	const struct fpref_golden_job *job;
	struct text body;
	unsigned long vectors;
	char *err;
	size_t errlen;
	int status;
};

static void disagree(struct job_state *st, const uint64_t *in, int arity, uint64_t r1, unsigned f1, uint64_t r2,
		     unsigned f2)
{
	const struct fpref_golden_job *j = st->job;
	char inputs[128] = "", hex[24];
	for (int i = 0; i < arity; i++) {
		fpref_format_hex(&j->in, in[i], hex, sizeof hex);
		strncat(inputs, hex, sizeof inputs - strlen(inputs) - 2);
		strcat(inputs, " ");
	}
	snprintf(st->err, st->errlen,
		 "%s, case %lu (inputs %s): emulator %llx flags %02x, oracle %llx flags %02x: the engines disagree", j->path,
		 st->vectors + 1, inputs, (unsigned long long)r1, f1, (unsigned long long)r2, f2);
	st->status = -1;
}

static void vector(struct job_state *st, const uint64_t *in)
{
	if (st->status)
		return;
	const struct fpref_golden_job *j = st->job;
	int arity = j->kind == FPREF_GOLDEN_OP ? fpref_op_arity(j->op) : 1;
	uint64_t r1 = 0, r2 = 0;
	unsigned f1 = 0, f2 = 0;
	if (j->kind == FPREF_GOLDEN_CONVERT) {
		fpref_emu_convert(&j->in, in[0], &j->out, &j->env, 0, &r1, &f1);
		fpref_ref_convert(&j->in, in[0], &j->out, &j->env, 0, &r2, &f2);
	} else {
		fpref_emu_op(j->op, &j->in, in, &j->env, 0, &r1, &f1);
		fpref_ref_op(j->op, &j->in, in, &j->env, 0, &r2, &f2);
	}
	if (r1 != r2 || f1 != f2) {
		disagree(st, in, arity, r1, f1, r2, f2);
		return;
	}
	for (int i = 0; i < arity; i++) {
		put_hex(&st->body, &j->in, in[i]);
		put(&st->body, " ", 1);
	}
	char tail[32];
	if (j->kind == FPREF_GOLDEN_OP && fpref_op_is_compare(j->op))
		snprintf(tail, sizeof tail, "%u", (unsigned)r1);
	else
		fpref_format_hex(&j->out, r1, tail, sizeof tail);
	put_str(&st->body, tail);
	snprintf(tail, sizeof tail, " %02X\n", f1);
	put_str(&st->body, tail);
	st->vectors++;
}

/* Dot products where units differ (edge+random:N:K): after the N random
 * cases, DOT_STRUCTURED cases in four kinds, in turn: every product -0 (an
 * exact zero whose sign IEEE 754 and the H100's units give apart); tiny
 * products below the alignment floor; one product near one with the rest
 * straddling the F-bit cut; and a C far above or below the products. */
#define DOT_STRUCTURED 96

static uint64_t dot_input(const struct fpref_format *f, uint64_t r, int64_t field)
{
	uint64_t top = (1ull << f->exp_bits) - 1;
	if (field < 0)
		field = 0;
	if ((uint64_t)field >= top)
		field = (int64_t)top - 1;
	uint64_t b = pattern(f, r & 1, (uint64_t)field, r >> 20);
	return valid(f, b) ? b : 0;
}

/* Exactly 2^e in f (a subnormal where it must be; the nearest where f has no such value). */
static uint64_t dot_exact_power(const struct fpref_format *f, bool negative, int64_t e)
{
	struct fpref_env env;
	fpref_env_default(&env);
	env.overflow = FPREF_OVERFLOW_SAT;
	unsigned flags = 0;
	return fpref_emu_round_pack(f, &env, 0, negative, (int32_t)e, 1, false, &flags);
}

/* An input pattern of about 2^e (mantissa bits from r), the sign from r. */
static uint64_t dot_power(const struct fpref_format *f, uint64_t r, int64_t e, bool exact)
{
	return dot_input(f, exact ? r & 1 : r, f->bias + e);
}

static void dot_structured(const struct fpref_golden_job *j, unsigned long c, uint64_t *v)
{
	size_t K = j->K;
	const struct fpref_format *in = &j->in, *out = &j->out;
	int frac = j->model.frac, kind = (int)(c % 4), variant = (int)(c / 4 % 2), sub = (int)(c / 4 % 3);
	int floor = out->exp_bits == 8 ? j->model.floor_fp32 : j->model.floor_fp16;
	bool rne = (out->exp_bits == 8 ? j->model.round_fp32 : j->model.round_fp16) == FPREF_RNE;
	struct fpref_unpacked least;
	fpref_format_min_positive(out, &least);
	int64_t q_out = least.exponent;
	uint64_t sign = in->is_signed ? 1ull << (in->exp_bits + in->man_bits + in->pad_bits) : 0;
	for (size_t k = 0; k < K; k++) {
		uint64_t ra = fpref_sr_stream(j->seed ^ 0x646f74ull, (2 * K + 1) * c + k);
		uint64_t rb = fpref_sr_stream(j->seed ^ 0x646f74ull, (2 * K + 1) * c + K + k);
		int64_t ea = -2 + (int64_t)((ra >> 4) % 5), eb = -2 + (int64_t)((rb >> 4) % 5);
		bool exact = false;
		if (kind == 1 && sub == 0) { /* products just below the alignment floor, or in the least binades */
			int64_t t = floor == FPREF_TC_NO_FLOOR ? -2 * (int64_t)in->bias : floor - 1 - (int64_t)((ra >> 4) % 8);
			ea = t / 2;
			eb = t - t / 2;
		} else if (kind == 1) {
			/* sub 1: one negative product below half the output's least, the last (IEEE's -0 against +0);
			 * sub 2: the output's least (rtz) or its half (rne) below the floor, and terms that
			 * only a block aligned to them keeps, pulling it across (rtz: negative; rne: positive) */
			int64_t t = sub == 1 ? q_out - 2 - (int64_t)((ra >> 4) % 3)
					     : k == 0 ? q_out - (rne ? 1 : 0) : q_out - frac + 1 + (int64_t)((ra >> 4) % 2);
			if (sub == 1 && k + 1 < K) { /* in the last block: a later all-zero block would give +0 */
				v[k] = v[K + k] = fpref_format_zero_bits(in, false);
				continue;
			}
			v[k] = sub == 1 ? dot_power(in, ra, t / 2, false) & ~sign : dot_exact_power(in, false, t / 2);
			v[K + k] = dot_exact_power(in, sub == 1 || (k > 0 && !rne), t - t / 2);
			continue;
		} else if (kind == 2) { /* C at one, the first product at the output's tie, the rest below the F-bit cut */
			int64_t t = k == 0 ? -(int64_t)fpref_format_precision(out) : -frac - 2 - (int64_t)((ra >> 4) % 4);
			ea = t / 2;
			eb = t - t / 2;
			exact = k == 0;
		}
		v[k] = dot_power(in, exact ? 0 : ra, ea, exact);
		v[K + k] = dot_power(in, exact ? 0 : rb, eb, exact);
		if (kind == 0) /* a zero of the sign that makes the product -0 */
			v[K + k] = fpref_format_zero_bits(in, !(v[k] & sign));
		if (kind == 1 || kind == 2) { /* products of one sign: negative, or (2, variant 0) positive */
			v[k] &= ~sign;
			v[K + k] = (v[K + k] & ~sign) | (kind == 1 || variant ? sign : 0);
		}
	}
	uint64_t r = fpref_sr_stream(j->seed ^ 0x646f74ull, (2 * K + 1) * c + 2 * K);
	struct fpref_unpacked one = { .cls = FPREF_CLASS_NORMAL, .significand = 1, .exponent = 0 };
	if (kind == 0 || (kind == 1 && sub < 2))
		v[2 * K] = fpref_format_zero_bits(out, true);
	else if (kind == 1)
		v[2 * K] = fpref_format_zero_bits(out, false);
	else if (kind == 2) {
		/* variant 0: 1 + a tie + tiny terms (rounding to nearest goes up, a truncating block to even);
		 * variant 1: one ulp above 1 less tiny terms (truncation toward zero goes down only if they count) */
		fpref_encode(out, &one, &v[2 * K]);
		if (variant)
			v[2 * K] += 1ull << out->pad_bits;
		if (variant) {
			v[0] &= ~sign;
			v[K] = fpref_format_zero_bits(in, false);
		}
	} else /* C far above (absorbing the products) or far below them */
		v[2 * K] = pattern(out, (r >> 1) & 1, (uint64_t)out->bias + (r & 4 ? 12 : 0) - (r & 4 ? 0 : 12) + (r >> 4) % 4, r >> 20);
}

static void dot_cases(struct job_state *st)
{
	const struct fpref_golden_job *j = st->job;
	size_t K = j->K;
	uint64_t *v = malloc((2 * K + 1) * sizeof *v);
	if (!v) {
		st->status = -1;
		snprintf(st->err, st->errlen, "out of memory");
		return;
	}
	int bias = j->in.bias;
	uint64_t *probe = NULL;
	size_t cases = j->random_count;
	if (j->probe && fpref_golden_probe_inputs(&j->in, &j->out, K, j->seed, &probe, &cases) != 0) {
		st->status = -1;
		snprintf(st->err, st->errlen, "%s: no probe inputs for %s", j->path, j->in.name);
	}
	unsigned long structured = j->edge && !probe && !(j->omit & FPREF_GOLDEN_OMIT_DOT_CASES) ? DOT_STRUCTURED : 0;
	for (unsigned long c = 0; c < cases + structured && !st->status; c++) {
		if (c >= cases) {
			dot_structured(j, c - cases, v);
			goto computed;
		}
		if (probe)
			memcpy(v, probe + c * (2 * K + 1), (2 * K + 1) * sizeof *v);
		/* finite inputs within a few binades of one, mixed signs; a nonzero c half the time */
		for (size_t k = 0; k < 2 * K && !probe; k++) {
			uint64_t r = fpref_sr_stream(j->seed, (2 * K + 1) * c + k);
			uint64_t field = (uint64_t)(bias - 3) + (r >> 4) % 5;
			v[k] = pattern(&j->in, r & 1, field, r >> 20);
			if (!valid(&j->in, v[k]) || exponent_field(&j->in, v[k]) == (1ull << j->in.exp_bits) - 1)
				v[k] = 0;
		}
		uint64_t r = fpref_sr_stream(j->seed, (2 * K + 1) * c + 2 * K);
		if (!probe)
			v[2 * K] = r % 2 ? 0 : pattern(&j->out, (r >> 1) & 1, (uint64_t)j->out.bias - 2 + (r >> 4) % 6, r >> 20);
	computed:;
		uint64_t d1 = 0, d2 = 0;
		fpref_emu_tc_dot(&j->model, &j->in, v, v + K, K, v[2 * K], &j->out, &d1);
		fpref_ref_tc_dot(&j->model, &j->in, v, v + K, K, v[2 * K], &j->out, &d2);
		if (d1 != d2) {
			snprintf(st->err, st->errlen, "%s, case %lu: emulator %llx, oracle %llx: the engines disagree", j->path,
				 c + 1, (unsigned long long)d1, (unsigned long long)d2);
			st->status = -1;
			break;
		}
		for (size_t k = 0; k <= 2 * K; k++) {
			put_hex(&st->body, k < 2 * K ? &j->in : &j->out, v[k]);
			put(&st->body, " ", 1);
		}
		put_hex(&st->body, &j->out, d1);
		put(&st->body, "\n", 1);
		st->vectors++;
	}
	free(probe);
	free(v);
}

#define EDGE_MAX 96

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
	size_t nn = nan_patterns(c->f, nans);
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

/* A structured case into the file, both engines agreeing (vector). */
static void emit_vector(void *ctx, const uint64_t in[3])
{
	vector(ctx, in);
}

static void op_structured(struct job_state *st)
{
	const struct fpref_golden_job *j = st->job;
	if (j->omit & FPREF_GOLDEN_OMIT_OP_CASES)
		return;
	fpref_golden_op_structured(j->op, &j->in, j->seed, emit_vector, st);
}

/* A conversion's edge vectors: the source's edge values and the values
 * around every threshold of the target, sorted by pattern. */
static void convert_edges(struct job_state *st)
{
	const struct fpref_golden_job *j = st->job;
	uint64_t e[EDGE_MAX];
	size_t n = edge_values(&j->in, e, EDGE_MAX);
	struct values s = { 0 };
	for (size_t i = 0; i < n; i++)
		push(&s, e[i]);
	threshold_values(&j->in, &j->out, j->omit, &s);
	sort_unique(&s);
	if (s.failed) {
		snprintf(st->err, st->errlen, "out of memory");
		st->status = -1;
	}
	for (size_t i = 0; i < s.n && !st->status; i++)
		if (valid(&j->in, s.v[i]))
			vector(st, &s.v[i]);
	free(s.v);
}

/* A seeded source value for a conversion: three times in four a finite
 * value inside the target's range (its subnormals to just above its
 * largest finite, log-uniform), otherwise any operand. */
static uint64_t random_in_range(const struct fpref_format *src, const struct fpref_format *tgt, uint64_t seed,
				uint64_t index)
{
	uint64_t r = fpref_sr_stream(seed, 4 * index + 3);
	if (r % 4 == 0)
		return random_operand(src, seed, 3 * index, UINT64_MAX);
	struct fpref_unpacked least, most;
	fpref_format_min_positive(tgt, &least);
	fpref_format_max_finite(tgt, &most);
	struct fpref_unpacked src_least;
	fpref_format_min_positive(src, &src_least);
	int32_t lo = least.exponent - 2, hi = most.exponent + 64 - __builtin_clzll(most.significand);
	if (lo < src_least.exponent)
		lo = src_least.exponent; /* below the source's least: no value, only zeros again */
	if (hi < lo)
		hi = lo;
	int32_t e = lo + (int32_t)((r >> 2) % (uint64_t)(hi - lo + 1));
	uint64_t sig = fpref_sr_stream(seed, 4 * index + 2) | 1ull << 63;
	struct fpref_env env;
	fpref_env_default(&env);
	env.rounding = FPREF_RTZ;
	env.overflow = FPREF_OVERFLOW_SAT;
	unsigned flags = 0;
	uint64_t bits = fpref_emu_round_pack(src, &env, 0, (r >> 1) & 1, e - 63, (fpref_u128)sig, false, &flags);
	return valid(src, bits) ? bits : random_operand(src, seed, 3 * index, UINT64_MAX);
}

int fpref_golden_compute(const struct fpref_golden_job *j, char **body, size_t *len, unsigned long *vectors, char *err,
			 size_t errlen)
{
	struct job_state st = { j, { NULL, 0, 0, false }, 0, err, errlen, 0 };
	put(&st.body, "", 0);
	if (j->kind == FPREF_GOLDEN_DOT)
		dot_cases(&st);
	else {
		int arity = j->kind == FPREF_GOLDEN_OP ? fpref_op_arity(j->op) : 1;
		uint64_t in[3] = { 0, 0, 0 };
		if (j->exhaustive) {
			int w = fpref_format_width(&j->in);
			uint64_t per = 1ull << w, total = arity == 1 ? per : arity == 2 ? per * per : per * per * per;
			for (uint64_t i = 0; i < total && !st.status; i++) {
				uint64_t rest = i;
				bool ok = true;
				for (int a = 0; a < arity; a++) {
					in[a] = (rest % per) << j->in.pad_bits;
					rest /= per;
					ok = ok && valid(&j->in, in[a]);
				}
				if (ok)
					vector(&st, in);
			}
		}
		if (j->edge && j->kind == FPREF_GOLDEN_CONVERT)
			convert_edges(&st);
		else if (j->edge) {
			op_structured(&st);
			uint64_t e[EDGE_MAX];
			size_t n = edge_values(&j->in, e, EDGE_MAX);
			size_t m = arity == 3 ? (n < 16 ? n : 16) : n; /* fma: triples of the first 16 */
			for (size_t x = 0; x < n && !st.status; x++)
				for (size_t y = 0; y < (arity > 1 ? (arity == 3 ? m : n) : 1) && !st.status; y++)
					for (size_t z = 0; z < (arity > 2 ? m : 1) && !st.status; z++) {
						if (arity == 3 && x >= m)
							continue;
						in[0] = e[x];
						in[1] = e[y];
						in[2] = e[z];
						vector(&st, in);
					}
		}
		for (unsigned long c = 0; c < j->random_count && !st.status; c++) {
			if (j->kind == FPREF_GOLDEN_CONVERT) {
				in[0] = random_in_range(&j->in, &j->out, j->seed, c);
				vector(&st, in);
				continue;
			}
			in[0] = random_operand(&j->in, j->seed, 3 * c, UINT64_MAX);
			for (int a = 1; a < arity; a++)
				in[a] = random_operand(&j->in, j->seed, 3 * c + (uint64_t)a, exponent_field(&j->in, in[0]));
			vector(&st, in);
		}
	}
	if (st.body.failed && !st.status) {
		snprintf(err, errlen, "out of memory");
		st.status = -1;
	}
	if (st.status) {
		free(st.body.s);
		return -1;
	}
	*body = st.body.s;
	*len = st.body.len;
	*vectors = st.vectors;
	return 0;
}

/* ---- the file ---- */

static void describe_formats(const struct fpref_golden_job *j, char *buf, size_t len)
{
	if (j->kind == FPREF_GOLDEN_OP)
		snprintf(buf, len, "%s", j->in.name);
	else if (j->kind == FPREF_GOLDEN_CONVERT)
		snprintf(buf, len, "%s -> %s", j->in.name, j->out.name);
	else
		snprintf(buf, len, "%s %s -> %s", j->model.gpu, j->in.name, j->out.name);
}

/* "# descriptor NAME exp=E man=M bias=B specials=S subnormals=on|off
 * zero=on|off signed|unsigned bits=W": the whole format, so that a reader
 * needs no catalogue (and a custom format is as plain as a named one). */
static int describe_format(const struct fpref_format *f, char *buf, size_t len)
{
	return snprintf(buf, len, "# descriptor %s exp=%d man=%d bias=%d specials=%s subnormals=%s zero=%s %s bits=%d\n",
			f->name, f->exp_bits, f->man_bits, f->bias, fpref_specials_name(f->specials),
			f->subnormals ? "on" : "off", f->has_zero ? "on" : "off", f->is_signed ? "signed" : "unsigned",
			fpref_format_container_bits(f));
}

void fpref_golden_header(const struct fpref_golden_job *j, const char *suite, unsigned long vectors, char *buf,
			 size_t len)
{
	(void)vectors;
	char formats[200], env[256], gen[160], columns[64];
	describe_formats(j, formats, sizeof formats);
	if (j->kind == FPREF_GOLDEN_DOT)
		fpref_tc_model_describe(&j->model, j->out.name, env, sizeof env);
	else {
		fpref_env_describe(&j->env, env, sizeof env);
		size_t n = strlen(env);
		snprintf(env + n, sizeof env - n, " (%s)", j->env_text);
	}
	int n = 0;
	if (j->exhaustive)
		n = snprintf(gen, sizeof gen, "exhaustive");
	if (j->edge)
		n += snprintf(gen + n, sizeof gen - (size_t)n, "%sedge", n ? "+" : "");
	if (j->probe)
		snprintf(gen + n, sizeof gen - (size_t)n, "probe:%u seed %llu", j->K, (unsigned long long)j->seed);
	else if (j->random_count && j->K)
		snprintf(gen + n, sizeof gen - (size_t)n, "random:%lu:%u seed %llu", j->random_count, j->K,
			 (unsigned long long)j->seed);
	else if (j->random_count)
		snprintf(gen + n, sizeof gen - (size_t)n, "%srandom:%lu seed %llu", n ? "+" : "", j->random_count,
			 (unsigned long long)j->seed);
	int arity = j->kind == FPREF_GOLDEN_OP ? fpref_op_arity(j->op) : 1;
	if (j->kind == FPREF_GOLDEN_DOT)
		snprintf(columns, sizeof columns, "a_1..a_%u b_1..b_%u c d", j->K, j->K);
	else
		snprintf(columns, sizeof columns, "%s result flags", arity == 1 ? "a" : arity == 2 ? "a b" : "a b c");
	int at = snprintf(buf, len,
		 "# fpref golden vectors, format %d\n"
		 "# fpref %s\n"
		 "# suite %s\n"
		 "# op %s\n"
		 "# formats %s\n"
		 "# env %s\n"
		 "# oracle GNU MPFR %s\n"
		 "# generator %s\n"
		 "# columns %s\n",
		 FPREF_GOLDEN_FORMAT_VERSION, PACKAGE_VERSION, suite,
		 j->kind == FPREF_GOLDEN_OP ? fpref_op_name(j->op) : j->kind == FPREF_GOLDEN_CONVERT ? "convert" : "dot",
		 formats, env, mpfr_get_version(), gen, columns);
	/* format 2: the descriptors, and what the flags column's bits mean */
	if (at > 0 && (size_t)at < len)
		at += describe_format(&j->in, buf + at, len - (size_t)at);
	if (at > 0 && (size_t)at < len && j->kind != FPREF_GOLDEN_OP)
		at += describe_format(&j->out, buf + at, len - (size_t)at);
	if (at > 0 && (size_t)at < len && j->kind != FPREF_GOLDEN_DOT)
		snprintf(buf + at, len - (size_t)at, "# flags hex, the OR of inexact 01 underflow 02 overflow 04 infinite 08 "
						     "invalid 10 (SoftFloat's order)\n");
}

static int make_dirs(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		int r = mkdir(path, 0777);
		*p = '/';
		if (r != 0 && errno != EEXIST)
			return -1;
	}
	return 0;
}

int fpref_golden_write(const char *dir, const struct fpref_golden_job *j, const char *suite, const char *body,
		       size_t len, unsigned long vectors, char *err, size_t errlen)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, j->path);
	if (make_dirs(path) != 0) {
		snprintf(err, errlen, "%s: cannot create its folder (%s)", path, strerror(errno));
		return -1;
	}
	struct fpref_atomic file = { 0 };
	if (fpref_atomic_open(&file, path, err, errlen) != 0)
		return -1;
	bool ok = fpref_golden_put(file.f, j, suite, body, len, vectors) == 0;
	return fpref_atomic_commit(&file, ok, err, errlen);
}

int fpref_golden_put(FILE *f, const struct fpref_golden_job *j, const char *suite, const char *body, size_t len,
		     unsigned long vectors)
{
	char header[2048], hex[65];
	fpref_golden_header(j, suite, vectors, header, sizeof header);
	struct fpref_sha256 sha;
	fpref_golden_sha256_init(&sha);
	fpref_golden_sha256_update(&sha, header, strlen(header)); /* format 2: the header is covered too */
	fpref_golden_sha256_update(&sha, body, len);
	fpref_golden_sha256_hex(&sha, hex);
	return fputs(header, f) >= 0 && fwrite(body, 1, len, f) == len && fprintf(f, "# sha256 %s\n", hex) > 0 ? 0 : -1;
}

static size_t item_bytes(const struct fpref_format *f)
{
	size_t b = (size_t)(fpref_format_container_bits(f) + 7) / 8;
	return b <= 1 ? 1 : b <= 2 ? 2 : b <= 4 ? 4 : 8;
}

static const char *unsigned_descr(size_t bytes)
{
	return bytes == 1 ? "|u1" : bytes == 2 ? "<u2" : bytes == 4 ? "<u4" : "<u8";
}

int fpref_golden_write_npy(const char *dir, const struct fpref_golden_job *j, const char *body, char *err,
			   size_t errlen)
{
	size_t n = 0;
	for (const char *p = body; *p; p++)
		n += *p == '\n';
	size_t nin = j->kind == FPREF_GOLDEN_DOT ? 2 * (size_t)j->K + 1
		     : j->kind == FPREF_GOLDEN_OP ? (size_t)fpref_op_arity(j->op)
						  : 1;
	size_t in_bytes = item_bytes(&j->in), out_bytes = item_bytes(&j->out);
	if (j->kind == FPREF_GOLDEN_DOT && out_bytes > in_bytes)
		in_bytes = out_bytes; /* c sits among the inputs */
	struct fpref_golden_line *l = malloc(sizeof *l);
	unsigned char *inputs = calloc(n * nin + 1, in_bytes), *results = calloc(n + 1, out_bytes), *flags = calloc(n + 1, 1);
	char *line = malloc(1 << 16);
	int status = l && inputs && results && flags && line ? 0 : -1;
	err[0] = '\0';
	size_t row = 0;
	for (const char *p = body; status == 0 && *p; row++) {
		const char *nl = strchr(p, '\n');
		size_t len = (size_t)(nl - p);
		if (len >= 1 << 16) {
			status = -1;
			break;
		}
		memcpy(line, p, len);
		line[len] = '\0';
		p = nl + 1;
		if (fpref_golden_parse_line(j, line, l, err, errlen) != 0) {
			status = -1;
			break;
		}
		for (size_t k = 0; k < nin; k++)
			memcpy(inputs + (row * nin + k) * in_bytes, &l->in[k], in_bytes); /* little-endian host */
		memcpy(results + row * out_bytes, &l->result, out_bytes);
		flags[row] = (unsigned char)(l->flags < 0 ? 0 : l->flags);
	}
	char names[3][300], path[1400];
	int arrays = fpref_golden_arrays(j, names); /* inputs, results, and flags except for dot */
	size_t shape[2] = { n, nin };
	snprintf(path, sizeof path, "%s/%s", dir, names[0]);
	if (status == 0 && make_dirs(path) != 0)
		status = -1;
	if (status == 0) {
		snprintf(path, sizeof path, "%s/%s", dir, names[0]);
		status = fpref_npy_write(path, unsigned_descr(in_bytes), shape, 2, inputs, in_bytes, err, errlen);
	}
	if (status == 0) {
		snprintf(path, sizeof path, "%s/%s", dir, names[1]);
		status = fpref_npy_write(path, unsigned_descr(out_bytes), shape, 1, results, out_bytes, err, errlen);
	}
	if (status == 0 && arrays == 3) {
		snprintf(path, sizeof path, "%s/%s", dir, names[2]);
		status = fpref_npy_write(path, "|u1", shape, 1, flags, 1, err, errlen);
	}
	if (status != 0 && !err[0])
		snprintf(err, errlen, "%s: cannot make its arrays (out of memory, or its folder)", j->path);
	free(l);
	free(inputs);
	free(results);
	free(flags);
	free(line);
	return status;
}

bool fpref_golden_is_done(const char *dir, const struct fpref_golden_job *j, const char *suite,
			  unsigned long *vectors)
{
	char path[1024], header[2048], err[256];
	snprintf(path, sizeof path, "%s/%s", dir, j->path);
	struct fpref_golden_file g;
	if (access(path, F_OK) != 0 || fpref_golden_read(path, &g, err, sizeof err) != 0)
		return false;
	fpref_golden_header(j, suite, 0, header, sizeof header);
	bool same = g.header_len == strlen(header) && memcmp(g.text, header, g.header_len) == 0;
	*vectors = g.nlines;
	fpref_golden_file_free(&g);
	return same;
}
