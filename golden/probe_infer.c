/* Inference: every generic block model (block size, fraction bits,
 * rounding, floor) and every preset row run by the emulator over the
 * measured cases; the models that reproduce them all, gathered into
 * classes of parameters the cases cannot tell apart.  Cases that refuted
 * a model are tried first on the next, so that most models fall after one
 * or two dot products. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_golden_probe.h"
#include "fpref_emu_tc.h"

#define KILLERS 16

struct search {
	const struct fpref_probe_data *data;
	const struct fpref_emu_tc_rows *rows; /* data's operands, decoded once for every model */
	size_t killers[KILLERS], nkillers, next;
	size_t tried;
};

static bool same_on(const struct search *s, const struct fpref_tc_model *m, size_t i)
{
	uint64_t got;
	return fpref_emu_tc_rows_dot(m, s->rows, i, &s->data->out, &got) == 0 && got == s->data->d[i];
}

static void remember(struct search *s, size_t i)
{
	s->killers[s->next] = i;
	s->next = (s->next + 1) % KILLERS;
	if (s->nkillers < KILLERS)
		s->nkillers++;
}

/* Whether m reproduces every case. */
static bool fits(struct search *s, const struct fpref_tc_model *m)
{
	s->tried++;
	for (size_t k = 0; k < s->nkillers; k++)
		if (!same_on(s, m, s->killers[k]))
			return false;
	for (size_t i = 0; i < s->data->count; i++)
		if (!same_on(s, m, i)) {
			remember(s, i);
			return false;
		}
	return true;
}

/* The cases m gets wrong, counting stopped past `limit`. */
static size_t misses(struct search *s, const struct fpref_tc_model *m, size_t limit)
{
	size_t n = 0;
	s->tried++;
	for (size_t i = 0; i < s->data->count && n <= limit; i++)
		n += !same_on(s, m, i);
	return n;
}

int fpref_golden_probe_term_floor(const struct fpref_format *in_a, const struct fpref_format *in_b,
				  const struct fpref_format *out)
{
	int products = fpref_format_min_exponent(in_a) + fpref_format_min_exponent(in_b);
	int c = fpref_format_min_exponent(out) - (out->subnormals ? out->man_bits : 0);
	c = c < -126 ? -126 : c; /* c enters as FP32 holds it */
	return products < c ? products : c;
}

/* The exponent of the leading bit of a pattern's value, or INT32_MIN for
 * zeros and specials. */
static int leading_exponent(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	if (fpref_decode(f, bits, &u) == FPREF_DECODE_INVALID ||
	    (u.cls != FPREF_CLASS_NORMAL && u.cls != FPREF_CLASS_SUBNORMAL) || u.significand == 0)
		return INT32_MIN;
	int e = u.exponent;
	for (uint64_t v = u.significand; v > 1; v >>= 1)
		e++;
	return e;
}

/* The largest exponent among the terms and results of the data: floors
 * above it cut everything and are not searched. */
static int data_top(const struct fpref_probe_data *d)
{
	int top = -1000;
	size_t w = 2 * d->K + 1;
	for (size_t i = 0; i < d->count; i++) {
		const uint64_t *row = d->rows + i * w;
		for (size_t k = 0; k < d->K; k++) {
			int a = leading_exponent(&d->in, row[k]), b = leading_exponent(&d->in_b, row[d->K + k]);
			if (a != INT32_MIN && b != INT32_MIN && a + b + 1 > top)
				top = a + b + 1;
		}
		int c = leading_exponent(&d->out, row[2 * d->K]), r = leading_exponent(&d->out, d->d[i]);
		top = c > top ? c : top;
		top = r > top ? r : top;
	}
	return top;
}

/* ---- the consistent generic models, as a grid ---- */
struct grid {
	int floor_min, floor_max, nfloors; /* index 0: no floor; 1..: floor_min.. */
	int blocks;
	bool *ok;                          /* [rounding][frac][block][floor] */
};

static size_t grid_at(const struct grid *g, int r, int frac, int block, int f)
{
	return (((size_t)r * FPREF_TC_MAX_FRAC + (size_t)(frac - 1)) * (size_t)g->blocks + (size_t)(block - 1)) *
		       (size_t)g->nfloors + (size_t)f;
}

static const enum fpref_rounding roundings[2] = { FPREF_RTZ, FPREF_RNE };

static int floor_value(const struct grid *g, int f)
{
	return f == 0 ? FPREF_TC_NO_FLOOR : g->floor_min + f - 1;
}

static struct fpref_tc_model generic(int block, int frac, int floor, enum fpref_rounding r)
{
	struct fpref_tc_model m;
	char err[128];
	fpref_tc_model_custom(block, frac, floor, r, &m, err, sizeof err);
	return m;
}

