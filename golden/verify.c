/* Verification: results from any implementation judged against a golden
 * file, bit for bit or within a tolerance, with every mismatch classified
 * (golden/classify.c) and the errors measured against the golden and the
 * exact values. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_golden.h"
#include "fpref_formats_npy.h"
#include "fpref_ref.h"
#include "parse_internal.h"

void fpref_golden_results_free(struct fpref_golden_results *r)
{
	free(r->bits);
	free(r->flags);
	r->bits = NULL;
	r->flags = NULL;
}

static int results_alloc(struct fpref_golden_results *r, size_t n)
{
	r->n = n;
	r->bits = malloc((n ? n : 1) * sizeof *r->bits);
	r->flags = malloc((n ? n : 1) * sizeof *r->flags);
	return r->bits && r->flags ? 0 : -1;
}

static int results_npy(const char *path, const struct fpref_golden_file *g, const struct fpref_golden_job *j,
		       struct fpref_golden_results *r, char *err, size_t errlen)
{
	struct fpref_npy a;
	if (fpref_npy_read(path, &a, err, errlen) != 0)
		return -1;
	size_t bytes = (size_t)(fpref_format_container_bits(&j->out) + 7) / 8;
	bytes = bytes <= 1 ? 1 : bytes <= 2 ? 2 : bytes <= 4 ? 4 : 8;
	int status = 0;
	if (a.count != g->nlines) {
		snprintf(err, errlen, "%s: %zu results for %zu golden vectors", path, a.count, g->nlines);
		status = -1;
	} else if (a.item_bytes != bytes || !strchr("uifVb", a.kind)) {
		snprintf(err, errlen, "%s: items of %zu bytes, kind '%c': expected %zu-byte patterns of %s", path,
			 a.item_bytes, a.kind, bytes, j->out.name);
		status = -1;
	} else if (results_alloc(r, a.count) != 0) {
		snprintf(err, errlen, "out of memory");
		status = -1;
	}
	for (size_t i = 0; status == 0 && i < a.count; i++) {
		uint64_t v = 0;
		memcpy(&v, (unsigned char *)a.data + i * bytes, bytes); /* little-endian host */
		r->bits[i] = v;
		r->flags[i] = -1;
	}
	fpref_npy_free(&a);
	if (status)
		fpref_golden_results_free(r);
	return status;
}

int fpref_golden_results_read(const char *path, const struct fpref_golden_file *g, const struct fpref_golden_job *j,
			      struct fpref_golden_results *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	unsigned char m[6] = { 0 };
	size_t got = fread(m, 1, 6, f);
	fclose(f);
	if (got == 6 && memcmp(m, "\x93NUMPY", 6) == 0)
		return results_npy(path, g, j, r, err, errlen);
	/* a text file: read it line by line (it has no checksum of its own) */
	f = fopen(path, "r");
	if (!f || results_alloc(r, g->nlines) != 0) {
		if (f)
			fclose(f);
		snprintf(err, errlen, "%s: cannot read it", path);
		fpref_golden_results_free(r);
		return -1;
	}
	char *line = NULL;
	size_t cap = 0, n = 0, lineno = 0;
	ssize_t len;
	int status = 0;
	struct fpref_golden_line *l = malloc(sizeof *l), *want = malloc(sizeof *want);
	if (!l || !want)
		status = -1;
	while (status == 0 && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if ((size_t)len != strlen(line)) {
			snprintf(err, errlen, "%s:%zu: a NUL byte", path, lineno);
			status = -1;
			break;
		}
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#') {
			static const char *const keys[] = { "op", "formats", "env" };
			const char *vals[] = { g->op, g->formats, g->env };
			for (int k = 0; k < 3; k++) {
				size_t kl = strlen(keys[k]);
				if (strncmp(line + 2, keys[k], kl) == 0 && line[2 + kl] == ' ' && strcmp(line + 3 + kl, vals[k]) != 0) {
					snprintf(err, errlen, "%s:%zu: header '# %s %s' does not match the golden file's '%s'", path,
						 lineno, keys[k], line + 3 + kl, vals[k]);
					status = -1;
				}
			}
			continue;
		}
		if (line[strspn(line, " \t\r")] == '\0')
			continue;
		char msg[256];
		if (n == g->nlines) {
			snprintf(err, errlen, "%s:%zu: more result lines than the %zu golden vectors", path, lineno, g->nlines);
			status = -1;
		} else if (fpref_golden_parse_tokens(j, line, l, j->kind == FPREF_GOLDEN_DOT ? 0 : -1, msg, sizeof msg) != 0) {
			snprintf(err, errlen, "%s:%zu: %s", path, lineno, msg);
			status = -1;
		} else if (fpref_golden_parse_line(j, g->lines[n], want, msg, sizeof msg) != 0) {
			snprintf(err, errlen, "golden line %zu: %s", n + 1, msg);
			status = -1;
		} else if (memcmp(l->in, want->in, l->nin * sizeof *l->in) != 0) {
			snprintf(err, errlen, "%s:%zu: the inputs differ from golden line %zu (results out of order or for "
					      "another file)", path, lineno, n + 1);
			status = -1;
		} else {
			r->bits[n] = l->result;
			r->flags[n] = l->flags;
			n++;
		}
	}
	free(line);
	free(l);
	free(want);
	fclose(f);
	if (status == 0 && n != g->nlines) {
		snprintf(err, errlen, "%s: %zu result lines for %zu golden vectors (truncated?)", path, n, g->nlines);
		status = -1;
	}
	if (status)
		fpref_golden_results_free(r);
	return status;
}

