/* fpref verify: judge results against golden files, or recheck golden
 * files against the oracle; one file, or two folders side by side. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "fpref_golden.h"

struct verify_args {
	struct fpref_verify_options o;
	bool json;
};

static int parse_tolerance(const char *text, struct fpref_verify_options *o)
{
	char *end;
	double v = strtod(text, &end);
	if (end != text && v >= 0 && (strcmp(end, "ulp") == 0 || strcmp(end, "ulps") == 0))
		o->tolerance_ulps = v;
	else if (end != text && v >= 0 && strcmp(end, "rel") == 0)
		o->tolerance_rel = v;
	else {
		cli_error("bad --tolerance '%s' (N ulp, or X rel: 2ulp, 1e-3rel)", text);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

static void print_buckets(const char *what, const size_t *b)
{
	static const char *const labels[FPREF_VERIFY_BUCKETS] = { "0", "<=0.5", "<=1", "<=2", "<=4", "<=16", ">16" };
	printf("  %-22s", what);
	for (int i = 0; i < FPREF_VERIFY_BUCKETS; i++)
		printf(" %s:%zu", labels[i], b[i]);
	printf("\n");
}

/* How the flags were judged: on every case, on some, or not at all. */
static const char *flags_judged(const struct fpref_verify_report *r, bool dot)
{
	return dot ? "none in the golden file" : r->with_flags == r->cases ? "compared" : r->with_flags ? "partly given"
													       : "not given";
}

static void print_json(const char *golden, const struct fpref_golden_file *g, const char *results,
		       const struct fpref_verify_report *r)
{
	printf("{\"golden\": ");
	cli_json_string(golden);
	printf(", \"results\": ");
	cli_json_string(results ? results : "oracle");
	printf(", \"op\": \"%s\", \"formats\": ", g->op);
	cli_json_string(g->formats);
	printf(", \"cases\": %zu, \"exact\": %zu, \"within\": %zu, \"outside\": %zu, \"mismatches\": {", r->cases,
	       r->exact, r->within, r->outside);
	bool first = true;
	for (int k = 0; k < FPREF_MISMATCH_COUNT; k++)
		if (r->by_kind[k]) {
			printf("%s\"%s\": %zu", first ? "" : ", ", fpref_golden_mismatch_name((enum fpref_mismatch)k), r->by_kind[k]);
			first = false;
		}
	printf("}, \"max_ulps_golden\": %s, \"max_rel_golden\": %s, \"max_ulps_exact\": %s, "
	       "\"max_rel_exact\": %s, \"mean_ulps_exact\": %s, \"measured_exact\": %zu, \"saturated\": %zu, "
	       "\"zero_golden\": %zu, \"flags\": \"%s\", \"with_bound\": %zu, \"above_bound\": %zu, \"pass\": %s}\n",
	       cli_json_num(r->max_ulps_golden).text, cli_json_num(r->max_rel_golden).text,
	       cli_json_num(r->max_ulps_exact).text, cli_json_num(r->max_rel_exact).text,
	       cli_json_num(r->measured_exact ? r->sum_ulps_exact / (double)r->measured_exact : 0).text, r->measured_exact,
	       r->saturated, r->zero_golden, flags_judged(r, strcmp(g->op, "dot") == 0), r->with_bound, r->above_bound,
	       r->outside ? "false" : "true");
}

static void print_errors(const struct fpref_verify_report *r)
{
	printf("error in ulps of the output (%zu finite cases):\n", r->cases - r->nonfinite);
	print_buckets("against the golden", r->ulps_golden);
	print_buckets("against the exact", r->ulps_exact);
	printf("  max %.4g ulp (relative %.3g) against the golden; max %.4g ulp (relative %.3g), mean %.4g "
	       "against the exact\n", r->max_ulps_golden, r->max_rel_golden, r->max_ulps_exact, r->max_rel_exact,
	       r->measured_exact ? r->sum_ulps_exact / (double)r->measured_exact : 0.0);
	if (r->saturated || r->zero_golden)
		printf("  against the exact, apart: %zu saturated (exact beyond the largest finite), %zu with a zero "
		       "golden value\n", r->saturated, r->zero_golden);
}

static void print_case(const struct fpref_verify_case *c, const struct fpref_format *out, bool compare)
{
	char golden_hex[24], got_hex[24];
	fpref_format_hex(out, c->golden, golden_hex, sizeof golden_hex);
	fpref_format_hex(out, c->got, got_hex, sizeof got_hex);
	printf("  line %zu: %s -> golden %s", c->line, c->inputs, compare ? (c->golden ? "1" : "0") : golden_hex);
	if (c->golden_flags >= 0)
		printf(" %02X", c->golden_flags);
	printf(", got %s", compare ? (c->got ? "1" : "0") : got_hex);
	if (c->got_flags >= 0)
		printf(" %02X", c->got_flags);
	printf(" (%s", fpref_golden_mismatch_name(c->kind));
	if (!isnan(c->ulps))
		printf(", %.3g ulp", c->ulps);
	printf(")\n");
}

