/* Running the mutant catalogue (mutant_catalogue.c): a mutant's result
 * for one input, the kill matrix of a golden body (which mutants its
 * vectors expose, and how many of the inputs could), and a whole suite
 * judged on threads. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "round_core.h"
#include "fpref_golden_mutants.h"
#include "fpref_emu_tc.h"
#include "mutants_internal.h"

/* ---- running a mutant ---- */

static bool is_nan(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	return fpref_decode(f, bits, &u) >= 0 && u.cls == FPREF_CLASS_NAN;
}

static bool is_inf(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	return fpref_decode(f, bits, &u) >= 0 && u.cls == FPREF_CLASS_INF;
}

static uint64_t sign_bit(const struct fpref_format *f)
{
	return 1ull << (f->exp_bits + f->man_bits + f->pad_bits);
}

/* The correct computation under another environment. */
static int run_env(const struct fpref_golden_job *j, const struct fpref_env *env, const uint64_t *in, uint64_t *r,
		   unsigned *flags)
{
	*flags = 0;
	if (j->kind == FPREF_GOLDEN_CONVERT)
		return fpref_emu_convert(&j->in, in[0], &j->out, env, 0, r, flags);
	return fpref_emu_op(j->op, &j->in, in, env, 0, r, flags);
}

/* The exact result's magnitude above max finite: rounded away from zero it
 * overflows (the flag of one of the two directed modes). */
static bool above_max(const struct fpref_golden_job *j, const uint64_t *in)
{
	struct fpref_env env = j->env;
	env.overflow = FPREF_OVERFLOW_IEEE;
	uint64_t r;
	unsigned f1, f2;
	env.rounding = FPREF_RUP;
	run_env(j, &env, in, &r, &f1);
	env.rounding = FPREF_RDN;
	run_env(j, &env, in, &r, &f2);
	return ((f1 | f2) & FPREF_FLAG_OVERFLOW) != 0;
}

static bool negative_result(const struct fpref_golden_job *j, const uint64_t *in)
{
	struct fpref_env env = j->env;
	env.rounding = FPREF_RTZ;
	env.overflow = FPREF_OVERFLOW_SAT;
	uint64_t r;
	unsigned flags;
	run_env(j, &env, in, &r, &flags);
	return j->out.is_signed && (r & sign_bit(&j->out)) && !is_nan(&j->out, r);
}

/* What a value far beyond the range gives under the job's environment. */
static uint64_t overflowed(const struct fpref_golden_job *j, bool negative)
{
	unsigned flags = 0;
	return fpref_emu_round_pack(&j->out, &j->env, 0, negative, 100000, 1, false, &flags);
}

static int via_format(const struct fpref_golden_job *j, const struct fpref_format *via, const uint64_t *in,
		      uint64_t *result)
{
	struct fpref_env first = j->env;
	first.overflow = FPREF_OVERFLOW_IEEE;
	first.ftz = first.daz = false;
	uint64_t mid;
	unsigned flags = 0;
	if (j->kind == FPREF_GOLDEN_CONVERT) {
		if (fpref_emu_convert(&j->in, in[0], via, &first, 0, &mid, &flags) != 0)
			return -1;
	} else {
		uint64_t wide[3];
		int arity = fpref_op_arity(j->op);
		for (int a = 0; a < arity; a++)
			if (fpref_emu_convert(&j->in, in[a], via, &first, 0, &wide[a], &flags) != 0)
				return -1;
		if (fpref_emu_op(j->op, via, wide, &first, 0, &mid, &flags) != 0)
			return -1;
	}
	struct fpref_env second = j->env;
	second.daz = false;
	return fpref_emu_convert(via, mid, &j->out, &second, 0, result, &flags);
}

