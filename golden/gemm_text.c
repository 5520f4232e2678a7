/* The text of a GEMM's verdict as `fpref verify-gemm` prints it (and the
 * error summary `fpref gemm` shares), written here so that the command and
 * the Python package's str() of a GemmVerdict print the same words; and the
 * one-line description of an accumulation model they both show. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fpref_golden_diagnose.h"
#include "fpref_golden_gemm.h"

void fpref_golden_num_text(double x, int digits, char *buf, size_t len)
{
	if (isfinite(x))
		snprintf(buf, len, "%.*g", digits, x);
	else
		snprintf(buf, len, "n/a");
}

struct num_text {
	char text[32];
};

static struct num_text num(double x, int digits)
{
	struct num_text n = { { 0 } };
	fpref_golden_num_text(x, digits, n.text, sizeof n.text);
	return n;
}

const char *fpref_golden_model_describe(const struct fpref_accum_model *m, const char *out_name, char *buf, size_t len)
{
	if (m->kind == FPREF_ACCUM_EXACT)
		snprintf(buf, len, "exact (MPFR, one rounding)");
	else if (m->kind == FPREF_ACCUM_PLAIN && m->fma)
		fpref_tc_fma_describe(m->fma, buf, len);
	else if (m->kind == FPREF_ACCUM_PLAIN && m->order == FPREF_SUM_BLOCKED)
		snprintf(buf, len, "blocked, blocks of %zu", m->block);
	else if (m->kind == FPREF_ACCUM_PLAIN)
		snprintf(buf, len, "%s", fpref_sum_order_name(m->order));
	else {
		fpref_tc_model_describe(&m->tc, out_name, buf, len);
		size_t n = strlen(buf);
		if (m->promote && n < len)
			snprintf(buf + n, len - n, ", promoted to FP32 every %zu", m->promote);
		if (m->splitk && n < len)
			snprintf(buf + n, len - n, ", cuBLASLt split-K: slices of %zu from zero, summed in FP32, C last",
				 m->splitk);
	}
	return buf;
}

void fpref_golden_gemm_errors_print(FILE *out, const char *title, const struct fpref_gemm_summary *s)
{
	fprintf(out, "%s (%zu elements", title, s->elements);
	if (s->nonfinite)
		fprintf(out, ", %zu not finite and left out", s->nonfinite);
	fprintf(out, "):\n");
	fprintf(out, "  absolute        max %s   max / mean |exact| %s (PyTorch's TF32 protocol)\n", num(s->max_abs, 6).text,
		num(s->max_abs_over_mean_exact, 6).text);
	fprintf(out, "  normwise        ||D - exact||_F / ||exact||_F %s\n", num(s->normwise_rel, 6).text);
	fprintf(out, "  relative        max %s   mean %s\n", num(s->max_rel, 6).text, num(s->mean_rel, 6).text);
	fprintf(out, "  ulps of output  max %s   mean %s\n", num(s->max_ulps, 6).text, num(s->mean_ulps, 6).text);
	if (s->with_bound || s->above_bound)
		fprintf(out, "a priori bound:   max bound/|exact| %s; error/bound max %s, mean %s; above the bound: %zu\n",
			num(s->bound_max_rel, 6).text, num(s->error_over_bound_max, 4).text,
			num(s->error_over_bound_mean, 4).text, s->above_bound);
}

static void print_case(FILE *out, const struct fpref_format *f, const struct fpref_gemm_case *c)
{
	char m[32], k[32];
	fpref_format_hex(f, c->model, m, sizeof m);
	fpref_format_hex(f, c->kernel, k, sizeof k);
	fprintf(out, "  D[%zu][%zu]  model %s  kernel %s  %s, %s ulp; |error| kernel %s, model %s, bound %s\n", c->row,
		c->col, m, k, fpref_golden_mismatch_name(c->kind), num(c->ulps, 4).text, num(c->kernel_abs, 6).text,
		num(c->model_abs, 6).text, num(c->bound, 6).text);
}

static void print_diagnosis(FILE *out, const struct fpref_gemm_diagnosis *dg)
{
	size_t all = dg->sampled_mismatches + dg->sampled_matches, fit = 0;
	fprintf(out, "diagnosis: the model's variants re-run on %zu of the %zu differing elements and %zu of the %zu "
		"agreeing\n", dg->sampled_mismatches, dg->mismatches, dg->sampled_matches, dg->matches);
	for (size_t i = 0; i < dg->nrows; i++)
		fit += dg->rows[i].explains + dg->rows[i].keeps == all;
	if (!dg->sampled_mismatches)
		return;
	fprintf(out, "  %s\n", fit ? "fits every sampled element:" : "no variant fits every sampled element; the nearest:");
	for (size_t i = 0; i < dg->nrows && i < (fit ? fit : 5); i++)
		fprintf(out, "  %s (explains %zu of %zu, keeps %zu of %zu)\n", dg->rows[i].what, dg->rows[i].explains,
			dg->sampled_mismatches, dg->rows[i].keeps, dg->sampled_matches);
}

void fpref_golden_gemm_verdict_print(FILE *out, const struct fpref_gemm_problem *p, const struct fpref_gemm_verdict *v,
				     const char *model_text, const char *scale_a, const char *scale_b,
				     const struct fpref_gemm_diagnosis *dg)
{
	const struct fpref_tc_gemm_scales *sc = p->scales;
	fprintf(out, "verify-gemm %zux%zux%zu (MxNxK), A: %s, B: %s -> %s\n", p->M, p->N, p->K, p->in_a->name,
		p->in_b->name, p->out->name);
	fprintf(out, "model: %s\n", model_text);
	if (sc)
		fprintf(out, "block scales: A %s, B %s (%s, one pair per %zu products)\n", scale_a ? scale_a : "ones",
			scale_b ? scale_b : "ones", sc->format->name, sc->every);
	fprintf(out, "D: %zu elements, %zu equal to the model's, %zu within tolerance, %zu outside\n", v->elements,
		v->matches, v->within, v->outside);
	for (int k = 0; k < FPREF_MISMATCH_COUNT; k++)
		if (v->by_kind[k])
			fprintf(out, "  %-28s %zu\n", fpref_golden_mismatch_name((enum fpref_mismatch)k), v->by_kind[k]);
	if (v->nworst) {
		fprintf(out, "the largest differences (row, column from 0):\n");
		for (size_t i = 0; i < v->nworst; i++)
			print_case(out, p->out, &v->worst[i]);
	}
	struct fpref_gemm_summary s;
	fpref_golden_gemm_summarize(&v->model_error, &s);
	fpref_golden_gemm_errors_print(out, "the model's D against the exact product", &s);
	fpref_golden_gemm_summarize(&v->kernel_error, &s);
	fpref_golden_gemm_errors_print(out, "the kernel's D against the exact product", &s);
	if (v->kernel_above_bound)
		fprintf(out, "%zu kernel elements are farther from the exact product than the model's bound allows\n",
			v->kernel_above_bound);
	if (dg)
		print_diagnosis(out, dg);
	fprintf(out, "%s\n", v->outside ? "FAIL" : "PASS");
}