static void print_report(const char *golden, const struct fpref_golden_file *g, const struct fpref_format *out,
			 const char *results, const struct fpref_verify_report *r, const struct fpref_verify_options *o,
			 bool json)
{
	bool tolerant = o->tolerance_ulps >= 0 || o->tolerance_rel >= 0;
	bool compare = !strcmp(g->op, "eq") || !strcmp(g->op, "lt") || !strcmp(g->op, "le");
	if (json) {
		print_json(golden, g, results, r);
		return;
	}
	printf("golden    %s: %s, %s, %zu vectors, sha256 ok\n", golden, g->op, g->formats, g->nlines);
	printf("results   %s\n", results ? results : "the oracle, computed afresh");
	if (strcmp(g->op, "dot") != 0 && r->with_flags < r->cases)
		printf("flags     %s: %s\n", r->with_flags ? "given on only some lines" : "not given",
		       r->with_flags ? "judged where given, the rest on the values alone" : "judged on the values alone");
	printf("exact     %zu of %zu\n", r->exact, r->cases);
	if (tolerant)
		printf("within    %zu (tolerance %g %s)\n", r->within,
		       o->tolerance_ulps >= 0 ? o->tolerance_ulps : o->tolerance_rel, o->tolerance_ulps >= 0 ? "ulp" : "rel");
	for (int k = 0; k < FPREF_MISMATCH_COUNT; k++)
		if (r->by_kind[k])
			printf("  %-28s %zu\n", fpref_golden_mismatch_name((enum fpref_mismatch)k), r->by_kind[k]);
	if (r->cases > r->nonfinite && !compare)
		print_errors(r);
	if (r->with_bound)
		printf("a priori bound of the model: %zu of %zu results above it\n", r->above_bound, r->with_bound);
	for (size_t i = 0; i < r->nshown; i++)
		print_case(&r->shown[i], out, compare);
	printf("verdict   %s\n", r->outside ? "FAIL" : tolerant ? "pass (within tolerance)" : "pass (bit-exact)");
}

/* One golden file against results (NULL: the oracle).  Exit status. */
static int verify_one(const char *golden, const char *results, const struct verify_args *a, bool quiet,
		      size_t *vectors, size_t *outside)
{
	char err[2048];
	struct fpref_golden_file g;
	struct fpref_golden_job j;
	if (fpref_golden_read(golden, &g, err, sizeof err) != 0) {
		cli_error("%s", err);
		return CLI_EXIT_USAGE;
	}
	if (fpref_golden_job_of(&g, &j, err, sizeof err) != 0) {
		cli_error("%s: %s", golden, err);
		fpref_golden_file_free(&g);
		return CLI_EXIT_USAGE;
	}
	struct fpref_golden_results res;
	int r = results ? fpref_golden_results_read(results, &g, &j, &res, err, sizeof err)
			: fpref_golden_results_oracle(&g, &j, &res, err, sizeof err);
	if (r != 0) {
		cli_error("%s", err);
		fpref_golden_file_free(&g);
		return CLI_EXIT_USAGE;
	}
	struct fpref_verify_report rep;
	r = fpref_golden_verify(&g, &j, &res, &a->o, &rep, err, sizeof err);
	if (r != 0)
		cli_error("%s", err);
	else if (!quiet)
		print_report(golden, &g, &j.out, results, &rep, &a->o, a->json);
	int status = r != 0 ? CLI_EXIT_USAGE : rep.outside ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	*vectors = rep.cases;
	*outside = rep.outside;
	fpref_golden_verify_report_free(&rep);
	fpref_golden_results_free(&res);
	fpref_golden_file_free(&g);
	return status;
}

/* The folder's MANIFEST, when it has one: missing, changed or extra files
 * make the folder damaged (exit 2), whatever its files say.  The manifest's
 * state for the summary, or NULL after an error. */
static const char *manifest_state(const char *golden, bool json, size_t *listed)
{
	char err[2048] = "";
	int m = fpref_golden_manifest_check(golden, listed, err, sizeof err);
	if (m < 0) {
		cli_error("%s", err);
		if (json) {
			printf("{\"golden\": ");
			cli_json_string(golden);
			printf(", \"manifest\": \"mismatch\", \"error\": ");
			cli_json_string(err);
			printf(", \"pass\": false}\n");
		}
		return NULL;
	}
	if (m == 1 && !json)
		printf("%s: no MANIFEST: the files found are checked, not whether any is missing\n", golden);
	return m == 1 ? "none" : "ok";
}

