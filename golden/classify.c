/* Mismatch classes: what a wrong result is, said only where it can be
 * true.  From the bits alone (a result against the golden one), and, where
 * the line's inputs are known, against the exact value the oracle gives
 * them: a tie broken the wrong way, double rounding through a wider format,
 * truncation, a subnormal input read as zero.  Only mismatches come here,
 * so the oracle's cost is paid on them alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_golden.h"
#include "fpref_ref.h"
#include "mutants_internal.h"

static const char *const mismatch_names[FPREF_MISMATCH_COUNT] = {
	[FPREF_MISMATCH_DIRECTION] = "rounding direction",
	[FPREF_MISMATCH_TIE] = "tie broken the wrong way",
	[FPREF_MISMATCH_DOUBLE_ROUNDING] = "double rounding",
	[FPREF_MISMATCH_TRUNCATED] = "truncated (toward zero)",
	[FPREF_MISMATCH_AWAY] = "rounded away from zero",
	[FPREF_MISMATCH_FLUSHED] = "subnormal flushed",
	[FPREF_MISMATCH_NOT_FLUSHED] = "subnormal not flushed",
	[FPREF_MISMATCH_DAZ] = "subnormal input read as zero",
	[FPREF_MISMATCH_NAN_ENCODING] = "NaN encoding",
	[FPREF_MISMATCH_SATURATION] = "max finite for inf",
	[FPREF_MISMATCH_INF_FOR_MAX] = "inf for max finite",
	[FPREF_MISMATCH_MAX_FOR_NAN] = "max finite for NaN",
	[FPREF_MISMATCH_NAN_FOR_MAX] = "NaN for max finite",
	[FPREF_MISMATCH_NAN_FOR_INF] = "NaN for inf",
	[FPREF_MISMATCH_ZERO_SIGN] = "sign of zero",
	[FPREF_MISMATCH_FLAGS] = "flags only",
	[FPREF_MISMATCH_NEARER] = "nearer the exact value than the golden",
	[FPREF_MISMATCH_FARTHER] = "farther from the exact value than the golden",
	[FPREF_MISMATCH_OTHER] = "other",
};

const char *fpref_golden_mismatch_name(enum fpref_mismatch m)
{
	return m < FPREF_MISMATCH_COUNT ? mismatch_names[m] : "other";
}

static bool big(const struct fpref_unpacked *u)
{
	return u->cls == FPREF_CLASS_INF || u->cls == FPREF_CLASS_NAN;
}

/* Max finite against an infinity or a NaN, either way round: named by what
 * each side is, so that a format without inf never hears of one. */
static enum fpref_mismatch overflow_class(const struct fpref_format *f, uint64_t g, const struct fpref_unpacked *x,
					  uint64_t r, const struct fpref_unpacked *y)
{
	if (g == fpref_format_max_bits(f, x->negative) && big(y) && y->negative == x->negative)
		return y->cls == FPREF_CLASS_INF ? FPREF_MISMATCH_INF_FOR_MAX : FPREF_MISMATCH_NAN_FOR_MAX;
	if (r == fpref_format_max_bits(f, y->negative) && big(x) && (x->negative == y->negative || x->cls == FPREF_CLASS_NAN))
		return x->cls == FPREF_CLASS_INF ? FPREF_MISMATCH_SATURATION : FPREF_MISMATCH_MAX_FOR_NAN;
	if (x->cls == FPREF_CLASS_INF && y->cls == FPREF_CLASS_NAN)
		return FPREF_MISMATCH_NAN_FOR_INF;
	return FPREF_MISMATCH_COUNT;
}

/* The classes the bits alone can tell; FPREF_MISMATCH_COUNT where they
 * cannot tell more than "the other neighbour" or "other" (left to the
 * caller).  *adjacent: g and r are neighbours of one sign. */