static int dot_result(const struct fpref_mutant *m, const struct fpref_golden_job *j, const uint64_t *in,
		      uint64_t *result)
{
	struct fpref_tc_model model = j->model;
	size_t K = j->K;
	uint64_t c = in[2 * K];
	bool fp32 = j->out.exp_bits == 8;
	enum fpref_rounding *rounding = fp32 ? &model.round_fp32 : &model.round_fp16;
	int *floor = fp32 ? &model.floor_fp32 : &model.floor_fp16;
	switch (m->how) {
	case FPREF_MUT_DOT_FRAC:
		model.frac = model.frac >= 20 ? 13 : 25;
		break;
	case FPREF_MUT_DOT_BLOCK:
		model.block = m->param == 1 ? model.block / 2 : model.block * 2;
		break;
	case FPREF_MUT_DOT_FINAL:
		*rounding = *rounding == FPREF_RTZ ? FPREF_RNE : FPREF_RTZ;
		break;
	case FPREF_MUT_DOT_NO_FLOOR:
		*floor = FPREF_TC_NO_FLOOR;
		break;
	case FPREF_MUT_DOT_EXACT:
		model.frac = FPREF_TC_MAX_FRAC;
		break;
	case FPREF_MUT_DOT_ZERO_SIGN:
		model.zero_positive = !model.zero_positive;
		break;
	case FPREF_MUT_DOT_INTERLEAVE:
		model.interleave = 1;
		break;
	case FPREF_MUT_DOT_NATIVE:
		model.lowered_k = 0;
		break;
	case FPREF_MUT_DOT_C_LAST: {
		uint64_t d, sum[2];
		uint64_t zero = fpref_format_zero_bits(&j->out, false);
		if (fpref_emu_tc_dot(&model, &j->in, &j->in_b, in, in + K, K, zero, &j->out, &d) != 0)
			return -1;
		struct fpref_env env;
		fpref_env_default(&env);
		env.rounding = *rounding;
		sum[0] = d;
		sum[1] = c;
		unsigned flags = 0;
		return fpref_emu_op(FPREF_OP_ADD, &j->out, sum, &env, 0, result, &flags);
	}
	case FPREF_MUT_DOT_B_AS_A: /* one format for both: the row's pair check would refuse it */
		model.mixed = true;
		model.inputs = "";
		return fpref_emu_tc_dot(&model, &j->in, &j->in, in, in + K, K, c, &j->out, result);
	default:
		return -1;
	}
	return fpref_emu_tc_dot(&model, &j->in, &j->in_b, in, in + K, K, c, &j->out, result);
}