/* One line per file that fails or cannot be judged: text, or a JSON array's items. */
static void print_problem(const char *path, int status, size_t cases, size_t outside, bool json, bool *first)
{
	if (status == CLI_EXIT_OK)
		return;
	if (!json) {
		if (status == CLI_EXIT_FAIL)
			printf("FAIL %s: %zu of %zu outside\n", path, outside, cases);
		return;
	}
	printf("%s{\"file\": ", *first ? "" : ", ");
	cli_json_string(path);
	if (status == CLI_EXIT_FAIL)
		printf(", \"verdict\": \"fail\", \"cases\": %zu, \"outside\": %zu}", cases, outside);
	else
		printf(", \"verdict\": \"unreadable or mismatched\"}");
	*first = false;
}

static int verify_dirs(const char *golden, const char *results, const struct verify_args *a)
{
	size_t listed = 0;
	const char *manifest = manifest_state(golden, a->json, &listed);
	if (!manifest)
		return CLI_EXIT_USAGE;
	struct fpref_golden_list list;
	if (fpref_golden_list_files(golden, &list) != 0 || list.n == 0) {
		cli_error("%s: no golden files found (*.txt below it)", golden);
		if (a->json) {
			printf("{\"golden\": ");
			cli_json_string(golden);
			printf(", \"files\": 0, \"pass\": false}\n");
		}
		fpref_golden_list_free(&list);
		return CLI_EXIT_USAGE;
	}
	int status = CLI_EXIT_OK;
	size_t vectors = 0, outside = 0, failed_files = 0, bad_files = 0;
	bool first = true;
	if (a->json)
		printf("{\"problems\": [");
	for (size_t i = 0; i < list.n; i++) {
		char path[4096], other[4096];
		snprintf(path, sizeof path, "%s/%s", golden, list.paths[i]);
		if (results)
			snprintf(other, sizeof other, "%s/%s", results, list.paths[i]);
		size_t cases = 0, out = 0;
		int s = verify_one(path, results ? other : NULL, a, true, &cases, &out);
		print_problem(path, s, cases, out, a->json, &first);
		vectors += cases;
		outside += out;
		failed_files += s == CLI_EXIT_FAIL;
		bad_files += s == CLI_EXIT_USAGE;
		if (s > status)
			status = s;
	}
	if (a->json)
		printf("], \"manifest\": \"%s\", \"files\": %zu, \"vectors\": %zu, \"outside\": %zu, \"failed_files\": %zu, "
		       "\"unreadable_files\": %zu, \"pass\": %s}\n", manifest, list.n, vectors, outside, failed_files, bad_files,
		       status ? "false" : "true");
	else
		printf("%s: %zu files, %zu vectors; %zu outside tolerance in %zu files; %zu files unreadable or "
		       "mismatched; MANIFEST %s -> %s\n", golden, list.n, vectors, outside, failed_files, bad_files,
		       strcmp(manifest, "ok") == 0 ? "matches" : "absent (completeness unknown)",
		       status ? "FAIL" : "pass");
	fpref_golden_list_free(&list);
	return status;
}

int cmd_verify(int argc, char **argv)
{
	struct verify_args a = { { -1, -1, 10 }, false };
	const char *tolerance = NULL, *show = NULL;
	static const char *const names[] = { "--tolerance", "--show" };
	const char **slots[] = { &tolerance, &show };
	char **rest = malloc((size_t)(argc + 1) * sizeof *rest);
	int nrest = 0;
	int r = rest ? cli_take_options(argc, argv, names, slots, 2, rest, &nrest) : CLI_EXIT_FAIL;
	const char *paths[2] = { NULL, NULL };
	int npaths = 0;
	for (int i = 0; r == 0 && i < nrest; i++) {
		if (strcmp(rest[i], "--json") == 0)
			a.json = true;
		else if (rest[i][0] == '-' && rest[i][1]) {
			cli_error("unknown option '%s'", rest[i]);
			r = CLI_EXIT_USAGE;
		} else if (npaths < 2)
			paths[npaths++] = rest[i];
		else {
			cli_error("verify takes GOLDEN [RESULTS], not '%s' as well", rest[i]);
			r = CLI_EXIT_USAGE;
		}
	}
	free(rest);
	if (r)
		return r;
	if (tolerance && parse_tolerance(tolerance, &a.o) != 0)
		return CLI_EXIT_USAGE;
	char tail;
	if (show && (sscanf(show, "%zu%c", &a.o.show, &tail) != 1 || a.o.show > 100000)) {
		cli_error("bad --show '%s' (a count of mismatches to print)", show);
		return CLI_EXIT_USAGE;
	}
	if (npaths == 0) {
		cli_error("verify needs GOLDEN (a golden file or folder) and optionally RESULTS");
		return CLI_EXIT_USAGE;
	}
	struct stat st;
	if (stat(paths[0], &st) != 0) {
		cli_error("%s: no such file or folder", paths[0]);
		return CLI_EXIT_USAGE;
	}
	if (S_ISDIR(st.st_mode))
		return verify_dirs(paths[0], paths[1], &a);
	size_t vectors = 0, outside = 0;
	return verify_one(paths[0], paths[1], &a, false, &vectors, &outside);
}
