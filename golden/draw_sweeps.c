/* fpref draw promotion and pytorch-tf32 (fpref_golden_draw.h): the
 * error of generated GEMMs over a list of sizes, two series on log2 axes
 * (the model alone and promoted; TF32 tensor cores and FP32), from the
 * library's summaries.  Both kinds in one file: they share the sweep and
 * the plot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_golden_draw.h"
#include "fpref_golden_gemm.h"
#include "fpref_golden_svg.h"

/* ---- promotion: error against K, alone and promoted ---- */

#define KS_MAX 12

static int parse_ks(const char *text, size_t *ks, int *n)
{
	*n = 0;
	for (const char *p = text; *p;) {
		char *end;
		unsigned long k = strtoul(p, &end, 10);
		if (end == p || k < 1 || k > 1 << 16 || *n == KS_MAX || (*end && *end != ',') || *p == '-')
			return -1;
		ks[(*n)++] = k;
		p = *end ? end + 1 : end;
	}
	return *n >= 2 ? 0 : -1;
}

/* --dist and --seed of the sweeps (each keeps its default when not given).
 * 0, or -1 with a message. */
static int parse_inputs(const char *dist_text, const char *seed_text, enum fpref_dist *dist, unsigned long long *seed,
			char *err, size_t errlen)
{
	char *end;
	if (dist_text && fpref_emu_dist_parse(dist_text, dist) != 0) {
		snprintf(err, errlen, "bad --dist '%s' (normal, uniform or positive)", dist_text);
		return -1;
	}
	if (seed_text && (*seed = strtoull(seed_text, &end, 10), !*seed_text || *end || *seed_text == '-')) {
		snprintf(err, errlen, "bad --seed '%s' (an unsigned integer)", seed_text);
		return -1;
	}
	return 0;
}

/* The values of n patterns of from rounded to `to`, nearest even (as
 * fpref gemm --source rounds its generated inputs). */
static void round_values(const struct fpref_format *from, uint64_t *bits, size_t n, const struct fpref_format *to)
{
	struct fpref_env rne;
	fpref_env_default(&rne);
	for (size_t i = 0; i < n; i++) {
		unsigned flags = 0;
		fpref_emu_convert(from, bits[i], to, &rne, 0, &bits[i], &flags);
	}
}

/* One K: generated A and B (as fpref gemm --size generates them), D
 * through the model, the summary of its errors.  0, or FPREF_DRAW_* with
 * a message. */
static int sweep_run(const struct fpref_accum_model *m, const struct fpref_format *src, const struct fpref_format *in,
		     const struct fpref_format *out, size_t M, size_t N, size_t K, enum fpref_dist dist,
		     unsigned long long seed, const struct fpref_env *env, struct fpref_gemm_summary *sum, char *err,
		     size_t errlen)
{
	uint64_t *A = malloc(M * K * sizeof *A), *B = malloc(K * N * sizeof *B), *D = malloc(M * N * sizeof *D);
	uint64_t *Aq = malloc(M * K * sizeof *Aq), *Bq = malloc(K * N * sizeof *Bq);
	int status = 0;
	struct fpref_gemm_stats st = { 0 };
	if (!A || !B || !D || !Aq || !Bq) {
		snprintf(err, errlen, "out of memory");
		status = FPREF_DRAW_NO_MEMORY;
	} else {
		/* as fpref gemm --size [--source src] makes them: src values, rounded to in (nearest even) */
		struct fpref_env rne;
		fpref_env_default(&rne);
		fpref_emu_random(src, &rne, dist, 0, seed, 0, M * K, A);
		fpref_emu_random(src, &rne, dist, 0, seed, M * K, K * N, B);
		memcpy(Aq, A, M * K * sizeof *A);
		memcpy(Bq, B, K * N * sizeof *B);
		bool same = fpref_format_same(src, in);
		if (!same) {
			round_values(src, Aq, M * K, in);
			round_values(src, Bq, K * N, in);
		}
		struct fpref_gemm_problem p = { .M = M, .N = N, .K = K, .src = src, .in_a = in, .in_b = in, .out = out, .A = A,
						.B = B, .Aq = same ? A : Aq, .Bq = same ? B : Bq, .model = m, .env = env,
						.threads = 1 };
		if (fpref_golden_gemm(&p, D, &st, NULL, NULL) != 0) {
			snprintf(err, errlen, "the model cannot compute these inputs");
			status = FPREF_DRAW_BAD_ARGS;
		}
		fpref_golden_gemm_summarize(&st, sum);
	}
	free(A);
	free(B);
	free(Aq);
	free(Bq);
	free(D);
	return status;
}

/* Two series of errors (the library's summaries) over a list of sizes,
 * both axes log2. */
