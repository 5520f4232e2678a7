/* fpref verify: judge results against golden files, or recheck golden
 * files against the oracle; one file, or two folders side by side. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "draw.h"
#include "fpref_golden.h"
#include "fpref_golden_diagnose.h"

struct verify_args {
	struct fpref_verify_options o;
	bool json;
	const char *svg; /* --svg FILE: the histograms of one golden file */
	bool diagnose;   /* --diagnose: which mutant of the catalogue the results are */
	unsigned threads;
};

int cli_parse_tolerance(const char *cmd, const char *text, struct fpref_verify_options *o)
{
	char *end;
	double v = strtod(text, &end);
	if (end != text && v >= 0 && (strcmp(end, "ulp") == 0 || strcmp(end, "ulps") == 0))
		o->tolerance_ulps = v;
	else if (end != text && v >= 0 && strcmp(end, "rel") == 0)
		o->tolerance_rel = v;
	else {
		cli_fail(cmd, "bad --tolerance '%s' (N ulp, or X rel: 2ulp, 1e-3rel)", text);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/* How the flags were judged: on every case, on some, or not at all. */
static const char *flags_judged(const struct fpref_verify_report *r, bool dot)
{
	return dot ? "none in the golden file" : r->with_flags == r->cases ? "compared" : r->with_flags ? "partly given"
													       : "not given";
}

/* The diagnosis as a JSON list, best first. */
static void print_diagnosis_json(const struct fpref_diagnosis_report *d)
{
	printf("[");
	for (size_t i = 0; i < d->nrows; i++) {
		printf("%s{\"mutant\": \"%s\", \"explains\": %zu, \"mismatches\": %zu, \"contradicts\": %zu, \"exact\": %s}",
		       i ? ", " : "", d->rows[i].mutant->name, d->rows[i].explains, d->rows[i].mismatches,
		       d->rows[i].contradicts, fpref_golden_diagnosis_exact(&d->rows[i]) ? "true" : "false");
	}
	printf("], \"diagnosis_cover\": [");
	for (size_t i = 0; i < d->ncover; i++)
		printf("%s{\"mutant\": \"%s\", \"adds\": %zu, \"contradicts\": %zu}", i ? ", " : "",
		       d->cover[i].mutant->name, d->cover[i].explains, d->cover[i].contradicts);
	printf("], \"diagnosis_covered\": %zu, \"diagnosis_mutants_run\": %zu", d->covered, d->applicable);
}

static void print_json(const char *golden, const struct fpref_golden_file *g, const char *results,
		       const struct fpref_verify_report *r, const struct fpref_diagnosis_report *d)
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
	       "\"zero_golden\": %zu, \"flags\": \"%s\", \"with_bound\": %zu, \"above_bound\": %zu, \"pass\": %s",
	       cli_json_num(r->max_ulps_golden).text, cli_json_num(r->max_rel_golden).text,
	       cli_json_num(r->max_ulps_exact).text, cli_json_num(r->max_rel_exact).text,
	       cli_json_num(r->measured_exact ? r->sum_ulps_exact / (double)r->measured_exact : 0).text, r->measured_exact,
	       r->saturated, r->zero_golden, flags_judged(r, strcmp(g->op, "dot") == 0), r->with_bound, r->above_bound,
	       r->outside ? "false" : "true");
	if (d) {
		printf(", \"diagnosis\": ");
		print_diagnosis_json(d);
	}
	printf("}\n");
}

static void print_report(const char *golden, const struct fpref_golden_file *g, const struct fpref_format *out,
			 const char *results, const struct fpref_verify_report *r, const struct fpref_verify_options *o,
			 bool json, const struct fpref_diagnosis_report *d)
{
	if (json) {
		print_json(golden, g, results, r, d);
		return;
	}
	fpref_golden_verify_print(stdout, golden, g, out, results, r, o, d);
}