static int mutate(const struct fpref_mutant *m, const struct fpref_golden_job *j, const uint64_t *in, uint64_t *result)
{
	if (j->kind == FPREF_GOLDEN_DOT)
		return dot_result(m, j, in, result);
	struct fpref_env env = j->env;
	struct fpref_format f;
	unsigned flags = 0;
	uint64_t r;
	switch (m->how) {
	case FPREF_MUT_ROUNDING:
		env.rounding = m->param < 0 ? (enum fpref_rounding)(-m->param - 1) : (enum fpref_rounding)m->param;
		return run_env(j, &env, in, result, &flags);
	case FPREF_MUT_VIA:
		return catalogue_format(m->via, &f) ? via_format(j, &f, in, result) : -1;
	case FPREF_MUT_VIA_WIDE_RANGE:
		return fpref_golden_wide_range(&j->out, &f) ? via_format(j, &f, in, result) : -1;
	case FPREF_MUT_FTZ:
		env.ftz = true;
		return run_env(j, &env, in, result, &flags);
	case FPREF_MUT_DAZ:
		env.daz = true;
		return run_env(j, &env, in, result, &flags);
	case FPREF_MUT_SAT:
		env.overflow = FPREF_OVERFLOW_SAT;
		return run_env(j, &env, in, result, &flags);
	case FPREF_MUT_IEEE:
		env.overflow = FPREF_OVERFLOW_IEEE;
		return run_env(j, &env, in, result, &flags);
	case FPREF_MUT_OVERFLOW_ABOVE_MAX:
		if (run_env(j, &env, in, &r, &flags) != 0)
			return -1;
		*result = !is_nan(&j->out, r) && !is_inf(&j->out, r) && above_max(j, in) ? overflowed(j, negative_result(j, in)) : r;
		return 0;
	case FPREF_MUT_OVERFLOW_PAST_TIE: {
		if (run_env(j, &env, in, &r, &flags) != 0)
			return -1;
		struct fpref_env rtz = j->env;
		rtz.rounding = FPREF_RTZ;
		unsigned tf = 0;
		uint64_t t;
		run_env(j, &rtz, in, &t, &tf);
		bool overflow = (flags & FPREF_FLAG_OVERFLOW) && !(tf & FPREF_FLAG_OVERFLOW);
		*result = overflow ? fpref_format_max_bits(&j->out, negative_result(j, in)) : r;
		return 0;
	}
	case FPREF_MUT_OVERFLOW_NAN:
		if (run_env(j, &env, in, &r, &flags) != 0)
			return -1;
		if ((flags & FPREF_FLAG_OVERFLOW) && is_inf(&j->out, r))
			fpref_format_nan_bits(&j->out, (r & sign_bit(&j->out)) != 0, &r);
		*result = r;
		return 0;
	case FPREF_MUT_NAN_SIGN:
		if (run_env(j, &env, in, &r, &flags) != 0)
			return -1;
		if (is_nan(&j->out, r))
			r = m->param ? r | sign_bit(&j->out) : r & ~sign_bit(&j->out);
		*result = r;
		return 0;
	case FPREF_MUT_NEG_ZERO:
		if (run_env(j, &env, in, &r, &flags) != 0)
			return -1;
		*result = r == fpref_format_zero_bits(&j->out, true) ? fpref_format_zero_bits(&j->out, false) : r;
		return 0;
	case FPREF_MUT_BIAS:
	case FPREF_MUT_SPECIALS:
		/* the kernel's encoder believes in another format: its bits, read as the target's */
		f = j->out;
		if (m->how == FPREF_MUT_BIAS)
			f.bias += m->param;
		else if (!fpref_golden_specials_partner(&j->out, &f))
			return -1;
		return fpref_emu_convert(&j->in, in[0], &f, &env, 0, result, &flags);
	case FPREF_MUT_FMA_UNFUSED: {
		uint64_t p, sum[2];
		if (fpref_emu_op(FPREF_OP_MUL, &j->in, in, &env, 0, &p, &flags) != 0)
			return -1;
		sum[0] = p;
		sum[1] = in[2];
		return fpref_emu_op(FPREF_OP_ADD, &j->in, sum, &env, 0, result, &flags);
	}
	case FPREF_MUT_FMA_VIA:
		return catalogue_format(m->via, &f) ? via_format(j, &f, in, result) : -1;
	case FPREF_MUT_DIV_RECIPROCAL: {
		uint64_t one_over[2], q[2];
		struct fpref_unpacked one = { .cls = FPREF_CLASS_NORMAL, .significand = 1, .exponent = 0 };
		if (fpref_encode(&j->in, &one, &one_over[0]) != 0)
			return -1;
		one_over[1] = in[1];
		if (fpref_emu_op(FPREF_OP_DIV, &j->in, one_over, &env, 0, &q[1], &flags) != 0)
			return -1;
		q[0] = in[0];
		return fpref_emu_op(FPREF_OP_MUL, &j->in, q, &env, 0, result, &flags);
	}
	case FPREF_MUT_COMPARE_BITS: {
		int w = fpref_format_container_bits(&j->in);
		int64_t a = (int64_t)(in[0] << (64 - w)), b = (int64_t)(in[1] << (64 - w));
		*result = j->op == FPREF_OP_EQ ? a == b : j->op == FPREF_OP_LT ? a < b : a <= b;
		return 0;
	}
	case FPREF_MUT_MINMAX_NUMBER: {
		struct fpref_unpacked u0, u1;
		fpref_decode(&j->in, in[0], &u0);
		fpref_decode(&j->in, in[1], &u1);
		bool n0 = u0.cls == FPREF_CLASS_NAN && !u0.signaling, n1 = u1.cls == FPREF_CLASS_NAN && !u1.signaling;
		if (n0 != n1 && (u0.cls != FPREF_CLASS_NAN || u1.cls != FPREF_CLASS_NAN)) {
			*result = n0 ? in[1] : in[0];
			return 0;
		}
		return run_env(j, &env, in, result, &flags);
	}
	case FPREF_MUT_MINMAX_ZERO: {
		struct fpref_unpacked u0, u1;
		fpref_decode(&j->in, in[0], &u0);
		fpref_decode(&j->in, in[1], &u1);
		if (u0.cls == FPREF_CLASS_ZERO && u1.cls == FPREF_CLASS_ZERO) {
			*result = in[0];
			return 0;
		}
		return run_env(j, &env, in, result, &flags);
	}
	default:
		return -1;
	}
}