int fpref_golden_results_oracle(const struct fpref_golden_file *g, const struct fpref_golden_job *j,
				struct fpref_golden_results *r, char *err, size_t errlen)
{
	struct fpref_golden_line *l = malloc(sizeof *l);
	if (!l || results_alloc(r, g->nlines) != 0) {
		free(l);
		fpref_golden_results_free(r);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int status = 0;
	for (size_t i = 0; i < g->nlines && status == 0; i++) {
		char msg[256];
		if (fpref_golden_parse_line(j, g->lines[i], l, msg, sizeof msg) != 0) {
			snprintf(err, errlen, "golden line %zu: %s", i + 1, msg);
			status = -1;
			break;
		}
		unsigned flags = 0;
		if (j->kind == FPREF_GOLDEN_CONVERT)
			fpref_ref_convert(&j->in, l->in[0], &j->out, &j->env, 0, &r->bits[i], &flags);
		else if (j->kind == FPREF_GOLDEN_OP)
			fpref_ref_op(j->op, &j->in, l->in, &j->env, 0, &r->bits[i], &flags);
		else
			fpref_ref_tc_dot(&j->model, &j->in, &j->in_b, l->in, l->in + j->K, j->K, l->in[2 * j->K], &j->out,
					 &r->bits[i]);
		r->flags[i] = j->kind == FPREF_GOLDEN_DOT ? -1 : (int)flags;
	}
	free(l);
	if (status)
		fpref_golden_results_free(r);
	return status;
}

void fpref_golden_verify_report_free(struct fpref_verify_report *r)
{
	free(r->shown);
	r->shown = NULL;
}

int fpref_golden_ulps_bucket(double ulps)
{
	static const double edges[] = { 0, 0.5, 1, 2, 4, 16 };
	for (int i = 0; i < 6; i++)
		if (ulps <= edges[i])
			return i;
	return 6;
}

/* The exact value of a line's operation. */
static int exact_value(const struct fpref_golden_job *j, const struct fpref_golden_line *l, mpfr_ptr exact)
{
	if (j->kind == FPREF_GOLDEN_CONVERT) {
		struct fpref_ref_value v;
		fpref_ref_value_init(&v);
		int s = fpref_ref_from_bits(&j->in, l->in[0], false, &v);
		mpfr_set_prec(exact, mpfr_get_prec(v.x));
		mpfr_set(exact, v.x, MPFR_RNDN);
		fpref_ref_value_clear(&v);
		return s;
	}
	if (j->kind == FPREF_GOLDEN_OP)
		return fpref_ref_op_value(j->op, &j->in, l->in, exact);
	return fpref_ref_dot_value(&j->in, &j->in_b, l->in, l->in + j->K, j->K, l->in[2 * j->K], &j->out, exact);
}

/* Where the output overflows: its largest finite value and half an ulp
 * above it (round to nearest's threshold), so that an exact value just
 * above the largest finite, correctly rounded down to it, stays measured. */
static void overflow_threshold(const struct fpref_format *f, mpfr_ptr t)
{
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	fpref_ref_from_bits(f, fpref_format_max_bits(f, false), false, &v);
	mpfr_set(t, v.x, MPFR_RNDN);
	fpref_ref_value_clear(&v);
	if (!mpfr_regular_p(t))
		return;
	/* t in [2^(E-1), 2^E): an ulp is 2^(E-1-man_bits) */
	mpfr_exp_t e = mpfr_get_exp(t);
	mpfr_t half;
	mpfr_init2(half, 8);
	mpfr_set_ui_2exp(half, 1, e - 2 - f->man_bits, MPFR_RNDN);
	mpfr_add(t, t, half, MPFR_RNDN);
	mpfr_clear(half);
}

/* The error against the exact value, in the statistics unless the case
 * says nothing about rounding: an exact value beyond the largest finite
 * (saturated: 3.4e38 to 448 would read as a 16-ulp error), from the
 * overflow threshold up, or a zero golden
 * value (an underflow or a cancellation, where ulps are meaningless); those
 * are counted apart. */
static void add_exact(struct fpref_verify_report *rep, const struct fpref_golden_job *j, uint64_t golden, mpfr_srcptr exact,
		      mpfr_srcptr overflow, double ulps, double rel)
{
	struct fpref_unpacked g;
	if (mpfr_number_p(exact) && mpfr_cmpabs(exact, overflow) >= 0) {
		rep->saturated++;
		return;
	}
	if (fpref_decode(&j->out, golden, &g) != FPREF_DECODE_INVALID && g.cls == FPREF_CLASS_ZERO) {
		rep->zero_golden++;
		return;
	}
	rep->measured_exact++;
	rep->ulps_exact[fpref_golden_ulps_bucket(ulps)]++;
	rep->max_ulps_exact = fmax(rep->max_ulps_exact, ulps);
	rep->max_rel_exact = fmax(rep->max_rel_exact, rel);
	rep->sum_ulps_exact += ulps;
}

void fpref_golden_verify_error(const struct fpref_format *f, uint64_t want, uint64_t got, double *rel, double *ulps)
{
	double a;
	struct fpref_ref_value w;
	fpref_ref_value_init(&w);
	fpref_ref_from_bits(f, want, false, &w);
	if (fpref_ref_error(f, got, w.x, &a, rel, ulps) != 0)
		*rel = *ulps = NAN;
	fpref_ref_value_clear(&w);
}

bool fpref_golden_verify_tolerated(const struct fpref_format *f, uint64_t want, uint64_t got, double ulps, double rel,
			    const struct fpref_verify_options *o)
{
	struct fpref_unpacked x, y;
	fpref_decode(f, want, &x);
	fpref_decode(f, got, &y);
	bool specials_agree = (x.cls == FPREF_CLASS_NAN && y.cls == FPREF_CLASS_NAN) ||
			      (x.cls == FPREF_CLASS_INF && y.cls == FPREF_CLASS_INF && x.negative == y.negative);
	bool close = !isnan(ulps) && ((o->tolerance_ulps >= 0 && ulps <= o->tolerance_ulps) ||
				      (o->tolerance_rel >= 0 && rel <= o->tolerance_rel));
	return close || specials_agree;
}

int fpref_golden_verify(const struct fpref_golden_file *g, const struct fpref_golden_job *j,
			const struct fpref_golden_results *r, const struct fpref_verify_options *o,
			struct fpref_verify_report *rep, char *err, size_t errlen)
{
	memset(rep, 0, sizeof *rep);
	if (r->n != g->nlines) {
		snprintf(err, errlen, "%zu results for %zu golden vectors", r->n, g->nlines);
		return -1;
	}
	rep->shown = malloc((o->show ? o->show : 1) * sizeof *rep->shown);
	struct fpref_golden_line *l = malloc(sizeof *l);
	/* each mismatch's classes, counted by mask, told apart at the end */
	struct fpref_class_tally tally = { 0 };
	unsigned *shown_classes = malloc((o->show ? o->show : 1) * sizeof *shown_classes);
	if (!rep->shown || !l || !shown_classes) {
		free(l);
		free(shown_classes);
		fpref_golden_verify_report_free(rep);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	bool compare = j->kind == FPREF_GOLDEN_OP && fpref_op_is_compare(j->op);
	bool tolerant = o->tolerance_ulps >= 0 || o->tolerance_rel >= 0;
	mpfr_t exact, bound, overflow;
	mpfr_inits2(64, exact, bound, (mpfr_ptr)0);
	mpfr_init2(overflow, 160);
	overflow_threshold(&j->out, overflow);
	int status = 0;
	for (size_t i = 0; i < g->nlines; i++) {
		char msg[256];
		if (fpref_golden_parse_line(j, g->lines[i], l, msg, sizeof msg) != 0) {
			snprintf(err, errlen, "golden line %zu: %s", i + 1, msg);
			status = -1;
			break;
		}
		rep->cases++;
		if (o->progress && (i + 1) % 4096 == 0)
			o->progress(o->progress_ctx, i + 1, g->nlines);
		uint64_t got = r->bits[i];
		int got_flags = r->flags[i];
		bool same_bits = got == l->result, same_flags = got_flags < 0 || l->flags < 0 || got_flags == l->flags;
		double ulps_g = NAN, rel_g = NAN, ulps_x = NAN, rel_x = NAN, abs_x = NAN;
		if (!compare) {
			fpref_golden_verify_error(&j->out, l->result, got, &rel_g, &ulps_g);
			if (exact_value(j, l, exact) != 0 || fpref_ref_error(&j->out, got, exact, &abs_x, &rel_x, &ulps_x) != 0)
				ulps_x = rel_x = abs_x = NAN;
		}
		rep->with_flags += got_flags >= 0;
		if (isnan(ulps_g) || isnan(ulps_x))
			rep->nonfinite += !compare;
		else {
			rep->ulps_golden[fpref_golden_ulps_bucket(ulps_g)]++;
			rep->max_ulps_golden = fmax(rep->max_ulps_golden, ulps_g);
			rep->max_rel_golden = fmax(rep->max_rel_golden, rel_g);
			add_exact(rep, j, l->result, exact, overflow, ulps_x, rel_x);
		}
		if (j->kind == FPREF_GOLDEN_DOT && !isnan(abs_x) &&
		    fpref_ref_tc_bound(&j->model, &j->in, &j->in_b, l->in, l->in + j->K, j->K, l->in[2 * j->K], &j->out, 0, bound) == 0 &&
		    mpfr_number_p(bound)) {
			rep->with_bound++;
			rep->above_bound += abs_x > mpfr_get_d(bound, MPFR_RNDU);
		}
		if (same_bits && same_flags) {
			rep->exact++;
			rep->within++;
			continue;
		}
		unsigned classes = fpref_golden_classes_exact(j, l->in, l->result, (unsigned)(l->flags < 0 ? 0 : l->flags),
							      got, got_flags);
		enum fpref_mismatch kind = fpref_golden_class_first(classes, NULL);
		if (fpref_golden_class_tally_add(&tally, classes) != 0) {
			snprintf(err, errlen, "out of memory");
			status = -1;
			break;
		}
		if (tolerant && !compare &&
		    (fpref_golden_verify_tolerated(&j->out, l->result, got, ulps_g, rel_g, o) || (same_bits && !same_flags))) {
			rep->within++;
			continue;
		}
		rep->outside++;
		if (rep->nshown < o->show) {
			shown_classes[rep->nshown] = classes;
			struct fpref_verify_case *c = &rep->shown[rep->nshown++];
			*c = (struct fpref_verify_case){ i + 1, kind, l->result, got, l->flags, got_flags, ulps_g, "" };
			size_t n = 0;
			for (size_t k = 0; k < l->nin && n + 20 < sizeof c->inputs; k++) {
				char hex[24];
				fpref_format_hex(j->kind == FPREF_GOLDEN_DOT && k == l->nin - 1 ? &j->out : &j->in, l->in[k], hex,
						 sizeof hex);
				n += (size_t)snprintf(c->inputs + n, sizeof c->inputs - n, "%s%s", k ? " " : "", hex);
			}
			if (n + 20 >= sizeof c->inputs)
				snprintf(c->inputs + sizeof c->inputs - 5, 5, " ...");
		}
	}
	mpfr_clears(exact, bound, overflow, (mpfr_ptr)0);
	enum fpref_mismatch order[FPREF_MISMATCH_COUNT];
	fpref_golden_class_order(&tally, order);
	for (size_t m = 0; m < tally.n; m++)
		rep->by_kind[fpref_golden_class_first(tally.masks[m], order)] += tally.counts[m];
	for (size_t i = 0; i < rep->nshown; i++)
		rep->shown[i].kind = fpref_golden_class_first(shown_classes[i], order);
	fpref_golden_class_tally_free(&tally);
	free(shown_classes);
	free(l);
	if (status)
		fpref_golden_verify_report_free(rep);
	return status;
}