/* Whether a parameter is searched at this value (a known block of K or
 * more is searched as K). */
static bool searched(int known, int value, int top)
{
	return !known || known == value || (known > top && value == top);
}

static size_t search_grid(struct search *s, struct grid *g)
{
	size_t found = 0;
	for (int r = 0; r < 2; r++)
		for (int frac = 1; frac <= FPREF_TC_MAX_FRAC; frac++) {
			if (s->data->progress)
				s->data->progress(s->data->progress_ctx, (size_t)(r * FPREF_TC_MAX_FRAC + frac),
						  2 * FPREF_TC_MAX_FRAC);
			for (int block = 1; block <= g->blocks; block++)
				for (int f = 0; f < g->nfloors; f++) {
					if (!searched(s->data->frac, frac, FPREF_TC_MAX_FRAC) ||
					    !searched(s->data->block, block, g->blocks))
						continue;
					struct fpref_tc_model m = generic(block, frac, floor_value(g, f), roundings[r]);
					bool ok = fits(s, &m);
					g->ok[grid_at(g, r, frac, block, f)] = ok;
					found += ok;
				}
		}
	return found;
}

/* ---- classes ---- */
static int add_class(struct fpref_probe_report *r, const struct fpref_probe_class *c)
{
	struct fpref_probe_class *more = realloc(r->classes, (r->nclasses + 1) * sizeof *more);
	if (!more)
		return -1;
	r->classes = more;
	r->classes[r->nclasses++] = *c;
	return 0;
}

static bool same_floors(const struct grid *g, int r, int frac, int b1, int b2)
{
	for (int f = 0; f < g->nfloors; f++)
		if (g->ok[grid_at(g, r, frac, b1, f)] != g->ok[grid_at(g, r, frac, b2, f)])
			return false;
	return true;
}

/* One class per run of blocks with the same floors and per run of floors
 * (no floor joins the run that starts at the least floor searched). */
static int classes_of(const struct grid *g, int term_floor, size_t K, struct fpref_probe_report *rep)
{
	for (int r = 0; r < 2; r++)
		for (int frac = 1; frac <= FPREF_TC_MAX_FRAC; frac++)
			for (int b = 1; b <= g->blocks;) {
				int e = b;
				while (e < g->blocks && same_floors(g, r, frac, b, e + 1))
					e++;
				struct fpref_probe_class c = { frac, roundings[r], b, e, (size_t)e == K, false, term_floor, false, 0, 0,
							       NULL };
				bool none = g->ok[grid_at(g, r, frac, b, 0)];
				for (int f = 1; f <= g->nfloors; f++) {
					bool here = f < g->nfloors && g->ok[grid_at(g, r, frac, b, f)];
					if (here && !c.has_floor_range) {
						c.has_floor_range = true;
						c.floor_lo = c.floor_hi = floor_value(g, f);
						c.floor_none = none && f == 1;
					} else if (here)
						c.floor_hi = floor_value(g, f);
					if (!here && (c.has_floor_range || (none && f == 1))) {
						c.floor_none = c.floor_none || (none && f == 1);
						if (add_class(rep, &c) != 0)
							return -1;
						c.has_floor_range = c.floor_none = false;
					}
				}
				b = e + 1;
			}
	return 0;
}

bool fpref_golden_probe_class_holds(const struct fpref_probe_class *c, const struct fpref_tc_model *m,
			     const struct fpref_format *out, size_t K)
{
	bool fp16 = fpref_format_is(out, FPREF_FORMAT_FLOAT16);
	if (c->preset)
		return c->preset == m;
	if (fp16 && m->lowered_k)
		return false;
	int floor = fp16 ? m->floor_fp16 : m->floor_fp32;
	enum fpref_rounding r = fp16 ? m->round_fp16 : m->round_fp32;
	bool block = (m->block >= c->block_lo && m->block <= c->block_hi) ||
		     (c->block_open && m->block >= c->block_hi && (size_t)c->block_hi == K);
	bool fl = (c->floor_none && (floor == FPREF_TC_NO_FLOOR || floor <= c->none_up_to)) ||
		  (c->has_floor_range && floor >= c->floor_lo && floor <= c->floor_hi);
	return m->frac == c->frac && r == c->rounding && block && fl;
}

/* ---- presets, and the nearest models when nothing fits ---- */
static bool preset_applies(const struct fpref_tc_model *m, const struct fpref_probe_data *d)
{
	return fpref_tc_model_find_pair(m->gpu, &d->in, &d->in_b) == m && fpref_tc_output_ok(m, &d->in, &d->out) &&
	       fpref_tc_output_ok(m, &d->in_b, &d->out);
}

/* Whether two rows compute the same for this output (h100 and its sm_90
 * variants share most rows): the same class, not two. */