int fpref_golden_mutant_result(const struct fpref_mutant *m, const struct fpref_golden_job *j, const uint64_t *in,
			uint64_t *result)
{
	return fpref_golden_mutant_applies(m, j) ? mutate(m, j, in, result) : -1;
}

/* ---- the kill matrix of one file ---- */

/* Input spaces small enough to sweep: every pattern of a unary job's
 * source of up to 24 bits, every pair of formats of up to 12 bits, every
 * triple of up to 8 (16.7 million inputs: a few seconds, for a weak cell only). */
#define SWEEP_BITS 24

static bool sweepable(const struct fpref_golden_job *j, int *arity, int *width)
{
	*arity = j->kind == FPREF_GOLDEN_OP ? fpref_op_arity(j->op) : 1;
	*width = fpref_format_width(&j->in);
	return j->kind != FPREF_GOLDEN_DOT && *arity * *width <= SWEEP_BITS;
}

/* Ties away and ties to even part only on exact ties: the midpoints of a
 * narrow target (between its values, below its least, above its largest)
 * that the source holds, each one input a sign. */
static unsigned long tie_inputs(const struct fpref_mutant *m, const struct fpref_golden_job *j)
{
	const struct fpref_format *t = &j->out;
	uint64_t top = fpref_format_max_bits(t, false), step = 1ull << t->pad_bits;
	unsigned long count = 0;
	for (uint64_t b = 0;; b += step) {
		struct fpref_unpacked u;
		bool last = b >= top;
		if (fpref_decode(t, b, &u) == FPREF_DECODE_OK && u.cls != FPREF_CLASS_NAN && u.cls != FPREF_CLASS_INF) {
			uint64_t sig[2] = { 2 * u.significand + 1, 1 };
			int32_t exp[2] = { u.exponent - 1, u.exponent - 1 };
			if (u.cls == FPREF_CLASS_ZERO)
				fpref_format_min_positive(t, &u), exp[0] = u.exponent - 1, sig[0] = 1;
			int n = b == 0 && t->has_zero ? 1 : b == 0 ? 2 : 1;
			if (b == 0 && !t->has_zero)
				exp[1] = u.exponent - 1; /* the tie below the least, too */
			for (int k = 0; k < n; k++)
				for (int neg = 0; neg < 2; neg++) {
					struct fpref_env env;
					fpref_env_default(&env);
					env.overflow = FPREF_OVERFLOW_SAT;
					unsigned flags = 0;
					env.rounding = FPREF_RDN;
					uint64_t lo = fpref_emu_round_pack(&j->in, &env, 0, neg, exp[k], sig[k], false, &flags);
					env.rounding = FPREF_RUP;
					uint64_t hi = fpref_emu_round_pack(&j->in, &env, 0, neg, exp[k], sig[k], false, &flags);
					uint64_t good, bad;
					if (lo != hi || run_env(j, &j->env, &lo, &good, &flags) != 0 || mutate(m, j, &lo, &bad) != 0)
						continue;
					count += good != bad;
				}
		}
		if (last)
			break;
	}
	return count;
}

/* How many inputs of the job's whole space expose the mutant: swept where
 * the space is small, known where the bug can only show on -0 (an exact
 * conversion), else ULONG_MAX (unknown). */
