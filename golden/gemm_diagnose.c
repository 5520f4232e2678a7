/* Diagnosis of a GEMM kernel's D: the accumulation model given to
 * verify-gemm, varied one parameter at a time (fraction bits, block size,
 * the block's rounding, the floor, promotion, C added last, the other
 * instruction shapes' rows, the plain orders), each re-run on a sample of
 * the elements where the kernel differs from the model and of those where
 * it agrees; a variant that gives the kernel's bits on all of them is
 * what the kernel does.  The same question fpref probe infer asks of probe
 * cases, asked of a real GEMM's elements. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_golden_diagnose.h"

struct variant {
	struct fpref_accum_model m;
	bool c_last; /* C added by one rounded addition after the products */
	char what[128];
};

struct variants {
	struct variant *v;
	size_t n, cap;
};

static struct variant *push(struct variants *vs, const struct fpref_accum_model *m)
{
	if (vs->n == vs->cap) {
		size_t cap = vs->cap ? 2 * vs->cap : 64;
		struct variant *v = realloc(vs->v, cap * sizeof *v);
		if (!v)
			return NULL;
		vs->v = v;
		vs->cap = cap;
	}
	struct variant *v = &vs->v[vs->n++];
	memset(v, 0, sizeof *v);
	v->m = *m;
	return v;
}

static const char *rounding_name(enum fpref_rounding r)
{
	return r == FPREF_RTZ ? "toward zero" : r == FPREF_RNE ? "to nearest even" : "otherwise";
}

/* The tensor-core variants of the model: one parameter each. */
static void tc_variants(struct variants *vs, const struct fpref_gemm_problem *p)
{
	const struct fpref_accum_model *base = p->model;
	const struct fpref_tc_model *tc = &base->tc;
	bool fp32 = p->out->exp_bits == 8;
	struct variant *v;
	static const int fracs[] = { -2, -1, 1, 2, 13, 22, 23, 24, 25, FPREF_TC_MAX_FRAC };
	for (size_t i = 0; i < sizeof fracs / sizeof fracs[0]; i++) {
		int f = fracs[i] <= 2 ? tc->frac + fracs[i] : fracs[i];
		bool again = false;
		for (size_t k = 0; k < i; k++)
			again = again || (fracs[k] <= 2 ? tc->frac + fracs[k] : fracs[k]) == f;
		if (f < 1 || f > FPREF_TC_MAX_FRAC || f == tc->frac || again || !(v = push(vs, base)))
			continue;
		v->m.tc.frac = f;
		if (f == FPREF_TC_MAX_FRAC)
			snprintf(v->what, sizeof v->what, "no truncation in the block (the model keeps %d fraction bits)", tc->frac);
		else
			snprintf(v->what, sizeof v->what, "%s fraction bits: %d where the model keeps %d",
				 f > tc->frac ? "more" : "fewer", f, tc->frac);
	}
	for (int b = 1; b <= FPREF_TC_MAX_BLOCK; b *= 2)
		if (b != tc->block && (size_t)b <= p->K && (v = push(vs, base))) {
			v->m.tc.block = b;
			snprintf(v->what, sizeof v->what, "blocks of %d products where the model sums %d", b, tc->block);
		}
	enum fpref_rounding r = fp32 ? tc->round_fp32 : tc->round_fp16;
	if ((v = push(vs, base))) {
		enum fpref_rounding other = r == FPREF_RTZ ? FPREF_RNE : FPREF_RTZ;
		*(fp32 ? &v->m.tc.round_fp32 : &v->m.tc.round_fp16) = other;
		snprintf(v->what, sizeof v->what, "the block rounded %s, where the model rounds %s", rounding_name(other),
			 rounding_name(r));
	}
	if ((fp32 ? tc->floor_fp32 : tc->floor_fp16) != FPREF_TC_NO_FLOOR && (v = push(vs, base))) {
		*(fp32 ? &v->m.tc.floor_fp32 : &v->m.tc.floor_fp16) = FPREF_TC_NO_FLOOR;
		snprintf(v->what, sizeof v->what, "no floor under the alignment exponent");
	}
	if (base->promote && (v = push(vs, base))) {
		v->m.promote = 0;
		snprintf(v->what, sizeof v->what, "no promotion to an FP32 accumulator (the model promotes every %zu)",
			 base->promote);
	}
	for (size_t every = 16; every < p->K; every *= 2)
		if (every != base->promote && !base->splitk && (v = push(vs, base))) {
			v->m.promote = every;
			if (base->promote)
				snprintf(v->what, sizeof v->what, "promotion every %zu products, where the model promotes every %zu",
					 every, base->promote);
			else
				snprintf(v->what, sizeof v->what, "promotion to FP32 every %zu products (the model has none)", every);
		}
	if (p->C && (v = push(vs, base))) {
		v->c_last = true;
		snprintf(v->what, sizeof v->what, "C added after the products by one rounded addition");
	}
}

/* Other instruction shapes (the preset rows that take these operands and
 * output), the plain orders and the exact product, for any model. */