static bool same_rows(const struct fpref_tc_model *x, const struct fpref_tc_model *y, const struct fpref_format *out)
{
	bool lowered = fpref_tc_lowered(x, out);
	if (lowered != fpref_tc_lowered(y, out))
		return false;
	if (lowered) {
		if (x->lowered_k != y->lowered_k || x->interleave != y->interleave)
			return false;
		x = fpref_tc_model_lowered_blocks(x);
		y = fpref_tc_model_lowered_blocks(y);
		if (!x || !y)
			return false;
	}
	return x->block == y->block && x->frac == y->frac && x->floor_fp32 == y->floor_fp32 &&
	       x->floor_fp16 == y->floor_fp16 && x->round_fp32 == y->round_fp32 && x->round_fp16 == y->round_fp16 &&
	       x->zero_positive == y->zero_positive && x->group == y->group && x->halves == y->halves &&
	       x->sum_frac == y->sum_frac && x->c_frac == y->c_frac && x->c_drop == y->c_drop && x->tree == y->tree &&
	       x->flush == y->flush && x->fused == y->fused && x->product_inf == y->product_inf;
}

static bool preset_class_known(const struct fpref_probe_report *r, const struct fpref_tc_model *m,
			       const struct fpref_format *out)
{
	for (size_t i = 0; i < r->nclasses; i++)
		if (r->classes[i].preset && same_rows(r->classes[i].preset, m, out))
			return true;
	return false;
}

static int check_presets(struct search *s, struct fpref_probe_report *r)
{
	const struct fpref_probe_data *d = s->data;
	size_t generic_classes = r->nclasses;
	for (size_t i = 0; i < fpref_tc_model_count(); i++) {
		const struct fpref_tc_model *m = fpref_tc_model_at(i);
		if (!preset_applies(m, d) || !fits(s, m))
			continue;
		if (r->npresets < sizeof r->presets / sizeof r->presets[0])
			r->presets[r->npresets++] = m;
		/* outside the generic space, a class of its own: a lowered path,
		 * or a row that fits where no generic model does (its sign of
		 * zero, say: generic models keep IEEE's) */
		if ((fpref_tc_lowered(m, &d->out) || generic_classes == 0) && !preset_class_known(r, m, &d->out)) {
			struct fpref_probe_class c = { 0 };
			c.preset = m;
			r->consistent++;
			if (add_class(r, &c) != 0)
				return -1;
		}
	}
	return 0;
}

static void keep_near(struct fpref_probe_report *r, const struct fpref_tc_model *m, size_t n)
{
	if (r->nnear == FPREF_PROBE_NEAR && n >= r->near[FPREF_PROBE_NEAR - 1].misses)
		return;
	size_t at = r->nnear;
	while (at > 0 && r->near[at - 1].misses > n)
		at--;
	if (at >= FPREF_PROBE_NEAR)
		return;
	size_t last = r->nnear < FPREF_PROBE_NEAR ? r->nnear : FPREF_PROBE_NEAR - 1;
	memmove(&r->near[at + 1], &r->near[at], (last - at) * sizeof r->near[0]);
	r->near[at] = (struct fpref_probe_near){ *m, n };
	if (r->nnear < FPREF_PROBE_NEAR)
		r->nnear++;
}

static size_t near_limit(const struct fpref_probe_report *r, size_t count)
{
	return r->nnear == FPREF_PROBE_NEAR ? r->near[FPREF_PROBE_NEAR - 1].misses : count;
}

/* The nearest models: every block, fraction count and rounding without a
 * floor (counting stops once a model is worse than the fifth best), then
 * each of the five best with every floor. */
static void nearest(struct search *s, const struct grid *g, struct fpref_probe_report *r)
{
	const struct fpref_probe_data *d = s->data;
	for (size_t i = 0; i < fpref_tc_model_count(); i++) {
		const struct fpref_tc_model *m = fpref_tc_model_at(i);
		if (preset_applies(m, d))
			keep_near(r, m, misses(s, m, near_limit(r, d->count)));
	}
	for (int rr = 0; rr < 2; rr++)
		for (int frac = 1; frac <= FPREF_TC_MAX_FRAC; frac++)
			for (int block = 1; block <= g->blocks; block++) {
				struct fpref_tc_model m = generic(block, frac, FPREF_TC_NO_FLOOR, roundings[rr]);
				keep_near(r, &m, misses(s, &m, near_limit(r, d->count)));
			}
	struct fpref_probe_near best[FPREF_PROBE_NEAR];
	size_t nbest = r->nnear;
	memcpy(best, r->near, sizeof best);
	for (size_t i = 0; i < nbest; i++) {
		const struct fpref_tc_model *m = &best[i].model;
		if (strcmp(m->gpu, "generic") != 0)
			continue;
		size_t fewest = best[i].misses;
		struct fpref_tc_model pick = *m;
		for (int f = 1; f < g->nfloors; f++) {
			struct fpref_tc_model t = generic(m->block, m->frac, floor_value(g, f), m->round_fp32);
			size_t n = misses(s, &t, fewest);
			if (n < fewest) {
				fewest = n;
				pick = t;
			}
		}
		if (fewest < best[i].misses)
			keep_near(r, &pick, fewest);
	}
}