static enum fpref_mismatch bits_class(const struct fpref_format *f, uint64_t g, uint64_t r, struct fpref_unpacked *x,
				      struct fpref_unpacked *y, bool *adjacent)
{
	*adjacent = false;
	if (fpref_decode(f, g, x) == FPREF_DECODE_INVALID || fpref_decode(f, r, y) == FPREF_DECODE_INVALID)
		return FPREF_MISMATCH_OTHER;
	if (x->cls == FPREF_CLASS_NAN && y->cls == FPREF_CLASS_NAN)
		return FPREF_MISMATCH_NAN_ENCODING;
	if (x->cls == FPREF_CLASS_ZERO && y->cls == FPREF_CLASS_ZERO)
		return FPREF_MISMATCH_ZERO_SIGN;
	if (x->cls == FPREF_CLASS_SUBNORMAL && y->cls == FPREF_CLASS_ZERO)
		return FPREF_MISMATCH_FLUSHED;
	if (x->cls == FPREF_CLASS_ZERO && y->cls == FPREF_CLASS_SUBNORMAL)
		return FPREF_MISMATCH_NOT_FLUSHED;
	enum fpref_mismatch o = overflow_class(f, g, x, r, y);
	if (o != FPREF_MISMATCH_COUNT)
		return o;
	uint64_t step = 1ull << f->pad_bits;
	*adjacent = !big(x) && !big(y) && x->negative == y->negative && (g - r == step || r - g == step);
	return FPREF_MISMATCH_COUNT;
}

enum fpref_mismatch fpref_golden_classify(const struct fpref_format *f, uint64_t g, unsigned gf, uint64_t r, int rf)
{
	(void)gf;
	if (g == r)
		return rf >= 0 ? FPREF_MISMATCH_FLAGS : FPREF_MISMATCH_OTHER;
	struct fpref_unpacked x, y;
	bool adjacent;
	enum fpref_mismatch c = bits_class(f, g, r, &x, &y, &adjacent);
	return c != FPREF_MISMATCH_COUNT ? c : adjacent ? FPREF_MISMATCH_DIRECTION : FPREF_MISMATCH_OTHER;
}

enum fpref_mismatch fpref_golden_classify_errors(const struct fpref_format *f, uint64_t g, uint64_t r, double golden_abs,
						 double got_abs)
{
	enum fpref_mismatch c = fpref_golden_classify(f, g, 0, r, -1);
	if ((c != FPREF_MISMATCH_DIRECTION && c != FPREF_MISMATCH_OTHER) || isnan(golden_abs) || isnan(got_abs) ||
	    golden_abs == got_abs)
		return c;
	return got_abs < golden_abs ? FPREF_MISMATCH_NEARER : FPREF_MISMATCH_FARTHER;
}

/* ---- against the exact value ---- */

/* A line's exact value, and how to round it to a format under an
 * environment, as the job's own rounding would. */
struct exact {
	const struct fpref_golden_job *j;
	struct fpref_ref_value v;
};

static int exact_init(struct exact *e, const struct fpref_golden_job *j, const uint64_t *in)
{
	e->j = j;
	fpref_ref_value_init(&e->v);
	unsigned flags = 0;
	if (j->kind == FPREF_GOLDEN_CONVERT)
		return fpref_ref_from_bits(&j->in, in[0], j->env.daz, &e->v);
	if (j->kind == FPREF_GOLDEN_OP)
		return fpref_ref_op_unrounded(j->op, &j->in, in, &j->env, &e->v, &flags);
	e->v.inexact = false;
	return fpref_ref_dot_value(&j->in, &j->in_b, in, in + j->K, j->K, in[2 * j->K], &j->out, e->v.x);
}

static uint64_t exact_round(const struct exact *e, const struct fpref_format *f, const struct fpref_env *env,
			    struct fpref_ref_trace *t)
{
	uint64_t bits = 0;
	unsigned flags = 0;
	if (e->j->kind == FPREF_GOLDEN_CONVERT)
		fpref_ref_convert_value(&e->v, f, env, 0, &bits, &flags, t);
	else
		fpref_ref_round(&e->v, f, env, 0, &bits, &flags, t);
	return bits;
}

/* The environment the job rounds its result in (a dot product's: round to
 * nearest, IEEE overflow, as its exact reference is taken). */
static struct fpref_env job_env(const struct fpref_golden_job *j)
{
	struct fpref_env env;
	if (j->kind == FPREF_GOLDEN_DOT)
		fpref_env_default(&env);
	else
		env = j->env;
	return env;
}