struct two_series {
	const char *title, *sub;
	const size_t *x;
	int n;
	const double *a, *b; /* vermillion circles, blue squares */
	const char *key_a, *key_b, *xlabel, *ylabel;
};

static int plot_two(const struct two_series *t, char **svg)
{
	double kx[KS_MAX], ya[KS_MAX], yb[KS_MAX], lo = 0, hi = 0;
	for (int i = 0; i < t->n; i++) {
		kx[i] = fpref_golden_svg_log_place((double)t->x[i]);
		/* an error of zero sits at the axis' foot (-60: below any of these) */
		ya[i] = t->a[i] > 0 ? fpref_golden_svg_log_place(t->a[i]) : -60;
		yb[i] = t->b[i] > 0 ? fpref_golden_svg_log_place(t->b[i]) : -60;
		double l = ya[i] < yb[i] ? ya[i] : yb[i], h = ya[i] > yb[i] ? ya[i] : yb[i];
		lo = i == 0 || l < lo ? l : lo;
		hi = i == 0 || h > hi ? h : hi;
	}
	int blo = (int)lo - (lo < (int)lo) - 1, bhi = (int)hi + 1;
	struct fpref_svg s;
	fpref_golden_svg_begin(&s, 900, 520, t->title, t->sub);
	struct fpref_svg_scale xs = { kx[0], kx[t->n - 1], 100, 820 }, ys = { blo, bhi, 420, 80 };
	double px[KS_MAX], pa[KS_MAX], pb[KS_MAX];
	for (int i = 0; i < t->n; i++) {
		px[i] = fpref_golden_svg_map(&xs, kx[i]);
		pa[i] = fpref_golden_svg_map(&ys, ya[i]);
		pb[i] = fpref_golden_svg_map(&ys, yb[i]);
	}
	fpref_golden_svg_polyline(&s, px, pa, t->n, FPREF_SVG_VERMILLION, 2, "series a");
	fpref_golden_svg_polyline(&s, px, pb, t->n, FPREF_SVG_BLUE, 2, "series b");
	fpref_golden_svg_group(&s, "points");
	for (int i = 0; i < t->n; i++) {
		char tip[256];
		char na[32] = "n/a", nb[32] = "n/a";
		if (isfinite(t->a[i]))
			snprintf(na, sizeof na, "%.4g", t->a[i]);
		if (isfinite(t->b[i]))
			snprintf(nb, sizeof nb, "%.4g", t->b[i]);
		snprintf(tip, sizeof tip, "%zu: %s %s, %s %s", t->x[i], t->key_a, na, t->key_b, nb);
		fpref_golden_svg_circle(&s, px[i], pa[i], 4, FPREF_SVG_VERMILLION, "point", tip);
		fpref_golden_svg_rect(&s, px[i] - 4, pb[i] - 4, 8, 8, FPREF_SVG_BLUE, "point", tip);
	}
	fpref_golden_svg_group_end(&s);
	double ticks[KS_MAX + 16];
	char *labels[KS_MAX + 16], buf[(KS_MAX + 16) * 16];
	for (int i = 0; i < t->n; i++) {
		ticks[i] = kx[i];
		labels[i] = buf + 16 * i;
		snprintf(labels[i], 16, "%zu", t->x[i]);
	}
	fpref_golden_svg_axis(&s, true, &xs, 420, ticks, labels, t->n, t->xlabel);
	int nt = fpref_golden_svg_pow2_ticks(blo, bhi, 8, ticks, labels, buf, 16);
	fpref_golden_svg_axis(&s, false, &ys, 100, ticks, labels, nt, t->ylabel);
	struct fpref_svg_key keys[] = { { FPREF_SVG_VERMILLION, t->key_a, true }, { FPREF_SVG_BLUE, t->key_b, true } };
	fpref_golden_svg_legend(&s, 120, 470, keys, 2);
	return fpref_golden_svg_finish(&s, svg) == 0 ? 0 : FPREF_DRAW_NO_MEMORY;
}