static unsigned long exposing_inputs(const struct fpref_mutant *m, const struct fpref_golden_job *j)
{
	int arity, width;
	/* an exact conversion, or one rounding down (a negative value goes to
	 * -least, not to -0), gives -0 only from -0 */
	if (m->how == FPREF_MUT_NEG_ZERO && j->kind == FPREF_GOLDEN_CONVERT &&
	    (!fpref_golden_job_rounds(j) || j->env.rounding == FPREF_RDN))
		return fpref_format_has_negative_zero(&j->in) ? 1 : 0;
	/* a sum is -0 only as -0 + -0 (or -0 - +0), a square root only of -0,
	 * except when rounding down (IEEE 754, 6.3) */
	if (m->how == FPREF_MUT_NEG_ZERO && j->kind == FPREF_GOLDEN_OP && j->env.rounding != FPREF_RDN &&
	    (j->op == FPREF_OP_ADD || j->op == FPREF_OP_SUB || j->op == FPREF_OP_SQRT))
		return 1;
	/* Rounding toward zero, a conversion whose source's largest finite does
	 * not overflow the target overflows only from an infinity: the
	 * saturation mutants can differ on the two infinities alone. */
	if ((m->how == FPREF_MUT_SAT || m->how == FPREF_MUT_IEEE) && j->kind == FPREF_GOLDEN_CONVERT &&
	    j->env.rounding == FPREF_RTZ && fpref_format_has_inf(&j->in)) {
		unsigned long count = 0;
		bool finite_overflows = false;
		for (int neg = 0; neg < 2; neg++) {
			uint64_t in, good, bad;
			unsigned flags = 0;
			in = fpref_format_max_bits(&j->in, neg);
			run_env(j, &j->env, &in, &good, &flags);
			finite_overflows = finite_overflows || (flags & FPREF_FLAG_OVERFLOW);
			fpref_format_inf_bits(&j->in, neg, &in);
			if (run_env(j, &j->env, &in, &good, &flags) == 0 && mutate(m, j, &in, &bad) == 0)
				count += good != bad;
		}
		if (!finite_overflows)
			return count;
	}
	/* only min(+0, -0) and max(-0, +0): the first operand wins wrongly there alone */
	if (m->how == FPREF_MUT_MINMAX_ZERO)
		return 1;
	if (m->how == FPREF_MUT_ROUNDING && m->param == FPREF_RNA && j->kind == FPREF_GOLDEN_CONVERT &&
	    fpref_format_width(&j->out) <= 8 && !sweepable(j, &arity, &width))
		return tie_inputs(m, j);
	if (!sweepable(j, &arity, &width))
		return ULONG_MAX;
	uint64_t per = 1ull << width, total = 1ull << (arity * width);
	unsigned long count = 0;
	for (uint64_t i = 0; i < total; i++) {
		uint64_t in[3], rest = i, good, bad;
		bool ok = true;
		for (int a = 0; a < arity && ok; a++) {
			in[a] = (rest % per) << j->in.pad_bits;
			rest /= per;
			struct fpref_unpacked u;
			ok = fpref_decode(&j->in, in[a], &u) == FPREF_DECODE_OK;
		}
		unsigned flags;
		if (!ok || run_env(j, &j->env, in, &good, &flags) != 0 || mutate(m, j, in, &bad) != 0)
			continue;
		count += good != bad;
	}
	return count;
}


/* Count the distinct inputs (by a hash of the line's inputs) that expose a
 * mutant, up to the bar: a file that repeats one vector is not caught by it
 * twice. */
static void note_distinct(struct fpref_kill *k, uint64_t hash)
{
	if (k->distinct >= FPREF_MUTANT_BAR)
		return;
	for (unsigned long i = 0; i < k->distinct; i++)
		if (k->seen[i] == hash)
			return;
	k->seen[k->distinct++] = hash;
}