/* One golden file against results (NULL: the oracle).  Exit status. */
static int verify_one(const char *golden, const char *results, const struct verify_args *a, bool quiet,
		      size_t *vectors, size_t *outside, struct fpref_diagnosis_report *diag_out)
{
	char err[2048];
	struct fpref_golden_file g;
	struct fpref_golden_job j;
	if (fpref_golden_read(golden, &g, err, sizeof err) != 0) {
		cli_fail(cli_cmd_verify.name, "%s", err);
		return CLI_EXIT_USAGE;
	}
	if (fpref_golden_job_of(&g, &j, err, sizeof err) != 0) {
		cli_fail(cli_cmd_verify.name, "%s: %s", golden, err);
		fpref_golden_file_free(&g);
		return CLI_EXIT_USAGE;
	}
	struct fpref_golden_results res;
	int r = results ? fpref_golden_results_read(results, &g, &j, &res, err, sizeof err)
			: fpref_golden_results_oracle(&g, &j, &res, err, sizeof err);
	if (r != 0) {
		cli_fail(cli_cmd_verify.name, "%s", err);
		fpref_golden_file_free(&g);
		return CLI_EXIT_USAGE;
	}
	struct fpref_verify_report rep;
	struct fpref_verify_options o = a->o;
	struct cli_progress pr = { "verify: case", g.nlines > 1 << 18, false };
	o.progress = cli_progress;
	o.progress_ctx = &pr;
	r = fpref_golden_verify(&g, &j, &res, &o, &rep, err, sizeof err);
	cli_progress_done(&pr);
	struct fpref_diagnosis_report diag = { 0 };
	bool diagnosed = r == 0 && a->diagnose && results;
	if (diagnosed && (r = fpref_golden_diagnose(&g, &j, &res, a->threads, &diag, err, sizeof err)) != 0)
		diagnosed = false;
	if (r != 0)
		cli_fail(cli_cmd_verify.name, "%s", err);
	else if (!quiet)
		print_report(golden, &g, &j.out, results, &rep, &a->o, a->json, diagnosed ? &diag : NULL);
	if (diagnosed && diag_out)
		*diag_out = diag; /* the caller's to free */
	else if (diagnosed)
		fpref_golden_diagnosis_free(&diag);
	int status = r != 0 ? CLI_EXIT_USAGE : rep.outside ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	if (r == 0 && a->svg) {
		char title[640];
		const char *base = strrchr(golden, '/');
		snprintf(title, sizeof title, "verify %s: %s, %s, against %s", base ? base + 1 : golden, g.op, g.formats,
			 results ? "results" : "the oracle");
		struct draw_verify d = { title, rep.cases, rep.exact, rep.outside, rep.nonfinite, rep.ulps_golden,
					 rep.ulps_exact };
		int ds = draw_verify(cli_cmd_verify.name, a->svg, &d);
		status = ds > status ? ds : status;
	}
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
		cli_fail(cli_cmd_verify.name, "%s", err);
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
		fpref_golden_verify_no_manifest_print(stdout, golden);
	return m == 1 ? "none" : "ok";
}

/* One line per file that fails or cannot be judged: text, or a JSON
 * array's items; with --diagnose (d not NULL), the diagnosis: its headline
 * in text, its lists in JSON. */
static void print_problem(const char *path, int status, size_t cases, size_t outside,
			  const struct fpref_diagnosis_report *d, bool json, bool *first)
{
	if (status == CLI_EXIT_OK)
		return;
	char headline[256] = "";
	if (d)
		fpref_golden_diagnosis_headline(d, headline, sizeof headline);
	if (!json) {
		if (status == CLI_EXIT_FAIL)
			fpref_golden_verify_problem_print(stdout, path, cases, outside, headline);
		return;
	}
	printf("%s{\"file\": ", *first ? "" : ", ");
	cli_json_string(path);
	if (status == CLI_EXIT_FAIL) {
		printf(", \"verdict\": \"fail\", \"cases\": %zu, \"outside\": %zu", cases, outside);
		if (d) {
			printf(", \"diagnosis_summary\": ");
			cli_json_string(headline);
			printf(", \"diagnosis\": ");
			print_diagnosis_json(d);
		}
		printf("}");
	}
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
		cli_fail(cli_cmd_verify.name, "%s: no golden files found (*.txt below it)", golden);
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
		struct fpref_diagnosis_report diag = { 0 };
		bool diagnosed = a->diagnose && results;
		int s = verify_one(path, results ? other : NULL, a, true, &cases, &out, diagnosed ? &diag : NULL);
		print_problem(path, s, cases, out, diagnosed && s == CLI_EXIT_FAIL ? &diag : NULL, a->json, &first);
		fpref_golden_diagnosis_free(&diag);
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
		fpref_golden_verify_folder_print(stdout, golden, list.n, vectors, outside, failed_files, bad_files,
						 strcmp(manifest, "ok") == 0, status == 0);
	fpref_golden_list_free(&list);
	return status;
}

struct verify_text {
	const char *tolerance, *show, *svg, *threads;
	bool diagnose;
};