int fpref_golden_draw_promotion(const struct fpref_draw_promotion *p, char **svg, char *err, size_t errlen)
{
	*svg = NULL;
	size_t ks[KS_MAX], M = 8, N = 8;
	int nk = 0;
	if (parse_ks(p->ks ? p->ks : "128,256,512,1024", ks, &nk) != 0) {
		snprintf(err, errlen, "bad --ks '%s' (2 to %d depths, each 1..65536, comma-separated)", p->ks, KS_MAX);
		return FPREF_DRAW_BAD_ARGS;
	}
	unsigned long m = 0, n = 0;
	char tail;
	if (p->size && (sscanf(p->size, "%lux%lu%c", &m, &n, &tail) != 2 || !m || !n || m > 256 || n > 256)) {
		snprintf(err, errlen, "bad --size '%s' (MxN, each 1..256)", p->size);
		return FPREF_DRAW_BAD_ARGS;
	}
	if (p->size) {
		M = m;
		N = n;
	}
	enum fpref_dist dist = FPREF_DIST_POSITIVE;
	unsigned long long seed = 1;
	if (parse_inputs(p->dist, p->seed, &dist, &seed, err, errlen) != 0)
		return FPREF_DRAW_BAD_ARGS;
	const struct fpref_format *in = p->in, *out = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_gemm_summary sa[KS_MAX], sp[KS_MAX];
	for (int i = 0; i < nk; i++) {
		int status = sweep_run(p->alone, in, in, out, M, N, ks[i], dist, seed, p->env, &sa[i], err, errlen);
		if (!status)
			status = sweep_run(p->promoted, in, in, out, M, N, ks[i], dist, seed, p->env, &sp[i], err, errlen);
		if (status)
			return status;
	}
	double ea[KS_MAX], ep[KS_MAX];
	for (int i = 0; i < nk; i++) {
		ea[i] = sa[i].normwise_rel;
		ep[i] = sp[i].normwise_rel;
	}
	char title[200], sub[320], desc[256], ka[64], kp[64];
	snprintf(title, sizeof title, "Error against K: %s alone and promoted every %s products", p->model, p->promote);
	snprintf(sub, sizeof sub, "%zux%zu outputs, %s inputs (%s, seed %llu) -> float32; %s", M, N, in->name,
		 fpref_emu_dist_name(dist), seed, fpref_golden_model_describe(p->alone, out->name, desc, sizeof desc));
	snprintf(ka, sizeof ka, "%s alone", p->model);
	snprintf(kp, sizeof kp, "promoted to FP32 every %s", p->promote);
	struct two_series t = { title, sub, ks, nk, ea, ep, ka, kp, "K (products per output, log2 axis)",
				"||D - exact||_F / ||exact||_F" };
	return plot_two(&t, svg);
}

/* ---- pytorch-tf32: PyTorch's protocol, TF32 tensor cores against FP32 ---- */

int fpref_golden_draw_pytorch_tf32(const struct fpref_accum_model *tf32_model, const struct fpref_accum_model *f32_model,
				   const char *ks_text, const char *dist_text, const char *seed_text, char **svg, char *err,
				   size_t errlen)
{
	*svg = NULL;
	size_t ns[KS_MAX];
	int n = 0;
	if (parse_ks(ks_text ? ks_text : "16,32,64", ns, &n) != 0) {
		snprintf(err, errlen, "bad --ks '%s' (2 to %d sizes N of N x N x N, comma-separated)", ks_text, KS_MAX);
		return FPREF_DRAW_BAD_ARGS;
	}
	for (int i = 0; i < n; i++)
		if (ns[i] > 512) {
			snprintf(err, errlen, "pytorch-tf32: --ks %zu: at most 512 (the exact product of every element is computed)",
				 ns[i]);
			return FPREF_DRAW_BAD_ARGS;
		}
	unsigned long long seed = 1;
	enum fpref_dist dist = FPREF_DIST_NORMAL;
	if (parse_inputs(dist_text, seed_text, &dist, &seed, err, errlen) != 0)
		return FPREF_DRAW_BAD_ARGS;
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32), *tf32 = fpref_format_get(FPREF_FORMAT_TF32);
	struct fpref_env env;
	fpref_env_default(&env);
	double ea[KS_MAX], eb[KS_MAX];
	for (int i = 0; i < n; i++) {
		struct fpref_gemm_summary sa, sb;
		int status = sweep_run(tf32_model, f32, tf32, f32, ns[i], ns[i], ns[i], dist, seed, &env, &sa, err, errlen);
		if (!status)
			status = sweep_run(f32_model, f32, f32, f32, ns[i], ns[i], ns[i], dist, seed, &env, &sb, err, errlen);
		if (status)
			return status;
		ea[i] = sa.max_abs_over_mean_exact;
		eb[i] = sb.max_abs_over_mean_exact;
	}
	char sub[200];
	snprintf(sub, sizeof sub, "N x N x N, FP32 inputs (%s, seed %llu), scored against the exact product of the FP32 "
		 "values", fpref_emu_dist_name(dist), seed);
	struct two_series t = { "PyTorch's TF32 protocol: max |error| / mean |exact|", sub, ns, n, ea, eb,
				"TF32 (a100 tensor core, inputs rounded to tf32)", "FP32 (fma chain)",
				"N (log2 axis)", "max |D - exact| / mean |exact|" };
	return plot_two(&t, svg);
}
