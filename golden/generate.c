/* Generation: the vectors of a job (every pattern, edge cases, a seeded
 * sample), each computed by the emulator and by the oracle and kept only
 * where the two agree, into the body of its golden file.  The inputs are
 * chosen in inputs.c and op_cases.c; write.c stores the file. */
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "round_core.h"
#include "fpref_golden.h"
#include "fpref_golden_probe.h"
#include "fpref_ref.h"
#include "fpref_emu_tc.h"
#include "generate_internal.h"

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

/* The exponents of f's normal binades, least and largest: where
 * dot_power's random significand stays within a factor of two. */
static void power_range(const struct fpref_format *f, int64_t *lo, int64_t *hi)
{
	*lo = fpref_format_min_exponent(f);
	*hi = fpref_format_max_exponent(f);
}

/* A product of about 2^t split between A's exponent and B's: half each,
 * as ever for one format; for two, moved so that each lies in its own
 * format's normal range where the sum allows (E5M2's from 2^-14, E4M3's
 * from 2^-6). */
static void split_exponent(const struct fpref_format *fa, const struct fpref_format *fb, int64_t t, int64_t *ea,
			   int64_t *eb)
{
	*ea = t / 2;
	*eb = t - t / 2;
	if (fpref_format_same(fa, fb))
		return;
	int64_t lo_a, hi_a, lo_b, hi_b;
	power_range(fa, &lo_a, &hi_a);
	power_range(fb, &lo_b, &hi_b);
	if (*eb < lo_b || *eb > hi_b)
		*eb = *eb < lo_b ? lo_b : hi_b;
	*ea = t - *eb;
	if (*ea < lo_a || *ea > hi_a) {
		*ea = *ea < lo_a ? lo_a : hi_a;
		*eb = t - *ea;
	}
}

