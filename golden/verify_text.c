/* The text of `fpref verify`: one golden file's report, a folder's lines
 * and its summary, written here so that the command and the Python
 * package's str() of a verification print the same words. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fpref_golden.h"
#include "fpref_golden_diagnose.h"

const char *const fpref_golden_ulps_bucket_labels[FPREF_VERIFY_BUCKETS] = { "0",    "<=0.5", "<=1", "<=2",
									     "<=4", "<=16",  ">16" };

static void print_buckets(FILE *out, const char *what, const size_t *b)
{
	fprintf(out, "  %-22s", what);
	for (int i = 0; i < FPREF_VERIFY_BUCKETS; i++)
		fprintf(out, " %s:%zu", fpref_golden_ulps_bucket_labels[i], b[i]);
	fprintf(out, "\n");
}

static void print_errors(FILE *out, const struct fpref_verify_report *r)
{
	fprintf(out, "error in ulps of the output (%zu finite cases):\n", r->cases - r->nonfinite);
	print_buckets(out, "against the golden", r->ulps_golden);
	print_buckets(out, "against the exact", r->ulps_exact);
	fprintf(out, "  max %.4g ulp (relative %.3g) against the golden; max %.4g ulp (relative %.3g), mean %.4g "
		"against the exact\n", r->max_ulps_golden, r->max_rel_golden, r->max_ulps_exact, r->max_rel_exact,
		r->measured_exact ? r->sum_ulps_exact / (double)r->measured_exact : 0.0);
	if (r->saturated || r->zero_golden)
		fprintf(out, "  against the exact, apart: %zu saturated (exact beyond the largest finite), %zu with a zero "
			"golden value\n", r->saturated, r->zero_golden);
}

static void print_case(FILE *out, const struct fpref_verify_case *c, const struct fpref_format *f, bool compare)
{
	char golden_hex[24], got_hex[24];
	fpref_format_hex(f, c->golden, golden_hex, sizeof golden_hex);
	fpref_format_hex(f, c->got, got_hex, sizeof got_hex);
	fprintf(out, "  line %zu: %s -> golden %s", c->line, c->inputs, compare ? (c->golden ? "1" : "0") : golden_hex);
	if (c->golden_flags >= 0)
		fprintf(out, " %02X", c->golden_flags);
	fprintf(out, ", got %s", compare ? (c->got ? "1" : "0") : got_hex);
	if (c->got_flags >= 0)
		fprintf(out, " %02X", c->got_flags);
	fprintf(out, " (%s", fpref_golden_mismatch_name(c->kind));
	if (!isnan(c->ulps))
		fprintf(out, ", %.3g ulp", c->ulps);
	fprintf(out, ")\n");
}

void fpref_golden_diagnosis_headline(const struct fpref_diagnosis_report *d, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!d->mismatches)
		return;
	if (!d->nrows) {
		snprintf(buf, len, "no mutant of the %zu run explains a mismatch", d->applicable);
		return;
	}
	const struct fpref_diagnosis *b = &d->rows[0];
	if (fpref_golden_diagnosis_exact(b))
		snprintf(buf, len, "exactly `%s`", b->mutant->name);
	else if (d->ncover > 1 && d->covered == d->mismatches)
		snprintf(buf, len, "%zu bugs together: `%s` + `%s`%s", d->ncover, d->cover[0].mutant->name,
			 d->cover[1].mutant->name, d->ncover > 2 ? " + ..." : "");
	else
		snprintf(buf, len, "likely `%s` (explains %zu of %zu mismatches, contradicts %zu)", b->mutant->name,
			 b->explains, b->mismatches, b->contradicts);
}

static void print_diagnosis(FILE *out, const struct fpref_diagnosis_report *d)
{
	if (!d->mismatches) {
		fprintf(out, "diagnosis none: no result differs from the golden bits\n");
		return;
	}
	fprintf(out, "diagnosis %zu mutants of the catalogue run on the golden inputs; %zu results differ in bits\n",
		d->applicable, d->mismatches);
	if (!d->nrows) {
		fprintf(out, "  no mutant gives the kernel's result on any mismatch: a bug the catalogue does not hold\n");
		return;
	}
	if (fpref_golden_diagnosis_exact(&d->rows[0])) {
		fprintf(out, "  these results are exactly `%s`: %s\n", d->rows[0].mutant->name, d->rows[0].mutant->bug);
		for (size_t i = 1; i < d->nrows && fpref_golden_diagnosis_exact(&d->rows[i]); i++)
			fprintf(out, "  and equally `%s` (on these inputs the two give the same bits): %s\n",
				d->rows[i].mutant->name, d->rows[i].mutant->bug);
		return;
	}
	fprintf(out, "  no mutant reproduces every result; ranked by mismatches explained less results contradicted:\n");
	for (size_t i = 0; i < d->nrows && i < 5; i++)
		fprintf(out, "  %-24s explains %zu of %zu mismatches, contradicts %zu (%s)\n", d->rows[i].mutant->name,
			d->rows[i].explains, d->rows[i].mismatches, d->rows[i].contradicts, d->rows[i].mutant->bug);
	if (d->ncover > 1) {
		fprintf(out, "  more than one bug (greedy cover of the mismatches):");
		for (size_t i = 0; i < d->ncover; i++)
			fprintf(out, "%s `%s` %zu%s", i ? " +" : "", d->cover[i].mutant->name, d->cover[i].explains,
				i ? " more" : "");
		fprintf(out, ": %zu of %zu mismatches explained; agreeing results contradicted:", d->covered,
			d->mismatches);
		for (size_t i = 0; i < d->ncover; i++)
			fprintf(out, "%s %zu", i ? "," : "", d->cover[i].contradicts);
		fprintf(out, "\n");
	}
}

void fpref_golden_verify_print(FILE *out, const char *golden, const struct fpref_golden_file *g,
			       const struct fpref_format *f, const char *results, const struct fpref_verify_report *r,
			       const struct fpref_verify_options *o, const struct fpref_diagnosis_report *d)
{
	bool tolerant = o->tolerance_ulps >= 0 || o->tolerance_rel >= 0;
	bool compare = !strcmp(g->op, "eq") || !strcmp(g->op, "lt") || !strcmp(g->op, "le");
	fprintf(out, "golden    %s: %s, %s, %zu vectors, sha256 ok\n", golden, g->op, g->formats, g->nlines);
	fprintf(out, "results   %s\n", results ? results : "the oracle, computed afresh");
	if (strcmp(g->op, "dot") != 0 && r->with_flags < r->cases)
		fprintf(out, "flags     %s: %s\n", r->with_flags ? "given on only some lines" : "not given",
			r->with_flags ? "judged where given, the rest on the values alone" : "judged on the values alone");
	fprintf(out, "exact     %zu of %zu\n", r->exact, r->cases);
	if (tolerant)
		fprintf(out, "within    %zu (tolerance %g %s)\n", r->within,
			o->tolerance_ulps >= 0 ? o->tolerance_ulps : o->tolerance_rel, o->tolerance_ulps >= 0 ? "ulp" : "rel");
	for (int k = 0; k < FPREF_MISMATCH_COUNT; k++)
		if (r->by_kind[k])
			fprintf(out, "  %-28s %zu\n", fpref_golden_mismatch_name((enum fpref_mismatch)k), r->by_kind[k]);
	if (r->cases > r->nonfinite && !compare)
		print_errors(out, r);
	if (r->with_bound)
		fprintf(out, "a priori bound of the model: %zu of %zu results above it\n", r->above_bound, r->with_bound);
	if (d)
		print_diagnosis(out, d);
	for (size_t i = 0; i < r->nshown; i++)
		print_case(out, &r->shown[i], f, compare);
	fprintf(out, "verdict   %s\n", r->outside ? "FAIL" : tolerant ? "pass (within tolerance)" : "pass (bit-exact)");
}

void fpref_golden_verify_problem_print(FILE *out, const char *path, size_t cases, size_t outside, const char *headline)
{
	fprintf(out, "FAIL %s: %zu of %zu outside%s%s\n", path, outside, cases, headline && headline[0] ? "; " : "",
		headline ? headline : "");
}

void fpref_golden_verify_folder_print(FILE *out, const char *golden, size_t files, size_t vectors, size_t outside,
				      size_t failed_files, size_t bad_files, bool manifest, bool pass)
{
	fprintf(out, "%s: %zu files, %zu vectors; %zu outside tolerance in %zu files; %zu files unreadable or "
		"mismatched; MANIFEST %s -> %s\n", golden, files, vectors, outside, failed_files, bad_files,
		manifest ? "matches" : "absent (completeness unknown)", pass ? "pass" : "FAIL");
}

void fpref_golden_verify_no_manifest_print(FILE *out, const char *golden)
{
	fprintf(out, "%s: no MANIFEST: the files found are checked, not whether any is missing\n", golden);
}