/* Whether an input is subnormal and the job, with subnormal inputs read as
 * zero, gives r. */
static bool read_as_zero(const struct fpref_golden_job *j, const uint64_t *in, uint64_t r)
{
	if (j->kind == FPREF_GOLDEN_DOT || j->env.daz)
		return false;
	int n = j->kind == FPREF_GOLDEN_CONVERT ? 1 : fpref_op_arity(j->op);
	bool sub = false;
	for (int k = 0; k < n; k++) {
		struct fpref_unpacked u;
		sub = sub || (fpref_decode(&j->in, in[k], &u) == FPREF_DECODE_OK && u.cls == FPREF_CLASS_SUBNORMAL);
	}
	if (!sub)
		return false;
	struct fpref_env env = j->env;
	env.daz = true;
	uint64_t bits;
	unsigned flags = 0;
	int s = j->kind == FPREF_GOLDEN_CONVERT ? fpref_ref_convert(&j->in, in[0], &j->out, &env, 0, &bits, &flags)
						: fpref_ref_op(j->op, &j->in, in, &env, 0, &bits, &flags);
	return s == 0 && bits == r;
}

/* Whether rounding twice, to a wider format first, gives r: the
 * intermediates kernels go through (float32, float16, bfloat16) and the
 * target's own precision with an unbounded exponent (a subnormal rounded as
 * if normal, then again into the subnormal range). */
static bool rounded_twice(const struct exact *e, uint64_t r)
{
	const struct fpref_golden_job *j = e->j;
	if (j->kind == FPREF_GOLDEN_DOT || j->env.rounding == FPREF_SR || j->env.pre_scale)
		return false;
	static const enum fpref_format_id wide[] = { FPREF_FORMAT_FLOAT32, FPREF_FORMAT_FLOAT16,
							    FPREF_FORMAT_BFLOAT16 };
	struct fpref_format via[4];
	int n = 0;
	for (size_t k = 0; k < sizeof wide / sizeof wide[0]; k++) {
		const struct fpref_format *w = fpref_format_get(wide[k]);
		if (fpref_format_precision(w) > fpref_format_precision(&j->out) && !fpref_format_same(w, &j->in))
			via[n++] = *w;
	}
	if (fpref_golden_wide_range(&j->out, &via[n]))
		n++;
	struct fpref_env first = j->env, second = j->env;
	first.overflow = FPREF_OVERFLOW_IEEE;
	first.ftz = first.daz = second.daz = false;
	bool twice = false;
	struct fpref_ref_value y;
	struct fpref_ref_trace t;
	fpref_ref_value_init(&y);
	fpref_ref_trace_init(&t);
	for (int k = 0; k < n && !twice; k++) {
		/* the first rounding must land on a midpoint of the target: that
		 * is double rounding, where a narrower range's flush is not */
		uint64_t mid = exact_round(e, &via[k], &first, NULL), z;
		unsigned flags = 0;
		if (fpref_ref_from_bits(&via[k], mid, false, &y) != 0)
			continue;
		fpref_ref_round(&y, &j->out, &second, 0, &z, &flags, &t);
		twice = z == r && t.bracketed && t.rule != FPREF_RULE_EXACT && t.nearer == 0;
	}
	fpref_ref_trace_clear(&t);
	fpref_ref_value_clear(&y);
	return twice;
}

/* A zero for a tiny exact value that the golden rounds to a nonzero one
 * (the least normal, say): flushed before rounding. */
static bool flushed_early(const struct fpref_golden_job *j, uint64_t r, uint64_t g, mpfr_srcptr x)
{
	struct fpref_unpacked y, gu, least;
	if (!mpfr_regular_p(x) || fpref_decode(&j->out, r, &y) != FPREF_DECODE_OK || y.cls != FPREF_CLASS_ZERO ||
	    fpref_decode(&j->out, g, &gu) != FPREF_DECODE_OK || gu.cls == FPREF_CLASS_ZERO || big(&gu))
		return false;
	fpref_format_min_normal(&j->out, &least);
	mpfr_t m;
	mpfr_init2(m, 64);
	mpfr_set_ui_2exp(m, least.significand, least.exponent, MPFR_RNDN);
	bool tiny = mpfr_cmpabs(x, m) < 0;
	mpfr_clear(m);
	return tiny;
}

