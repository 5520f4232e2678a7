/* fpref — a GEMM through an accumulation model, judged against the exact
 * product: the error statistics of fpref gemm, and the element-by-element
 * verdict on a kernel's D of fpref verify-gemm. */
#ifndef FPREF_GOLDEN_GEMM_H
#define FPREF_GOLDEN_GEMM_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_formats.h"
#include "fpref_formats_env.h"
#include "fpref_formats_tc_model.h"
#include "fpref_golden.h"

#ifdef __cplusplus
extern "C" {
#endif

/* d = a . b + c through any accumulation model: the emulator's
 * (fpref_emu_model_dot), or for FPREF_ACCUM_EXACT the oracle's one
 * rounding of the exact value.  0, or -1 for an invalid pattern. */
int fpref_golden_model_dot(const struct fpref_accum_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			   const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *out,
			   const struct fpref_env *env, uint64_t *d);

/* fpref_golden_model_dot with block scales (NULL: none, the same as
 * fpref_golden_model_dot): a tensor-core model without promotion or
 * split-K, on a native path (fpref_emu_tc_dot_scaled).  0, or -1 for an
 * invalid pattern or scales the model does not take (fpref_tc_scales_ok). */
int fpref_golden_model_dot_scaled(const struct fpref_accum_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
				  const uint64_t *a, const uint64_t *b, size_t K, const struct fpref_tc_scales *scales,
				  uint64_t c, const struct fpref_format *out, const struct fpref_env *env, uint64_t *d);

/* Whether an accumulation model takes block scales for this output, and
 * if not why, in err (a sentence for a command-line message). */
bool fpref_golden_model_scales_ok(const struct fpref_accum_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
				  const struct fpref_format *out, const struct fpref_tc_scales *scales, char *err,
				  size_t errlen);

/* Block scales written as text, comma-separated: each a pattern of f in
 * hex with 0x ("0x7F"), a value f holds exactly and positive ("0.25",
 * "4", "0x1p-3"), or 2^N ("2^-3").  *codes (malloc'd, the caller frees)
 * and *count; 0, or -1 with a message naming the bad entry in err. */
int fpref_golden_scales_parse(const struct fpref_format *f, const char *text, uint64_t **codes, size_t *count,
			      char *err, size_t errlen);

/* D = A B + C, A M x K and B K x N row-major.  Aq and Bq are the model's
 * inputs, patterns of in_a and in_b (A and B may be two formats: E5M2 x
 * E4M3, say); A and B the source values, the same arrays as Aq and Bq
 * when nothing was quantised (and then the model's bound applies), else
 * patterns of src (the format --source read them in).  C (patterns of
 * out) may be NULL for zeros.  in_b comes last so that initialisers by
 * position written before it still compile: NULL there means in_a. */
struct fpref_gemm_problem {
	size_t M, N, K;
	const struct fpref_format *src, *in_a, *out;
	const uint64_t *A, *B, *Aq, *Bq, *C;
	const struct fpref_accum_model *model;
	const struct fpref_env *env; /* the plain orders' and the exact model's environment */
	unsigned threads;            /* for D and the report (0: one): the same bits and report on any number */
	/* block scales (NULL: none): a tensor-core model that takes them
	 * (fpref_golden_model_scales_ok), no --source (A == Aq, B == Bq); D
	 * by fpref_emu_tc_gemm_scaled_threads, the exact product and the
	 * bound of the scaled values */
	const struct fpref_tc_gemm_scales *scales;
	const struct fpref_format *in_b; /* NULL: in_a */
};

/* Errors of one D against the exact product of the source values, per
 * element (fpref_ref_error's absolute, relative and ulp errors), with the
 * model's a priori bound where one applies.  The running sums; read them
 * through fpref_golden_gemm_summarize. */
#define FPREF_GEMM_RATIO_BUCKETS 11
struct fpref_gemm_stats {
	size_t count, nonfinite, above_bound, no_bound, ratio_count;
	double max_abs, max_rel, sum_rel, max_ulps, sum_ulps, max_bound_rel, max_ratio, sum_ratio;
	double sum_abs_exact, sum_sq_err, sum_sq_exact;
	/* the histograms of fpref draw gemm: each finite error in ulps of out
	 * by fpref_golden_ulps_bucket, and each error over its bound (where
	 * one applies) in tenths: [0, 0.1], (0.1, 0.2] ... (0.9, 1], > 1 */
	size_t ulps_hist[FPREF_VERIFY_BUCKETS];
	size_t ratio_hist[FPREF_GEMM_RATIO_BUCKETS];
};
struct fpref_gemm_summary {
	size_t elements, nonfinite, above_bound, without_bound, with_bound;
	double max_abs;
	double max_abs_over_mean_exact; /* PyTorch's TF32 protocol */
	double normwise_rel;            /* ||D - exact||_F / ||exact||_F */
	double max_rel, mean_rel, max_ulps, mean_ulps;
	double bound_max_rel;           /* max bound / |exact| */
	double error_over_bound_max, error_over_bound_mean;
};
void fpref_golden_gemm_summarize(const struct fpref_gemm_stats *s, struct fpref_gemm_summary *out);

/* Called after each row of D with the rows done and the total. */
typedef fpref_progress_fn fpref_gemm_progress;

/* D through the model (M x N patterns of out); with stats, each element
 * measured against the exact product of the source values and the bound.
 * 0, or -1 for an invalid pattern or no memory. */
int fpref_golden_gemm(const struct fpref_gemm_problem *p, uint64_t *D, struct fpref_gemm_stats *stats,
		      fpref_gemm_progress progress, void *ctx);

/* One element of a kernel's D that differs from the model's. */
struct fpref_gemm_case {
	size_t row, col;
	uint64_t model, kernel;
	enum fpref_mismatch kind;   /* as fpref verify classifies */
	double ulps;                /* kernel against model, in ulps of out; NaN when either is not finite */
	double kernel_abs, model_abs, bound; /* against the exact product; NaN when none */
};

/* The verdict on a kernel's D against the model's (tolerances and show as
 * fpref verify takes them), with both D's errors against the exact
 * product.  Exact-value errors and bounds need p->A == p->Aq. */
struct fpref_gemm_verdict {
	size_t elements, matches, within, outside;
	size_t by_kind[FPREF_MISMATCH_COUNT];
	size_t kernel_above_bound;     /* kernel elements farther from the exact product than the model's bound */
	struct fpref_gemm_stats model_error, kernel_error;
	struct fpref_gemm_case *worst; /* the largest differences first (non-finite ones before all) */
	size_t nworst;
};
void fpref_golden_gemm_verdict_free(struct fpref_gemm_verdict *v);
int fpref_golden_gemm_verify(const struct fpref_gemm_problem *p, const uint64_t *kernel_D,
			     const struct fpref_verify_options *o, struct fpref_gemm_verdict *v,
			     fpref_gemm_progress progress, void *ctx, char *err, size_t errlen);

/* golden/gemm_text.c: the words of fpref gemm and verify-gemm, shared with
 * the Python package's str().  A number for text: "%.*g", or "n/a" where x
 * is not finite (a ratio of zeros), never "-nan". */
void fpref_golden_num_text(double x, int digits, char *buf, size_t len);
/* A model in one line ("blocked, blocks of
 * 32", a preset's row with its promotion or split-K); buf, filled. */
const char *fpref_golden_model_describe(const struct fpref_accum_model *m, const char *out_name, char *buf, size_t len);
/* An error summary under its title: absolute, normwise, relative, ulps and
 * the a priori bound, as fpref gemm and verify-gemm print them. */
void fpref_golden_gemm_errors_print(FILE *out, const char *title, const struct fpref_gemm_summary *s);
struct fpref_gemm_diagnosis;
/* fpref verify-gemm's text report: scale_a, scale_b name the block scales
 * (NULL: ones; shown only when p has scales), dg the diagnosis (NULL: none). */
void fpref_golden_gemm_verdict_print(FILE *out, const struct fpref_gemm_problem *p, const struct fpref_gemm_verdict *v,
				     const char *model_text, const char *scale_a, const char *scale_b,
				     const struct fpref_gemm_diagnosis *dg);

#ifdef __cplusplus
}
#endif
#endif
