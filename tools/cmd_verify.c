/* fpref verify: judge results against golden files, or recheck golden
 * files against the oracle; one file, or two folders side by side. */
#include <dirent.h>
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

static void print_report(const char *golden, const struct fpref_golden_file *g, const struct fpref_format *out,
			 const char *results, const struct fpref_verify_report *r, const struct fpref_verify_options *o,
			 bool json)
{
	bool tolerant = o->tolerance_ulps >= 0 || o->tolerance_rel >= 0;
	if (json) {
		printf("{\"golden\": \"%s\", \"results\": \"%s\", \"op\": \"%s\", \"formats\": \"%s\", \"cases\": %zu, "
		       "\"exact\": %zu, \"within\": %zu, \"outside\": %zu, \"mismatches\": {",
		       golden, results ? results : "oracle", g->op, g->formats, r->cases, r->exact, r->within, r->outside);
		bool first = true;
		for (int k = 0; k < FPREF_MISMATCH_COUNT; k++)
			if (r->by_kind[k]) {
				printf("%s\"%s\": %zu", first ? "" : ", ", fpref_mismatch_name((enum fpref_mismatch)k), r->by_kind[k]);
				first = false;
			}
		printf("}, \"max_ulps_golden\": %s, \"max_rel_golden\": %s, \"max_ulps_exact\": %s, "
		       "\"max_rel_exact\": %s, \"with_bound\": %zu, \"above_bound\": %zu, \"pass\": %s}\n",
		       cli_json_num(r->max_ulps_golden).text, cli_json_num(r->max_rel_golden).text,
		       cli_json_num(r->max_ulps_exact).text, cli_json_num(r->max_rel_exact).text, r->with_bound,
		       r->above_bound, r->outside ? "false" : "true");
		return;
	}
	printf("golden    %s: %s, %s, %zu vectors, sha256 ok\n", golden, g->op, g->formats, g->nlines);
	printf("results   %s\n", results ? results : "the oracle, computed afresh");
	printf("exact     %zu of %zu\n", r->exact, r->cases);
	if (tolerant)
		printf("within    %zu (tolerance %g %s)\n", r->within,
		       o->tolerance_ulps >= 0 ? o->tolerance_ulps : o->tolerance_rel, o->tolerance_ulps >= 0 ? "ulp" : "rel");
	for (int k = 0; k < FPREF_MISMATCH_COUNT; k++)
		if (r->by_kind[k])
			printf("  %-28s %zu\n", fpref_mismatch_name((enum fpref_mismatch)k), r->by_kind[k]);
	if (r->cases > r->nonfinite && strcmp(g->op, "eq") && strcmp(g->op, "lt") && strcmp(g->op, "le")) {
		printf("error in ulps of the output (%zu finite cases):\n", r->cases - r->nonfinite);
		print_buckets("against the golden", r->ulps_golden);
		print_buckets("against the exact", r->ulps_exact);
		printf("  max %.4g ulp (relative %.3g) against the golden; max %.4g ulp (relative %.3g), mean %.4g "
		       "against the exact\n", r->max_ulps_golden, r->max_rel_golden, r->max_ulps_exact, r->max_rel_exact,
		       r->sum_ulps_exact / (double)(r->cases - r->nonfinite));
	}
	if (r->with_bound)
		printf("a priori bound of the model: %zu of %zu results above it\n", r->above_bound, r->with_bound);
	for (size_t i = 0; i < r->nshown; i++) {
		const struct fpref_verify_case *c = &r->shown[i];
		char golden_hex[24], got_hex[24];
		bool compare = !strcmp(g->op, "eq") || !strcmp(g->op, "lt") || !strcmp(g->op, "le");
		fpref_format_hex(out, c->golden, golden_hex, sizeof golden_hex);
		fpref_format_hex(out, c->got, got_hex, sizeof got_hex);
		printf("  line %zu: %s -> golden %s", c->line, c->inputs, compare ? (c->golden ? "1" : "0") : golden_hex);
		if (c->golden_flags >= 0)
			printf(" %02X", c->golden_flags);
		printf(", got %s", compare ? (c->got ? "1" : "0") : got_hex);
		if (c->got_flags >= 0)
			printf(" %02X", c->got_flags);
		printf(" (%s", fpref_mismatch_name(c->kind));
		if (!isnan(c->ulps))
			printf(", %.3g ulp", c->ulps);
		printf(")\n");
	}
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
	*vectors += rep.cases;
	*outside += rep.outside;
	if (quiet && rep.outside)
		printf("FAIL %s: %zu of %zu outside\n", golden, rep.outside, rep.cases);
	fpref_verify_report_free(&rep);
	fpref_golden_results_free(&res);
	fpref_golden_file_free(&g);
	return status;
}

/* The .txt files under a folder (hidden ones, such as unfinished
 * temporaries, left out). */
struct file_list {
	char **paths;
	size_t n, cap;
};

static int collect(const char *dir, struct file_list *list, int depth)
{
	DIR *d = opendir(dir);
	if (!d || depth > 16) {
		if (d)
			closedir(d);
		return -1;
	}
	int status = 0;
	struct dirent *e;
	while (status == 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(path, &st) != 0)
			continue;
		size_t len = strlen(e->d_name);
		if (S_ISDIR(st.st_mode))
			status = collect(path, list, depth + 1);
		else if (S_ISREG(st.st_mode) && len > 4 && strcmp(e->d_name + len - 4, ".txt") == 0) {
			if (list->n == list->cap) {
				size_t cap = list->cap ? 2 * list->cap : 64;
				char **more = realloc(list->paths, cap * sizeof *more);
				if (!more) {
					status = -1;
					break;
				}
				list->paths = more;
				list->cap = cap;
			}
			list->paths[list->n] = strdup(path);
			status = list->paths[list->n++] ? 0 : -1;
		}
	}
	closedir(d);
	return status;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int verify_dirs(const char *golden, const char *results, const struct verify_args *a)
{
	struct file_list list = { NULL, 0, 0 };
	if (collect(golden, &list, 0) != 0 || list.n == 0) {
		cli_error("%s: no golden files found (*.txt below it)", golden);
		for (size_t i = 0; i < list.n; i++)
			free(list.paths[i]);
		free(list.paths);
		return CLI_EXIT_USAGE;
	}
	qsort(list.paths, list.n, sizeof *list.paths, by_name);
	int status = CLI_EXIT_OK;
	size_t vectors = 0, outside = 0, failed_files = 0, bad_files = 0;
	for (size_t i = 0; i < list.n; i++) {
		char other[4096];
		const char *rel = list.paths[i] + strlen(golden);
		while (*rel == '/')
			rel++;
		if (results)
			snprintf(other, sizeof other, "%s/%s", results, rel);
		int s = verify_one(list.paths[i], results ? other : NULL, a, true, &vectors, &outside);
		failed_files += s == CLI_EXIT_FAIL;
		bad_files += s == CLI_EXIT_USAGE;
		if (s > status)
			status = s;
		free(list.paths[i]);
	}
	free(list.paths);
	if (a->json)
		printf("{\"files\": %zu, \"vectors\": %zu, \"outside\": %zu, \"failed_files\": %zu, \"unreadable_files\": %zu, "
		       "\"pass\": %s}\n", list.n, vectors, outside, failed_files, bad_files, status ? "false" : "true");
	else
		printf("%s: %zu files, %zu vectors; %zu outside tolerance in %zu files; %zu files unreadable or "
		       "mismatched -> %s\n", golden, list.n, vectors, outside, failed_files, bad_files,
		       status ? "FAIL" : "pass");
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