static void other_models(struct variants *vs, const struct fpref_gemm_problem *p)
{
	const struct fpref_accum_model *base = p->model;
	const struct fpref_format *in_b = p->in_b ? p->in_b : p->in_a;
	struct variant *v;
	for (size_t i = 0; i < fpref_tc_model_count(); i++) {
		const struct fpref_tc_model *t = fpref_tc_model_at(i);
		if (!fpref_tc_pair_ok(t, p->in_a, in_b) || !fpref_tc_output_ok(t, p->in_a, p->out) ||
		    (base->kind == FPREF_ACCUM_TC && strcmp(t->gpu, base->tc.gpu) == 0) || !(v = push(vs, base)))
			continue;
		v->m.kind = FPREF_ACCUM_TC;
		v->m.tc = *t;
		snprintf(v->what, sizeof v->what, "the %s row's model (another instruction shape)", t->gpu);
	}
	static const enum fpref_sum_order orders[] = { FPREF_SUM_RECURSIVE, FPREF_SUM_PAIRWISE, FPREF_SUM_FMA_CHAIN,
						      FPREF_SUM_KAHAN };
	for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++)
		if ((base->kind != FPREF_ACCUM_PLAIN || base->order != orders[i]) && (v = push(vs, base))) {
			v->m.kind = FPREF_ACCUM_PLAIN;
			v->m.order = orders[i];
			v->m.promote = v->m.splitk = 0;
			snprintf(v->what, sizeof v->what, "%s summation in the output format", fpref_sum_order_name(orders[i]));
		}
	if (base->kind != FPREF_ACCUM_EXACT && (v = push(vs, base))) {
		v->m.kind = FPREF_ACCUM_EXACT;
		snprintf(v->what, sizeof v->what, "the exact product rounded once");
	}
}

static int variant_dot(const struct variant *v, const struct fpref_gemm_problem *p, const uint64_t *a,
		       const uint64_t *b, uint64_t c, uint64_t *d)
{
	const struct fpref_format *in_b = p->in_b ? p->in_b : p->in_a;
	if (!v->c_last)
		return fpref_golden_model_dot(&v->m, p->in_a, in_b, a, b, p->K, c, p->out, p->env, d);
	uint64_t sum[2];
	if (fpref_golden_model_dot(&v->m, p->in_a, in_b, a, b, p->K, fpref_format_zero_bits(p->out, false), p->out,
				   p->env, &sum[0]) != 0)
		return -1;
	sum[1] = c;
	struct fpref_env env;
	fpref_env_default(&env);
	unsigned flags = 0;
	return fpref_emu_op(FPREF_OP_ADD, p->out, sum, &env, 0, d, &flags);
}

/* Up to `want` indices of D, spread evenly over those where (kernel ==
 * model) is `agree`. */
static size_t pick(const uint64_t *model, const uint64_t *kernel, size_t n, bool agree, size_t want, size_t *out,
		   size_t *total)
{
	*total = 0;
	for (size_t i = 0; i < n; i++)
		*total += (model[i] == kernel[i]) == agree;
	size_t got = 0, seen = 0, stride = want && *total > want ? *total / want : 1;
	for (size_t i = 0; i < n && got < want; i++)
		if ((model[i] == kernel[i]) == agree && seen++ % stride == 0)
			out[got++] = i;
	return got;
}

static int by_fit(const void *x, const void *y)
{
	const struct fpref_gemm_candidate *a = x, *b = y;
	size_t fa = a->explains + a->keeps, fb = b->explains + b->keeps;
	return fa != fb ? (fa > fb ? -1 : 1) : 0;
}

int fpref_golden_gemm_diagnose(const struct fpref_gemm_problem *p, const uint64_t *kernel_D, size_t sample,
			       struct fpref_gemm_diagnosis *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof *d);
	if (p->scales || p->A != p->Aq || p->B != p->Bq) {
		snprintf(err, errlen, "--diagnose does not vary block-scaled or quantised GEMMs");
		return -1;
	}
	size_t n = p->M * p->N;
	uint64_t *model = malloc((n ? n : 1) * sizeof *model), *col = malloc((p->K ? p->K : 1) * sizeof *col);
	size_t *idx = malloc((2 * sample + 1) * sizeof *idx);
	struct variants vs = { 0 };
	int status = model && col && idx ? 0 : -1;
	if (status)
		snprintf(err, errlen, "out of memory");
	else if (fpref_golden_gemm(p, model, NULL, NULL, NULL) != 0) {
		snprintf(err, errlen, "the model's D could not be computed");
		status = -1;
	}
	if (status == 0) {
		size_t nm = pick(model, kernel_D, n, false, sample, idx, &d->mismatches);
		size_t na = pick(model, kernel_D, n, true, sample, idx + nm, &d->matches);
		d->sampled_mismatches = nm;
		d->sampled_matches = na;
		if (p->model->kind == FPREF_ACCUM_TC)
			tc_variants(&vs, p);
		other_models(&vs, p);
		d->rows = calloc(vs.n ? vs.n : 1, sizeof *d->rows);
		if (!d->rows) {
			snprintf(err, errlen, "out of memory");
			status = -1;
		}
		for (size_t k = 0; status == 0 && k < vs.n && nm; k++) {
			struct fpref_gemm_candidate c = { "", 0, 0 };
			snprintf(c.what, sizeof c.what, "%s", vs.v[k].what);
			bool runs = true;
			for (size_t s = 0; s < nm + na && runs; s++) {
				size_t i = idx[s] / p->N, j = idx[s] % p->N;
				for (size_t q = 0; q < p->K; q++)
					col[q] = p->Bq[q * p->N + j];
				uint64_t c0 = p->C ? p->C[idx[s]] : fpref_format_zero_bits(p->out, false), r;
				runs = variant_dot(&vs.v[k], p, p->Aq + i * p->K, col, c0, &r) == 0;
				if (runs && r == kernel_D[idx[s]])
					*(s < nm ? &c.explains : &c.keeps) += 1;
			}
			if (runs && c.explains)
				d->rows[d->nrows++] = c;
		}
		qsort(d->rows, d->nrows, sizeof *d->rows, by_fit);
	}
	free(vs.v);
	free(model);
	free(col);
	free(idx);
	if (status)
		fpref_golden_gemm_diagnosis_free(d);
	return status;
}

void fpref_golden_gemm_diagnosis_free(struct fpref_gemm_diagnosis *d)
{
	free(d->rows);
	d->rows = NULL;
	d->nrows = 0;
}