unsigned fpref_golden_classes_exact(const struct fpref_golden_job *j, const uint64_t *in, uint64_t g, unsigned gf,
				    uint64_t r, int rf)
{
	enum fpref_mismatch plain = fpref_golden_classify(&j->out, g, gf, r, rf);
	bool compare = j->kind == FPREF_GOLDEN_OP && fpref_op_is_compare(j->op);
	bool exact_kind = j->kind != FPREF_GOLDEN_OP || (j->op != FPREF_OP_MIN && j->op != FPREF_OP_MAX && !compare);
	if (g == r || !exact_kind || plain == FPREF_MISMATCH_NAN_ENCODING || plain == FPREF_MISMATCH_ZERO_SIGN)
		return 1u << plain;
	unsigned c = plain == FPREF_MISMATCH_DIRECTION || plain == FPREF_MISMATCH_OTHER ? 0 : 1u << plain;
	if (read_as_zero(j, in, r))
		c |= 1u << FPREF_MISMATCH_DAZ;
	struct exact e;
	if (exact_init(&e, j, in) != 0) {
		fpref_ref_value_clear(&e.v);
		return c | 1u << plain;
	}
	struct fpref_env env = job_env(j);
	struct fpref_ref_trace t;
	fpref_ref_trace_init(&t);
	exact_round(&e, &j->out, &env, &t);
	bool tie = t.bracketed && t.rule != FPREF_RULE_EXACT && t.nearer == 0;
	fpref_ref_trace_clear(&t);
	bool number = mpfr_number_p(e.v.x), negative = mpfr_signbit(e.v.x) != 0;
	struct fpref_env toward = env, away = env;
	toward.rounding = FPREF_RTZ;
	away.rounding = negative ? FPREF_RDN : FPREF_RUP;
	uint64_t down = number ? exact_round(&e, &j->out, &toward, NULL) : g;
	uint64_t up = number ? exact_round(&e, &j->out, &away, NULL) : g;
	/* a dot product's golden is the model's, not the exact value's
	 * rounding: its neighbours say nothing of the kernel's rounding */
	bool neighbour = (r == down || r == up) && down != up && j->kind != FPREF_GOLDEN_DOT;
	if (tie && neighbour)
		c |= 1u << FPREF_MISMATCH_TIE;
	if (rounded_twice(&e, r))
		c |= 1u << FPREF_MISMATCH_DOUBLE_ROUNDING;
	if (flushed_early(j, r, g, e.v.x))
		c |= 1u << FPREF_MISMATCH_FLUSHED;
	if (neighbour)
		c |= 1u << (r == down ? FPREF_MISMATCH_TRUNCATED : FPREF_MISMATCH_AWAY);
	if (j->kind == FPREF_GOLDEN_DOT && number && !c) {
		/* the golden is the model's: which of the two is nearer the exact value */
		struct fpref_ref_value gv, rv;
		fpref_ref_value_init(&gv);
		fpref_ref_value_init(&rv);
		if (fpref_ref_from_bits(&j->out, g, false, &gv) == 0 && fpref_ref_from_bits(&j->out, r, false, &rv) == 0 &&
		    mpfr_number_p(gv.x) && mpfr_number_p(rv.x)) {
			mpfr_t dg, dr;
			mpfr_inits2(mpfr_get_prec(e.v.x) + 256, dg, dr, (mpfr_ptr)0);
			mpfr_sub(dg, gv.x, e.v.x, MPFR_RNDN);
			mpfr_sub(dr, rv.x, e.v.x, MPFR_RNDN);
			int cmp = mpfr_cmpabs(dr, dg);
			if (cmp)
				c |= 1u << (cmp < 0 ? FPREF_MISMATCH_NEARER : FPREF_MISMATCH_FARTHER);
			mpfr_clears(dg, dr, (mpfr_ptr)0);
		}
		fpref_ref_value_clear(&gv);
		fpref_ref_value_clear(&rv);
	}
	if (!c && plain == FPREF_MISMATCH_DIRECTION)
		c = 1u << plain; /* the golden's other neighbour, not the exact value's (a model's dot product) */
	fpref_ref_value_clear(&e.v);
	return c ? c : 1u << FPREF_MISMATCH_OTHER;
}

