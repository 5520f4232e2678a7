/* A GEMM through an accumulation model, measured against the exact
 * product: fpref gemm's statistics and fpref verify-gemm's verdict, both
 * from the one per-element measurement below (fpref_ref_error, as verify
 * measures), each exact value by the oracle's exact engine and each bound
 * from the operands it decoded (ref/fpref_ref_exact.h, docs/exact.md), the
 * rows over p->threads threads and the statistics summed in row order. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_golden_gemm.h"
#include "fpref_ref.h"
#include "fpref_ref_exact.h"
#include "fpref_emu_tc.h"

int fpref_golden_model_dot(const struct fpref_accum_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			   const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *out,
			   const struct fpref_env *env, uint64_t *d)
{
	unsigned flags = 0;
	if (m->kind == FPREF_ACCUM_EXACT)
		return fpref_ref_dot_exact(in_a, in_b, a, b, K, c, out, env, d, &flags);
	return fpref_emu_model_dot(m, in_a, in_b, a, b, K, c, out, env, d);
}

bool fpref_golden_model_scales_ok(const struct fpref_accum_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
				  const struct fpref_format *out, const struct fpref_tc_scales *scales, char *err,
				  size_t errlen)
{
	if (m->fma) {
		snprintf(err, errlen, "the %s model's %s instructions are FMA chains, which take no block scales", m->fma->gpu,
			 m->fma->input);
		return false;
	}
	if (m->kind != FPREF_ACCUM_TC) {
		snprintf(err, errlen, "block scales need a tensor-core model (a preset or generic), not a plain order");
		return false;
	}
	if (m->promote || m->splitk) {
		snprintf(err, errlen, "block scales are not modelled with --promote or a split-K order");
		return false;
	}
	if (fpref_tc_lowered(&m->tc, out) || m->tc.tree > 0) {
		snprintf(err, errlen, "the %s model runs %s%s%s inputs with %s output through %s, which takes no block scales",
			 m->tc.gpu, in_a->name, fpref_format_same(in_a, in_b) ? "" : " x ",
			 fpref_format_same(in_a, in_b) ? "" : in_b->name, out->name, m->tc.tree > 0 ? (m->tc.fused ? "exact group sums rounded to FP32" : "FP32 arithmetic")
					  : "the compiler's lowering");
		return false;
	}
	if (!fpref_tc_scales_ok(&m->tc, scales)) {
		bool e8m0 = fpref_format_is(scales->format, FPREF_FORMAT_FLOAT8_E8M0FNU);
		int unit = m->tc.group > 0 ? m->tc.group : m->tc.block;
		if (!e8m0 && !(m->tc.group > 0 && fpref_format_is(scales->format, FPREF_FORMAT_FLOAT8_E4M3FN)))
			snprintf(err, errlen, "the %s model takes %s scales, not %s", m->tc.gpu,
				 m->tc.group > 0 ? "float8_e8m0fnu or float8_e4m3fn (UE4M3)" : "float8_e8m0fnu",
				 scales->format->name);
		else
			snprintf(err, errlen, "the %s model takes a scale pair per multiple of %d products, not per %zu",
				 m->tc.gpu, unit, scales->every);
		return false;
	}
	return true;
}

int fpref_golden_model_dot_scaled(const struct fpref_accum_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
				  const uint64_t *a, const uint64_t *b, size_t K, const struct fpref_tc_scales *scales,
				  uint64_t c, const struct fpref_format *out, const struct fpref_env *env, uint64_t *d)
{
	if (!scales)
		return fpref_golden_model_dot(m, in_a, in_b, a, b, K, c, out, env, d);
	char err[160];
	if (!fpref_golden_model_scales_ok(m, in_a, in_b, out, scales, err, sizeof err))
		return -1;
	return fpref_emu_tc_dot_scaled(&m->tc, in_a, in_b, a, b, K, scales, c, out, d);
}

/* One scale entry: a pattern (0x...), 2^N, or an exact positive value. */
static int scale_entry(const struct fpref_format *f, const char *tok, uint64_t *code, char *err, size_t errlen)
{
	if (tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X') && !strpbrk(tok, ".pP"))
		return fpref_format_parse_bits(f, tok, code, err, errlen);
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	int status = 0;
	if (tok[0] == '2' && tok[1] == '^') {
		char *end;
		long e = strtol(tok + 2, &end, 10);
		if (!tok[2] || *end || e < -1000 || e > 1000) {
			snprintf(err, errlen, "'%s' is no power of two 2^N (N an integer)", tok);
			status = -1;
		} else
			mpfr_set_ui_2exp(v.x, 1, e, MPFR_RNDN);
	} else if (fpref_ref_parse(tok, &v, err, errlen) != 0)
		status = -1;
	if (status == 0 && (!mpfr_number_p(v.x) || mpfr_sgn(v.x) <= 0)) {
		snprintf(err, errlen, "scale '%s' is not a positive finite value (write NaN as its pattern, 0x...)", tok);
		status = -1;
	}
	if (status == 0) {
		struct fpref_env env;
		fpref_env_default(&env);
		unsigned flags = 0;
		fpref_ref_round(&v, f, &env, 0, code, &flags, NULL);
		if (flags & (FPREF_FLAG_INEXACT | FPREF_FLAG_OVERFLOW | FPREF_FLAG_INVALID)) {
			snprintf(err, errlen, "scale '%s' is not a value of %s%s", tok, f->name,
				 fpref_format_is(f, FPREF_FORMAT_FLOAT8_E8M0FNU) ? " (a power of two 2^-127..2^127)" : "");
			status = -1;
		}
	}
	fpref_ref_value_clear(&v);
	return status;
}

int fpref_golden_scales_parse(const struct fpref_format *f, const char *text, uint64_t **codes, size_t *count,
			      char *err, size_t errlen)
{
	size_t n = 1;
	for (const char *p = text; *p; p++)
		n += *p == ',';
	char *copy = strdup(text);
	uint64_t *out = malloc(n * sizeof *out);
	size_t i = 0;
	int status = copy && out ? 0 : -1;
	if (status)
		snprintf(err, errlen, "out of memory");
	for (char *tok = copy; status == 0 && i < n; i++) {
		char *next = strchr(tok, ',');
		if (next)
			*next = '\0';
		while (*tok == ' ')
			tok++;
		for (size_t len = strlen(tok); len > 0 && tok[len - 1] == ' '; len--)
			tok[len - 1] = '\0';
		if (!*tok) {
			snprintf(err, errlen, "scale %zu of '%s' is empty", i + 1, text);
			status = -1;
		} else if (scale_entry(f, tok, &out[i], err, errlen) != 0)
			status = -1;
		tok = next ? next + 1 : tok;
	}
	free(copy);
	if (status) {
		free(out);
		return -1;
	}
	*codes = out;
	*count = n;
	return 0;
}

/* The model's a priori bound on |d - exact|; NaN where none applies (the
 * exact model: one correct rounding, which the ulp error says). */
static int model_bound(const struct fpref_accum_model *m, const struct fpref_format *in_a,
		       const struct fpref_format *in_b, const uint64_t *a, const uint64_t *b, size_t K, uint64_t c,
		       const struct fpref_format *out, const struct fpref_env *env, mpfr_ptr bound)
{
	switch (m->kind) {
	case FPREF_ACCUM_TC:
		if (m->splitk)
			return fpref_ref_tc_bound_splitk(&m->tc, in_a, in_b, a, b, K, m->splitk, c, bound);
		return fpref_ref_tc_bound(&m->tc, in_a, in_b, a, b, K, c, out, m->promote, bound);
	case FPREF_ACCUM_PLAIN:
		return fpref_ref_sum_bound(m->order, m->block, in_a, in_b, a, b, K, c, out, env, bound);
	case FPREF_ACCUM_EXACT:
		break;
	}
	mpfr_set_nan(bound);
	return 0;
}

/* Tenths of the bound: [0, 0.1] is 0, (0.9, 1] is 9, above 1 is 10. */
static int ratio_bucket(double ratio)
{
	for (int i = 1; i <= 10; i++)
		if (ratio <= i / 10.0)
			return i - 1;
	return 10;
}

/* One element's errors against the exact value and its bound, measured
 * (in any thread), then added to the statistics in element order (so that
 * the sums are the same doubles on any number of threads). */
struct element {
	bool finite, bounded, exact_zero;
	double abs_err, rel_err, ulps, x, bound_d, bound_rel;
};

static void element_measure(const struct fpref_format *out, uint64_t d, mpfr_srcptr exact, mpfr_srcptr bound,
			    mpfr_ptr t, struct element *e)
{
	double abs_err, rel_err, ulps;
	bool finite = fpref_ref_error(out, d, exact, &abs_err, &rel_err, &ulps) == 0;
	*e = (struct element){ .finite = finite, .abs_err = abs_err, .rel_err = rel_err, .ulps = ulps };
	if (!finite)
		return;
	e->x = fabs(mpfr_get_d(exact, MPFR_RNDN));
	e->bounded = mpfr_number_p(bound);
	e->exact_zero = mpfr_zero_p(exact);
	if (!e->bounded)
		return;
	e->bound_d = mpfr_get_d(bound, MPFR_RNDU);
	if (!e->exact_zero) {
		mpfr_div(t, bound, exact, MPFR_RNDU);
		e->bound_rel = fabs(mpfr_get_d(t, MPFR_RNDU));
	}
}

/* abs (NaN when d or the exact value is not finite) */
static double element_add(struct fpref_gemm_stats *s, const struct element *e)
{
	s->count++;
	if (!e->finite) {
		s->nonfinite++;
		return NAN;
	}
	double abs_err = e->abs_err, x = e->x;
	s->max_abs = fmax(s->max_abs, abs_err);
	s->sum_abs_exact += x;
	s->sum_sq_exact += x * x;
	s->sum_sq_err += abs_err * abs_err;
	s->max_rel = fmax(s->max_rel, e->rel_err);
	s->sum_rel += e->rel_err;
	s->max_ulps = fmax(s->max_ulps, e->ulps);
	s->sum_ulps += e->ulps;
	s->ulps_hist[fpref_golden_ulps_bucket(e->ulps)]++;
	if (!e->bounded) {
		s->no_bound++;
		return abs_err;
	}
	double bound_d = e->bound_d;
	if (abs_err > bound_d)
		s->above_bound++;
	if (!e->exact_zero)
		s->max_bound_rel = fmax(s->max_bound_rel, e->bound_rel);
	if (bound_d > 0) {
		double ratio = abs_err / bound_d;
		s->max_ratio = fmax(s->max_ratio, ratio);
		s->sum_ratio += ratio;
		s->ratio_count++;
		s->ratio_hist[ratio_bucket(ratio)]++;
	}
	return abs_err;
}

void fpref_golden_gemm_summarize(const struct fpref_gemm_stats *s, struct fpref_gemm_summary *o)
{
	double n = s->count > s->nonfinite ? (double)(s->count - s->nonfinite) : 1;
	*o = (struct fpref_gemm_summary){
		.elements = s->count,
		.nonfinite = s->nonfinite,
		.above_bound = s->above_bound,
		.without_bound = s->no_bound,
		.with_bound = s->ratio_count,
		.max_abs = s->max_abs,
		.max_abs_over_mean_exact = s->max_abs / (s->sum_abs_exact / n),
		.normwise_rel = sqrt(s->sum_sq_err / s->sum_sq_exact),
		.max_rel = s->max_rel,
		.mean_rel = s->sum_rel / n,
		.max_ulps = s->max_ulps,
		.mean_ulps = s->sum_ulps / n,
		.bound_max_rel = s->max_bound_rel,
		.error_over_bound_max = s->max_ratio,
		.error_over_bound_mean = s->ratio_count ? s->sum_ratio / (double)s->ratio_count : 0,
	};
}

/* The format of B's patterns in Bq (in_b; NULL there: in_a). */
static const struct fpref_format *in_b_of(const struct fpref_gemm_problem *p)
{
	return p->in_b ? p->in_b : p->in_a;
}

/* The scale chunks of a row of A (and of a column of B). */
static size_t scale_chunks(const struct fpref_gemm_problem *p)
{
	return p->scales ? (p->K + p->scales->every - 1) / p->scales->every : 0;
}

/* What every element's measurement reads, made once: B's columns (the
 * model's, the source's, their scales) contiguous, and A and B decoded
 * for the exact engine (exact_ok false: a format it does not take, and
 * MPFR's fpref_ref_dot_value_scaled computes each exact value instead). */
struct judge {
	const struct fpref_gemm_problem *p;
	const struct fpref_format *in_b, *fa, *fb; /* fa, fb: the formats of A and B (the exact products') */
	uint64_t *Bqt, *Bt, *SBt;                  /* N x K, N x K (Bqt itself when B is Bq), N x chunks */
	size_t chunks;
	bool exact_ok, fast;
	struct fpref_exact_format xa, xb;
	struct fpref_exact_operand *EA, *EB; /* M x K, N x K */
	uint64_t *D;                         /* the model's D */
	const uint64_t *kernel;              /* verify-gemm: the kernel's D; NULL for gemm */
	bool measure;                        /* the exact values and bounds wanted */
};

static void judge_free(struct judge *J)
{
	if (J->Bt != J->Bqt)
		free(J->Bt);
	free(J->Bqt);
	free(J->SBt);
	free(J->EA);
	free(J->EB);
}

static int judge_init(struct judge *J, const struct fpref_gemm_problem *p, uint64_t *D, const uint64_t *kernel,
		      bool measure, bool fast)
{
	size_t M = p->M, N = p->N, K = p->K;
	/* an operand not quantised holds patterns of its input format, one quantised of src */
	*J = (struct judge){ .p = p, .in_b = in_b_of(p), .fa = p->A == p->Aq ? p->in_a : p->src,
			     .fb = p->B == p->Bq ? in_b_of(p) : p->src, .chunks = scale_chunks(p), .fast = fast,
			     .D = D, .kernel = kernel, .measure = measure };
	J->Bqt = malloc((N * K + 1) * sizeof *J->Bqt);
	J->Bt = p->B == p->Bq ? J->Bqt : malloc((N * K + 1) * sizeof *J->Bt);
	J->SBt = malloc((N * J->chunks + 1) * sizeof *J->SBt);
	if (!J->Bqt || !J->Bt || !J->SBt) {
		judge_free(J);
		return -1;
	}
	for (size_t k = 0; k < K; k++)
		for (size_t j = 0; j < N; j++) {
			J->Bqt[j * K + k] = p->Bq[k * N + j];
			J->Bt[j * K + k] = p->B[k * N + j];
		}
	for (size_t q = 0; q < J->chunks; q++)
		for (size_t j = 0; j < N; j++)
			J->SBt[j * J->chunks + q] = p->scales->b[q * N + j];
	if (!measure)
		return 0;
	J->exact_ok = fpref_ref_exact_format(J->fa, &J->xa) == 0 && fpref_ref_exact_format(J->fb, &J->xb) == 0;
	if (J->exact_ok) {
		J->EA = malloc((M * K + 1) * sizeof *J->EA);
		J->EB = malloc((N * K + 1) * sizeof *J->EB);
		J->exact_ok = J->EA && J->EB && fpref_ref_exact_decode(&J->xa, p->A, M * K, 1, J->EA, NULL) == 0 &&
			      fpref_ref_exact_decode(&J->xb, J->Bt, N * K, 1, J->EB, NULL) == 0;
	}
	return 0;
}

/* Element (i, j)'s exact value and bound (NaN: none). */
static void exact_and_bound(const struct judge *J, size_t i, size_t j, mpfr_ptr exact, mpfr_ptr bound)
{
	const struct fpref_gemm_problem *p = J->p;
	size_t K = p->K;
	uint64_t c = p->C ? p->C[i * p->N + j] : fpref_format_zero_bits(p->out, false);
	struct fpref_tc_scales sc = { p->scales ? p->scales->format : NULL, p->scales ? p->scales->a + i * J->chunks : NULL,
				     J->SBt + j * J->chunks, p->scales ? p->scales->every : 0 };
	const uint64_t *bq = J->Bqt + j * K;
	if (!J->exact_ok || fpref_ref_exact_dot(&J->xa, J->EA + i * K, &J->xb, J->EB + j * K, K, p->scales ? &sc : NULL,
						  p->out, c, exact) != 0)
		fpref_ref_dot_value_scaled(J->fa, J->fb, p->A + i * K, J->Bt + j * K, K, p->scales ? &sc : NULL, c, p->out,
					   exact);
	if (p->Aq != p->A || p->Bq != p->B)
		mpfr_set_nan(bound); /* errors against other inputs than the model's: no bound applies */
	else if (J->exact_ok && !p->scales && p->model->kind == FPREF_ACCUM_TC && p->model->splitk)
		fpref_ref_exact_tc_bound_splitk(&p->model->tc, &J->xa, J->EA + i * K, p->Aq + i * K, &J->xb, J->EB + j * K, bq,
						K, p->model->splitk, c, bound);
	else if (J->exact_ok && (p->scales || (p->model->kind == FPREF_ACCUM_TC && !p->model->splitk)))
		fpref_ref_exact_tc_bound(&p->model->tc, &J->xa, J->EA + i * K, p->Aq + i * K, &J->xb, J->EB + j * K, bq, K,
					 p->scales ? &sc : NULL, c, p->out, p->scales ? 0 : p->model->promote, bound);
	else if (p->scales)
		fpref_ref_tc_bound_scaled(&p->model->tc, p->in_a, J->in_b, p->Aq + i * K, bq, K, &sc, c, p->out, 0, bound);
	else
		model_bound(p->model, p->in_a, J->in_b, p->Aq + i * K, bq, K, c, p->out, p->env, bound);
}

/* Rows [i0, i1): thread t of T takes rows i0 + t, i0 + t + T, ...; each
 * element's D (models without the fast path), and its measurements at
 * [(i - i0) N + j] of model[] and kernel[] (the bound's double in bounds[]). */
struct rows {
	const struct judge *J;
	size_t i0, i1;
	unsigned t, T;
	struct element *model, *kernel;
	double *bounds;
	int status;
};

static void *rows_run(void *arg)
{
	struct rows *r = arg;
	const struct judge *J = r->J;
	const struct fpref_gemm_problem *p = J->p;
	size_t N = p->N, K = p->K;
	mpfr_t exact, bound, t;
	mpfr_inits2(64, exact, bound, t, (mpfr_ptr)0);
	for (size_t i = r->i0 + r->t; i < r->i1 && !r->status; i += r->T)
		for (size_t j = 0; j < N && !r->status; j++) {
			size_t at = (i - r->i0) * N + j;
			uint64_t c = p->C ? p->C[i * N + j] : fpref_format_zero_bits(p->out, false);
			if (!J->fast)
				r->status = fpref_golden_model_dot(p->model, p->in_a, J->in_b, p->Aq + i * K, J->Bqt + j * K, K, c,
								   p->out, p->env, &J->D[i * N + j]);
			if (r->status || !J->measure)
				continue;
			exact_and_bound(J, i, j, exact, bound);
			element_measure(p->out, J->D[i * N + j], exact, bound, t, &r->model[at]);
			if (J->kernel)
				element_measure(p->out, J->kernel[i * N + j], exact, bound, t, &r->kernel[at]);
			r->bounds[at] = mpfr_number_p(bound) ? mpfr_get_d(bound, MPFR_RNDU) : NAN;
		}
	mpfr_clears(exact, bound, t, (mpfr_ptr)0);
	return NULL;
}

/* Called with each batch of rows, in order, after its measurements. */
typedef void (*rows_fold)(void *fold_ctx, const struct judge *J, size_t i0, size_t i1, const struct element *model,
			  const struct element *kernel, const double *bounds);

/* Every row in batches over p->threads threads, each batch folded in
 * row order.  0, or -1 (the model could not compute an element, no memory). */
static int judge_run(const struct judge *J, rows_fold fold, void *fold_ctx, fpref_gemm_progress progress, void *ctx)
{
	const struct fpref_gemm_problem *p = J->p;
	size_t M = p->M, N = p->N;
	/* MPFR is called from every thread: one unless it keeps its state per thread */
	unsigned T = p->threads > 1 && mpfr_buildopt_tls_p() ? p->threads : 1;
	size_t batch = (size_t)T * (N < 4096 ? 4096 / N : 1);
	batch = batch < M ? batch : M;
	struct element *model = malloc((batch * N + 1) * sizeof *model), *kernel = malloc((batch * N + 1) * sizeof *kernel);
	double *bounds = malloc((batch * N + 1) * sizeof *bounds);
	struct rows *r = malloc(T * sizeof *r);
	pthread_t *ids = malloc(T * sizeof *ids);
	bool *started = malloc(T * sizeof *started);
	int status = model && kernel && bounds && r && ids && started ? 0 : -1;
	for (size_t i0 = 0; i0 < M && !status; i0 += batch) {
		size_t i1 = i0 + batch < M ? i0 + batch : M;
		unsigned n = i1 - i0 < T ? (unsigned)(i1 - i0) : T;
		for (unsigned t = 0; t < n; t++) {
			r[t] = (struct rows){ J, i0, i1, t, n, model, kernel, bounds, 0 };
			started[t] = t > 0 && pthread_create(&ids[t], NULL, rows_run, &r[t]) == 0;
		}
		for (unsigned t = 0; t < n; t++)
			if (!started[t]) /* thread 0, and any that could not start, here */
				rows_run(&r[t]);
		for (unsigned t = 0; t < n; t++) {
			if (started[t])
				pthread_join(ids[t], NULL);
			status = status ? status : r[t].status;
		}
		if (!status && J->measure)
			fold(fold_ctx, J, i0, i1, model, kernel, bounds);
		if (progress)
			progress(ctx, i1, M);
	}
	free(model);
	free(kernel);
	free(bounds);
	free(r);
	free(ids);
	free(started);
	return status;
}

static void gemm_fold(void *fold_ctx, const struct judge *J, size_t i0, size_t i1, const struct element *model,
		      const struct element *kernel, const double *bounds)
{
	(void)kernel;
	(void)bounds;
	for (size_t at = 0; at < (i1 - i0) * J->p->N; at++)
		element_add(fold_ctx, &model[at]);
}

int fpref_golden_gemm(const struct fpref_gemm_problem *p, uint64_t *D, struct fpref_gemm_stats *stats,
		      fpref_gemm_progress progress, void *ctx)
{
	size_t M = p->M, N = p->N, K = p->K;
	const struct fpref_accum_model *m = p->model;
	const struct fpref_format *in_a = p->in_a, *in_b = in_b_of(p);
	int status = 0;
	bool fast = m->kind == FPREF_ACCUM_TC && !m->splitk;
	if (p->scales) {
		char err[160];
		uint64_t none = 0;
		struct fpref_tc_scales probe = { p->scales->format, &none, &none, p->scales->every };
		if (!fpref_golden_model_scales_ok(m, in_a, in_b, p->out, &probe, err, sizeof err) || p->A != p->Aq ||
		    p->B != p->Bq)
			return -1;
		status = fpref_emu_tc_gemm_scaled_threads(&m->tc, in_a, in_b, p->out, M, N, K, p->Aq, p->Bq, p->scales,
							  p->C, D, p->threads);
	} else if (fast) /* the whole product at once: the emulator's fast path */
		status = fpref_emu_tc_gemm_threads(&m->tc, in_a, in_b, p->out, M, N, K, p->Aq, p->Bq, p->C, m->promote, D,
						   p->threads);
	if (status || (!stats && fast))
		return status;
	struct judge J;
	if (judge_init(&J, p, D, NULL, stats != NULL, fast) != 0)
		return -1;
	status = judge_run(&J, gemm_fold, stats, progress, ctx);
	judge_free(&J);
	return status;
}

void fpref_golden_gemm_verdict_free(struct fpref_gemm_verdict *v)
{
	free(v->worst);
	v->worst = NULL;
}

/* Larger first: a difference with no ulp measure (NaN against a number,
 * inf) before every finite one. */
static bool worse(const struct fpref_gemm_case *a, const struct fpref_gemm_case *b)
{
	if (isnan(a->ulps) != isnan(b->ulps))
		return isnan(a->ulps);
	return !isnan(a->ulps) && a->ulps > b->ulps;
}

static void keep_worst(struct fpref_gemm_verdict *v, size_t show, const struct fpref_gemm_case *c)
{
	size_t at = v->nworst;
	while (at > 0 && worse(c, &v->worst[at - 1]))
		at--;
	if (at >= show)
		return;
	size_t last = v->nworst < show ? v->nworst : show - 1;
	memmove(&v->worst[at + 1], &v->worst[at], (last - at) * sizeof *v->worst);
	v->worst[at] = *c;
	if (v->nworst < show)
		v->nworst++;
}

/* verify-gemm's fold: each element as fpref verify judges a result. */
struct verify_fold {
	const uint64_t *kernel;
	const struct fpref_verify_options *o;
	struct fpref_gemm_verdict *v;
};

static void verify_fold(void *fold_ctx, const struct judge *J, size_t i0, size_t i1, const struct element *model,
			const struct element *kernel, const double *bounds)
{
	struct verify_fold *f = fold_ctx;
	struct fpref_gemm_verdict *v = f->v;
	const struct fpref_verify_options *o = f->o;
	const struct fpref_gemm_problem *p = J->p;
	size_t N = p->N;
	bool tolerant = o->tolerance_ulps >= 0 || o->tolerance_rel >= 0;
	for (size_t i = i0; i < i1; i++)
		for (size_t j = 0; j < N; j++) {
			size_t at = i * N + j, here = (i - i0) * N + j;
			uint64_t got = f->kernel[at], want = J->D[at];
			double model_abs = element_add(&v->model_error, &model[here]);
			double kernel_abs = element_add(&v->kernel_error, &kernel[here]);
			double bound_d = bounds[here];
			v->kernel_above_bound += !isnan(bound_d) && !isnan(kernel_abs) && kernel_abs > bound_d;
			v->elements++;
			if (got == want) {
				v->matches++;
				v->within++;
				continue;
			}
			enum fpref_mismatch kind = fpref_golden_classify_errors(p->out, want, got, model_abs, kernel_abs);
			v->by_kind[kind]++;
			double rel, ulps; /* the kernel's value against the model's, as verify measures against the golden one */
			fpref_golden_verify_error(p->out, want, got, &rel, &ulps);
			if (tolerant && fpref_golden_verify_tolerated(p->out, want, got, ulps, rel, o))
				v->within++;
			else
				v->outside++;
			struct fpref_gemm_case c = { i, j, want, got, kind, ulps, kernel_abs, model_abs, bound_d };
			if (o->show)
				keep_worst(v, o->show, &c);
		}
}

int fpref_golden_gemm_verify(const struct fpref_gemm_problem *p, const uint64_t *kernel_D,
			     const struct fpref_verify_options *o, struct fpref_gemm_verdict *v,
			     fpref_gemm_progress progress, void *ctx, char *err, size_t errlen)
{
	memset(v, 0, sizeof *v);
	size_t M = p->M, N = p->N;
	uint64_t *D = malloc((M * N + 1) * sizeof *D);
	v->worst = malloc((o->show ? o->show : 1) * sizeof *v->worst);
	if (!D || !v->worst) {
		free(D);
		fpref_golden_gemm_verdict_free(v);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < M * N; i++) {
		struct fpref_unpacked u;
		if (fpref_decode(p->out, kernel_D[i], &u) == FPREF_DECODE_INVALID) {
			snprintf(err, errlen, "element (%zu, %zu) of D (0x%llx) is not a pattern of %s", i / N, i % N,
				 (unsigned long long)kernel_D[i], p->out->name);
			free(D);
			fpref_golden_gemm_verdict_free(v);
			return -1;
		}
	}
	int status = fpref_golden_gemm(p, D, NULL, NULL, NULL);
	struct judge J;
	if (status == 0 && judge_init(&J, p, D, kernel_D, true, true) != 0)
		status = -1;
	if (status == 0) {
		struct verify_fold f = { kernel_D, o, v };
		status = judge_run(&J, verify_fold, &f, progress, ctx);
		judge_free(&J);
	}
	if (status)
		snprintf(err, errlen, "the model cannot compute these inputs");
	free(D);
	if (status)
		fpref_golden_gemm_verdict_free(v);
	return status;
}