static int search_all(const struct fpref_probe_data *data, struct fpref_probe_report *r, char *err, size_t errlen);

static bool is_zero(const struct fpref_format *f, uint64_t bits)
{
	struct fpref_unpacked u;
	return fpref_decode(f, bits, &u) != FPREF_DECODE_INVALID && u.cls == FPREF_CLASS_ZERO;
}

/* The search again over the cases whose c is zero. */
static int without_c(const struct fpref_probe_data *data, struct fpref_probe_report *r, char *err, size_t errlen)
{
	size_t w = 2 * data->K + 1, n = 0;
	uint64_t *rows = malloc(data->count * w * sizeof *rows), *d = malloc(data->count * sizeof *d);
	int status = rows && d ? 0 : -1;
	for (size_t i = 0; status == 0 && i < data->count; i++)
		if (is_zero(&data->out, data->rows[i * w + 2 * data->K])) {
			memcpy(rows + n * w, data->rows + i * w, w * sizeof *rows);
			d[n++] = data->d[i];
		}
	if (status == 0 && n > 0 && n < data->count) {
		struct fpref_probe_data sub = *data;
		struct fpref_probe_report part;
		sub.rows = rows;
		sub.d = d;
		sub.count = n;
		status = search_all(&sub, &part, err, errlen);
		if (status == 0) {
			r->c_zero_classes = part.classes;
			r->c_zero_nclasses = part.nclasses;
			r->c_zero_cases = n;
		}
	}
	free(rows);
	free(d);
	return status;
}

int fpref_golden_probe_infer(const struct fpref_probe_data *data, struct fpref_probe_report *r, char *err, size_t errlen)
{
	int status = search_all(data, r, err, errlen);
	if (status == 0 && r->nclasses == 0 && without_c(data, r, err, errlen) != 0) {
		fpref_golden_probe_report_free(r);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return status;
}

static int search_all(const struct fpref_probe_data *data, struct fpref_probe_report *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	if (data->K < 1 || data->count == 0 || !fpref_tc_input_ok(&data->in) || !fpref_tc_input_ok(&data->in_b) ||
	    (!fpref_format_is(&data->out, FPREF_FORMAT_FLOAT32) && !fpref_format_is(&data->out, FPREF_FORMAT_FLOAT16))) {
		snprintf(err, errlen, "nothing to search: %zu cases of %zu products, %s x %s inputs (at most 10 fraction "
				      "bits), %s output (float32 or float16)", data->count, data->K,
			 data->in.name, data->in_b.name, data->out.name);
		return -1;
	}
	struct fpref_emu_tc_rows *rows = fpref_emu_tc_rows_new(&data->in, &data->in_b, data->rows, data->count, data->K);
	struct search s = { data, rows, { 0 }, 0, 0, 0 };
	int term_floor = fpref_golden_probe_term_floor(&data->in, &data->in_b, &data->out);
	struct grid g = { term_floor + 1, data_top(data) + 1, 0, data->K < FPREF_TC_MAX_BLOCK ? (int)data->K : FPREF_TC_MAX_BLOCK,
			  NULL };
	if (g.floor_max < g.floor_min)
		g.floor_max = g.floor_min;
	g.nfloors = g.floor_max - g.floor_min + 2;
	g.ok = calloc(2 * FPREF_TC_MAX_FRAC * (size_t)g.blocks * (size_t)g.nfloors, sizeof *g.ok);
	if (!g.ok || !rows) {
		free(g.ok);
		fpref_emu_tc_rows_free(rows);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r->floor_min = g.floor_min;
	r->floor_max = g.floor_max;
	r->consistent = search_grid(&s, &g);
	int status = classes_of(&g, term_floor, data->K, r) | check_presets(&s, r);
	if (status == 0 && r->nclasses == 0)
		nearest(&s, &g, r);
	r->tried = s.tried;
	free(g.ok);
	fpref_emu_tc_rows_free(rows);
	if (status != 0) {
		fpref_golden_probe_report_free(r);
		snprintf(err, errlen, "out of memory");
	}
	return status;
}

void fpref_golden_probe_report_free(struct fpref_probe_report *r)
{
	free(r->classes);
	free(r->c_zero_classes);
	r->classes = r->c_zero_classes = NULL;
	r->nclasses = r->c_zero_nclasses = 0;
}