/* Which class says a line best when several are true of it: the most
 * specific first. */
static const enum fpref_mismatch priority[] = {
	FPREF_MISMATCH_NAN_ENCODING, FPREF_MISMATCH_ZERO_SIGN, FPREF_MISMATCH_FLAGS, FPREF_MISMATCH_TIE,
	FPREF_MISMATCH_DOUBLE_ROUNDING, FPREF_MISMATCH_FLUSHED, FPREF_MISMATCH_NOT_FLUSHED, FPREF_MISMATCH_DAZ,
	FPREF_MISMATCH_SATURATION, FPREF_MISMATCH_INF_FOR_MAX, FPREF_MISMATCH_MAX_FOR_NAN, FPREF_MISMATCH_NAN_FOR_MAX,
	FPREF_MISMATCH_NAN_FOR_INF, FPREF_MISMATCH_TRUNCATED, FPREF_MISMATCH_AWAY, FPREF_MISMATCH_NEARER, FPREF_MISMATCH_FARTHER,
	FPREF_MISMATCH_DIRECTION, FPREF_MISMATCH_OTHER,
};
_Static_assert(sizeof priority / sizeof *priority == FPREF_MISMATCH_COUNT, "every class has its place in the order");
_Static_assert(FPREF_MISMATCH_COUNT <= 32, "a mask of classes is an unsigned");

enum fpref_mismatch fpref_golden_class_first(unsigned classes, const enum fpref_mismatch *order)
{
	order = order ? order : priority;
	for (int k = 0; k < FPREF_MISMATCH_COUNT; k++)
		if (classes & 1u << order[k])
			return order[k];
	return FPREF_MISMATCH_OTHER;
}

enum fpref_mismatch fpref_golden_classify_exact(const struct fpref_golden_job *j, const uint64_t *in, uint64_t g,
						unsigned gf, uint64_t r, int rf)
{
	return fpref_golden_class_first(fpref_golden_classes_exact(j, in, g, gf, r, rf), NULL);
}

int fpref_golden_class_tally_add(struct fpref_class_tally *t, unsigned classes)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->masks[i] == classes) {
			t->counts[i]++;
			return 0;
		}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		unsigned *m = realloc(t->masks, cap * sizeof *m);
		if (!m)
			return -1;
		t->masks = m;
		size_t *c = realloc(t->counts, cap * sizeof *c);
		if (!c)
			return -1;
		t->counts = c;
		t->cap = cap;
	}
	t->masks[t->n] = classes;
	t->counts[t->n++] = 1;
	return 0;
}

void fpref_golden_class_tally_free(struct fpref_class_tally *t)
{
	free(t->masks);
	free(t->counts);
	memset(t, 0, sizeof *t);
}

void fpref_golden_class_order(const struct fpref_class_tally *t, enum fpref_mismatch *order)
{
	unsigned taken = 0;
	int n = 0;
	while (n < FPREF_MISMATCH_COUNT) {
		size_t best = 0;
		enum fpref_mismatch pick = FPREF_MISMATCH_COUNT;
		for (int k = 0; k < FPREF_MISMATCH_COUNT; k++) {
			enum fpref_mismatch c = priority[k];
			size_t sum = 0;
			/* the mismatches of class c that no class taken before claims */
			for (size_t i = 0; !(taken & 1u << c) && i < t->n; i++)
				if ((t->masks[i] & 1u << c) && !(t->masks[i] & taken))
					sum += t->counts[i];
			if (sum > best)
				best = sum, pick = c;
		}
		if (pick == FPREF_MISMATCH_COUNT)
			break;
		order[n++] = pick;
		taken |= 1u << pick;
	}
	for (int k = 0; k < FPREF_MISMATCH_COUNT; k++) /* the rest, in the fixed order */
		if (!(taken & 1u << priority[k]))
			order[n++] = priority[k], taken |= 1u << priority[k];
}