static const struct cli_opt verify_opts[] = {
	{ "--tolerance", CLI_VALUE, "Nulp|Xrel", "bit-exact", "accept results within N ulps (2ulp), or a relative error X (1e-3rel)",
	  offsetof(struct verify_text, tolerance), 0 },
	{ "--show", CLI_VALUE, "N", "10", "print the first N mismatches", offsetof(struct verify_text, show), 0 },
	{ "--svg", CLI_VALUE, "FILE.svg", NULL, "draw the error histograms of one golden file (as fpref draw verify)",
	  offsetof(struct verify_text, svg), 0 },
	{ "--diagnose", CLI_FLAG, NULL, NULL, "run the mutant catalogue on the golden inputs and name the bug that gives these "
	  "results (docs/diagnose.md)", offsetof(struct verify_text, diagnose), 0 },
	{ "--threads", CLI_VALUE, "N", "all cores", "threads running the mutants for --diagnose",
	  offsetof(struct verify_text, threads), 0 },
};

const struct cli_command cli_cmd_verify = {
	.name = "verify",
	.synopsis = "GOLDEN [RESULTS] [--tolerance Nulp|Xrel] [--show N] [--diagnose [--threads N]] [--json] [--svg FILE.svg]",
	.summary = "Judge RESULTS (lines, or .npy) against a golden file, or a folder of results against a folder\n"
		   "of golden files; without RESULTS, recheck the golden file with the oracle.",
	.details = "--diagnose runs every mutant of the catalogue (fpref mutants --list) that applies to the file on its\n"
		   "inputs and ranks them by the mismatches each reproduces bit for bit, less the agreeing results it\n"
		   "would spoil: \"these results are exactly `ties-away`\", or the best few with their counts.\n"
		   "Exit status 0: every result matches; 1: a mismatch; 2: bad input.\n",
	.groups = CLI_JSON,
	.opts = verify_opts,
	.nopts = CLI_NOPTS(verify_opts),
	.max_positional = 2,
	.examples = { "fpref verify golden/vectors/add/float16.rne.txt",
		      "fpref verify golden/vectors my-results --tolerance 1ulp --show 5" },
	.run = cmd_verify,
};

int cmd_verify(int argc, char **argv)
{
	struct verify_args a = { { -1, -1, 10, NULL, NULL }, false, NULL, false, 1 };
	struct verify_text t = { NULL, NULL, NULL, NULL, false };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_verify, argc, argv, &o, &t);
	if (r)
		return r;
	a.json = o.json;
	const char *tolerance = t.tolerance, *show = t.show;
	const char *paths[2] = { o.npositional > 0 ? o.positional[0] : NULL, o.npositional > 1 ? o.positional[1] : NULL };
	int npaths = o.npositional;
	if (tolerance && cli_parse_tolerance(cli_cmd_verify.name, tolerance, &a.o) != 0)
		return CLI_EXIT_USAGE;
	char tail;
	if (show && (sscanf(show, "%zu%c", &a.o.show, &tail) != 1 || a.o.show > 100000)) {
		cli_fail(cli_cmd_verify.name, "bad --show '%s' (a count of mismatches to print)", show);
		return CLI_EXIT_USAGE;
	}
	if (npaths == 0) {
		cli_fail(cli_cmd_verify.name, "needs GOLDEN (a golden file or folder) and optionally RESULTS");
		return CLI_EXIT_USAGE;
	}
	struct stat st;
	if (stat(paths[0], &st) != 0) {
		cli_fail(cli_cmd_verify.name, "%s: %s", paths[0], strerror(errno));
		return CLI_EXIT_USAGE;
	}
	a.svg = t.svg;
	a.diagnose = t.diagnose;
	if (t.threads && !t.diagnose) {
		cli_fail(cli_cmd_verify.name, "--threads runs the mutants of --diagnose: give --diagnose too");
		return CLI_EXIT_USAGE;
	}
	if (cli_parse_threads(cli_cmd_verify.name, t.threads, &a.threads) != 0)
		return CLI_EXIT_USAGE;
	if (a.diagnose && npaths < 2) {
		cli_fail(cli_cmd_verify.name, "--diagnose explains RESULTS: give them (without, the oracle is judged)");
		return CLI_EXIT_USAGE;
	}
	if (S_ISDIR(st.st_mode) && a.svg) {
		cli_fail(cli_cmd_verify.name, "--svg draws one golden file, not the folder %s", paths[0]);
		return CLI_EXIT_USAGE;
	}
	if (S_ISDIR(st.st_mode))
		return verify_dirs(paths[0], paths[1], &a);
	size_t vectors = 0, outside = 0;
	return verify_one(paths[0], paths[1], &a, false, &vectors, &outside, NULL);
}