static void dot_structured(const struct fpref_golden_job *j, unsigned long c, uint64_t *v)
{
	size_t K = j->K;
	/* in: A's format, inb: B's (the same but for a pair A*B) */
	const struct fpref_format *in = &j->in, *inb = &j->in_b, *out = &j->out;
	int frac = j->model.frac, kind = (int)(c % 4), variant = (int)(c / 4 % 2), sub = (int)(c / 4 % 3);
	int floor = out->exp_bits == 8 ? j->model.floor_fp32 : j->model.floor_fp16;
	bool rne = (out->exp_bits == 8 ? j->model.round_fp32 : j->model.round_fp16) == FPREF_RNE;
	struct fpref_unpacked least;
	fpref_format_min_positive(out, &least);
	int64_t q_out = least.exponent;
	uint64_t sign = in->is_signed ? 1ull << (in->exp_bits + in->man_bits + in->pad_bits) : 0;
	uint64_t sign_b = inb->is_signed ? 1ull << (inb->exp_bits + inb->man_bits + inb->pad_bits) : 0;
	/* kind 2's C: one, or for two formats whose least normal product cannot
	 * fall below the F-bit cut under one (E5M2 x E4M3 reaches 2^-20,
	 * tcgen05 keeps 25 bits), 2^lift, everything else lifted with it */
	int64_t lift = 0;
	if (!fpref_format_same(in, inb)) {
		int64_t lo_a, hi_a, lo_b, hi_b;
		power_range(in, &lo_a, &hi_a);
		power_range(inb, &lo_b, &hi_b);
		lift = lo_a + lo_b + frac + 5 > 0 ? lo_a + lo_b + frac + 5 : 0;
	}
	for (size_t k = 0; k < K; k++) {
		uint64_t ra = fpref_sr_stream(j->seed ^ 0x646f74ull, (2 * K + 1) * c + k);
		uint64_t rb = fpref_sr_stream(j->seed ^ 0x646f74ull, (2 * K + 1) * c + K + k);
		int64_t ea = -2 + (int64_t)((ra >> 4) % 5), eb = -2 + (int64_t)((rb >> 4) % 5);
		bool exact = false;
		if (kind == 1 && sub == 0) { /* products just below the alignment floor, or in the least binades */
			int64_t t = floor == FPREF_TC_NO_FLOOR ? -(int64_t)in->bias - (int64_t)inb->bias
							       : floor - 1 - (int64_t)((ra >> 4) % 8);
			split_exponent(in, inb, t, &ea, &eb);
		} else if (kind == 1) {
			/* sub 1: one negative product below half the output's least, the last (IEEE's -0 against +0);
			 * sub 2: the output's least (rtz) or its half (rne) below the floor, and terms that
			 * only a block aligned to them keeps, pulling it across (rtz: negative; rne: positive) */
			int64_t t = sub == 1 ? q_out - 2 - (int64_t)((ra >> 4) % 3)
					     : k == 0 ? q_out - (rne ? 1 : 0) : q_out - frac + 1 + (int64_t)((ra >> 4) % 2);
			if (sub == 1 && k + 1 < K) { /* in the last block: a later all-zero block would give +0 */
				v[k] = fpref_format_zero_bits(in, false);
				v[K + k] = fpref_format_zero_bits(inb, false);
				continue;
			}
			split_exponent(in, inb, t, &ea, &eb);
			v[k] = sub == 1 ? dot_power(in, ra, ea, false) & ~sign : dot_exact_power(in, false, ea);
			v[K + k] = dot_exact_power(inb, sub == 1 || (k > 0 && !rne), eb);
			continue;
		} else if (kind == 2) { /* C at one, the first product at the output's tie, the rest below the F-bit cut */
			int64_t t = k == 0 ? -(int64_t)fpref_format_precision(out) : -frac - 2 - (int64_t)((ra >> 4) % 4);
			split_exponent(in, inb, t + lift, &ea, &eb);
			exact = k == 0;
		}
		v[k] = dot_power(in, exact ? 0 : ra, ea, exact);
		v[K + k] = dot_power(inb, exact ? 0 : rb, eb, exact);
		if (kind == 0) /* a zero of the sign that makes the product -0 */
			v[K + k] = fpref_format_zero_bits(inb, !(v[k] & sign));
		if (kind == 1 || kind == 2) { /* products of one sign: negative, or (2, variant 0) positive */
			v[k] &= ~sign;
			v[K + k] = (v[K + k] & ~sign_b) | (kind == 1 || variant ? sign_b : 0);
		}
	}
	uint64_t r = fpref_sr_stream(j->seed ^ 0x646f74ull, (2 * K + 1) * c + 2 * K);
	struct fpref_unpacked one = { .cls = FPREF_CLASS_NORMAL, .significand = 1, .exponent = (int32_t)lift };
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
			v[K] = fpref_format_zero_bits(inb, false);
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
	uint64_t *probe = NULL;
	size_t cases = j->random_count;
	if (j->probe && fpref_golden_probe_inputs_pair(&j->in, &j->in_b, &j->out, K, j->seed, &probe, &cases) != 0) {
		st->status = -1;
		if (fpref_format_same(&j->in, &j->in_b))
			snprintf(st->err, st->errlen, "%s: no probe inputs for %s", j->path, j->in.name);
		else
			snprintf(st->err, st->errlen, "%s: no probe inputs for %s*%s", j->path, j->in.name, j->in_b.name);
	}
	if (j->cases) { /* the suite's own lines, computed like the rest */
		probe = j->case_in;
		cases = j->ncases;
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
			const struct fpref_format *f = k < K ? &j->in : &j->in_b;
			uint64_t r = fpref_sr_stream(j->seed, (2 * K + 1) * c + k);
			uint64_t field = (uint64_t)(f->bias - 3) + (r >> 4) % 5;
			v[k] = pattern(f, r & 1, field, r >> 20);
			if (!valid(f, v[k]) || exponent_field(f, v[k]) == (1ull << f->exp_bits) - 1)
				v[k] = 0;
		}
		uint64_t r = fpref_sr_stream(j->seed, (2 * K + 1) * c + 2 * K);
		if (!probe)
			v[2 * K] = r % 2 ? 0 : pattern(&j->out, (r >> 1) & 1, (uint64_t)j->out.bias - 2 + (r >> 4) % 6, r >> 20);
	computed:;
		uint64_t d1 = 0, d2 = 0;
		fpref_emu_tc_dot(&j->model, &j->in, &j->in_b, v, v + K, K, v[2 * K], &j->out, &d1);
		fpref_ref_tc_dot(&j->model, &j->in, &j->in_b, v, v + K, K, v[2 * K], &j->out, &d2);
		if (d1 != d2) {
			snprintf(st->err, st->errlen, "%s, case %lu: emulator %llx, oracle %llx: the engines disagree", j->path,
				 c + 1, (unsigned long long)d1, (unsigned long long)d2);
			st->status = -1;
			break;
		}
		for (size_t k = 0; k <= 2 * K; k++) {
			put_hex(&st->body, k < K ? &j->in : k < 2 * K ? &j->in_b : &j->out, v[k]);
			put(&st->body, " ", 1);
		}
		put_hex(&st->body, &j->out, d1);
		put(&st->body, "\n", 1);
		st->vectors++;
	}
	if (!j->cases)
		free(probe);
	free(v);
}

#define EDGE_MAX 96


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
	size_t n = fpref_golden_edge_values(&j->in, e, EDGE_MAX);
	struct values s = { 0 };
	for (size_t i = 0; i < n; i++)
		push(&s, e[i]);
	fpref_golden_threshold_values(&j->in, &j->out, j->omit, &s);
	fpref_golden_sort_unique(&s);
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
		return fpref_golden_random_operand(src, seed, 3 * index, UINT64_MAX);
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
	return valid(src, bits) ? bits : fpref_golden_random_operand(src, seed, 3 * index, UINT64_MAX);
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
			size_t n = fpref_golden_edge_values(&j->in, e, EDGE_MAX);
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
			in[0] = fpref_golden_random_operand(&j->in, j->seed, 3 * c, UINT64_MAX);
			for (int a = 1; a < arity; a++)
				in[a] = fpref_golden_random_operand(&j->in, j->seed, 3 * c + (uint64_t)a, exponent_field(&j->in, in[0]));
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

unsigned fpref_golden_threads(unsigned wanted)
{
	return wanted > 1 && !mpfr_buildopt_tls_p() ? 1 : wanted;
}