int fpref_golden_mutants_judge(const struct fpref_golden_job *j, const char *body, struct fpref_kill **kills, size_t *nkills,
			char *err, size_t errlen)
{
	size_t n = 0;
	struct fpref_kill *k = calloc(fpref_golden_mutant_count(), sizeof *k);
	struct fpref_golden_line *l = malloc(sizeof *l);
	char *line = malloc(1 << 16);
	if (!k || !l || !line) {
		free(k);
		free(l);
		free(line);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < fpref_golden_mutant_count(); i++)
		if (fpref_golden_mutant_applies(fpref_golden_mutant_at(i), j))
			k[n++].mutant = fpref_golden_mutant_at(i);
	int status = 0;
	size_t lineno = 0;
	for (const char *p = body; n && *p && status == 0;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		if (len >= 1 << 16) {
			snprintf(err, errlen, "%s: line %zu: too long", j->path, lineno);
			status = -1;
			break;
		}
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (nl != NULL);
		if (fpref_golden_parse_line(j, line, l, err, errlen) != 0) {
			status = -1;
			break;
		}
		size_t nin = j->kind == FPREF_GOLDEN_DOT ? 2 * (size_t)j->K + 1 : l->nin;
		uint64_t hash = 1469598103934665603ull;
		for (size_t x = 0; x < nin; x++)
			hash = (hash ^ l->in[x]) * 1099511628211ull;
		for (size_t i = 0; i < n; i++) {
			uint64_t r;
			if (mutate(k[i].mutant, j, l->in, &r) != 0 || r == l->result)
				continue;
			if (!k[i].exposed)
				k[i].first_line = lineno;
			k[i].exposed++;
			note_distinct(&k[i], hash);
		}
	}
	free(l);
	free(line);
	if (status != 0) {
		free(k);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		k[i].possible = k[i].distinct >= FPREF_MUTANT_BAR ? ULONG_MAX : exposing_inputs(k[i].mutant, j);
	size_t kept = 0; /* a mutant that no input of the whole space exposes changes nothing here */
	for (size_t i = 0; i < n; i++)
		if (k[i].possible != 0)
			k[kept++] = k[i];
	n = kept;
	*kills = k;
	*nkills = n;
	return 0;
}

/* ---- a whole suite, on threads ---- */

struct suite_work {
	const struct fpref_golden_suite *suite;
	struct fpref_kill_file *files;
	size_t next;
	int status;
	char *err;
	size_t errlen;
	pthread_mutex_t lock;
};

static int judge_job(const struct fpref_golden_job *j, struct fpref_kill_file *out, char *err, size_t errlen)
{
	char *body = NULL;
	size_t len;
	out->job = j;
	if (fpref_golden_compute(j, &body, &len, &out->vectors, err, errlen) != 0)
		return -1;
	int status = fpref_golden_mutants_judge(j, body, &out->kills, &out->nkills, err, errlen);
	free(body);
	return status;
}

static void *suite_worker(void *arg)
{
	struct suite_work *w = arg;
	char err[512];
	for (;;) {
		pthread_mutex_lock(&w->lock);
		size_t i = w->status ? w->suite->njobs : w->next++;
		pthread_mutex_unlock(&w->lock);
		if (i >= w->suite->njobs)
			return NULL;
		if (judge_job(&w->suite->jobs[i], &w->files[i], err, sizeof err) != 0) {
			pthread_mutex_lock(&w->lock);
			if (!w->status)
				snprintf(w->err, w->errlen, "%s", err);
			w->status = -1;
			pthread_mutex_unlock(&w->lock);
		}
	}
}

int fpref_golden_mutants_suite(const struct fpref_golden_suite *s, unsigned threads, struct fpref_kill_file **files,
			char *err, size_t errlen)
{
	threads = fpref_golden_threads(threads); /* the oracle's MPFR must be thread-safe */
	struct suite_work w = { s, calloc(s->njobs ? s->njobs : 1, sizeof *w.files), 0, 0, err, errlen,
				PTHREAD_MUTEX_INITIALIZER };
	pthread_t *t = calloc(threads ? threads : 1, sizeof *t);
	if (!w.files || !t) {
		free(w.files);
		free(t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	unsigned started = 0;
	for (unsigned i = 1; i < threads; i++)
		if (pthread_create(&t[i], NULL, suite_worker, &w) == 0)
			started = i;
		else
			break;
	suite_worker(&w);
	for (unsigned i = 1; i <= started; i++)
		pthread_join(t[i], NULL);
	free(t);
	pthread_mutex_destroy(&w.lock);
	if (w.status) {
		fpref_golden_kill_files_free(w.files, s->njobs);
		return -1;
	}
	*files = w.files;
	return 0;
}

void fpref_golden_kill_files_free(struct fpref_kill_file *files, size_t n)
{
	for (size_t i = 0; files && i < n; i++)
		free(files[i].kills);
	free(files);
}

bool fpref_golden_kill_caught(const struct fpref_kill *k)
{
	return k->distinct >= FPREF_MUTANT_BAR || k->distinct >= k->possible;
}
