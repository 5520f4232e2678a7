/* fpref mutants: the kill matrix of a suite: for every golden file and
 * every realistic kernel bug that applies to it (golden/fpref_golden_mutants.h),
 * how many of its vectors expose the bug. */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fpref_golden.h"
#include "fpref_golden_mutants.h"

struct mutants_args {
	const char *suite, *mutant, *jobs;
	bool all, list;
};

static const struct cli_opt mutants_opts[] = {
	{ "--suite", CLI_VALUE, "NAME|FILE", "default", "the suite (a file, or a name in golden/suites)",
	  offsetof(struct mutants_args, suite), 0 },
	{ "--mutant", CLI_VALUE, "NAME", NULL, "only this mutant (--list names them)", offsetof(struct mutants_args, mutant),
	  0 },
	{ "--jobs", CLI_VALUE, "N", "1", "threads, 1..256", offsetof(struct mutants_args, jobs), 0 },
	{ "--all", CLI_FLAG, NULL, NULL, "text output: every cell, caught ones too, not only WEAK ones", offsetof(struct mutants_args, all), 0 },
	{ "--list", CLI_FLAG, NULL, NULL, "the catalogue of mutants, and stop", offsetof(struct mutants_args, list), 0 },
};

const struct cli_command cli_cmd_mutants = {
	.name = "mutants",
	.synopsis = "[--suite NAME|FILE] [--mutant NAME] [--jobs N] [--all] [--json] [--list]",
	.summary = "The kill matrix: which realistic kernel bugs each golden file of a suite exposes, and by how\n"
		   "many vectors.",
	.groups = CLI_JSON,
	.opts = mutants_opts,
	.nopts = CLI_NOPTS(mutants_opts),
	.max_positional = 0,
	.examples = { "fpref mutants --list", "fpref mutants --suite committed --mutant ftz-output --json" },
	.run = cmd_mutants,
};

static void list_catalogue(bool json)
{
	if (json)
		printf("{\"mutants\": [");
	for (size_t i = 0; i < fpref_golden_mutant_count(); i++) {
		const struct fpref_mutant *m = fpref_golden_mutant_at(i);
		if (json)
			printf("%s\n  {\"name\": \"%s\", \"family\": \"%s\", \"bug\": \"%s\"}", i ? "," : "", m->name, m->family,
			       m->bug);
		else
			printf("%-24s %-16s %s\n", m->name, m->family, m->bug);
	}
	if (json)
		printf("\n]}\n");
}

/* Per mutant over the suite: files where it applies, where it is caught
 * at the bar, and its least exposure. */
struct tally {
	size_t applies, caught;
	unsigned long least;
	const char *least_path;
};

static void print_json(const struct fpref_golden_suite *s, const struct fpref_kill_file *files, const char *only,
		       const struct tally *t, size_t weak)
{
	printf("{\"suite\": \"%s\", \"bar\": %d, \"files\": [", s->name, FPREF_MUTANT_BAR);
	for (size_t f = 0; f < s->njobs; f++) {
		printf("%s\n  {\"path\": \"%s\", \"vectors\": %lu, \"mutants\": [", f ? "," : "", files[f].job->path,
		       files[f].vectors);
		int first = 1;
		for (size_t k = 0; k < files[f].nkills; k++) {
			const struct fpref_kill *c = &files[f].kills[k];
			if (only && strcmp(only, c->mutant->name) != 0)
				continue;
			printf("%s{\"name\": \"%s\", \"exposed\": %lu, \"first_line\": %zu, \"caught\": %s", first ? "" : ", ",
			       c->mutant->name, c->exposed, c->first_line, fpref_golden_kill_caught(c) ? "true" : "false");
			if (c->possible != ULONG_MAX)
				printf(", \"exposing_inputs\": %lu", c->possible);
			printf("}");
			first = 0;
		}
		printf("]}");
	}
	printf("\n], \"summary\": [");
	int first = 1;
	for (size_t i = 0; i < fpref_golden_mutant_count(); i++) {
		const struct fpref_mutant *m = fpref_golden_mutant_at(i);
		if (only && strcmp(only, m->name) != 0)
			continue;
		printf("%s\n  {\"name\": \"%s\", \"family\": \"%s\", \"files\": %zu, \"caught\": %zu, \"least_exposure\": %lu}",
		       first ? "" : ",", m->name, m->family, t[i].applies, t[i].caught, t[i].applies ? t[i].least : 0);
		first = 0;
	}
	printf("\n], \"weak_cells\": %zu}\n", weak);
}

int cmd_mutants(int argc, char **argv)
{
	static const char default_suite[] = "default";
	struct mutants_args a = { default_suite, NULL, NULL, false, false };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_mutants, argc, argv, &o, &a);
	if (r)
		return r;
	const char *suite_name = a.suite, *only = a.mutant, *jobs = a.jobs;
	bool json = o.json, all = a.all, list = a.list;
	/* options that would do nothing are refused, not ignored */
	if (all && json) {
		cli_fail(cli_cmd_mutants.name, "--all shapes the text output; --json always lists every cell");
		return CLI_EXIT_USAGE;
	}
	if (list && (a.suite != default_suite || only || jobs || all)) {
		cli_fail(cli_cmd_mutants.name, "--list names the catalogue: --suite, --mutant, --jobs and --all do not apply");
		return CLI_EXIT_USAGE;
	}
	if (list) {
		list_catalogue(json);
		return CLI_EXIT_OK;
	}
	if (only && !fpref_golden_mutant_find(only)) {
		cli_fail(cli_cmd_mutants.name, "no mutant '%s' (fpref mutants --list names them)", only);
		return CLI_EXIT_USAGE;
	}
	unsigned threads;
	if (cli_parse_jobs(cli_cmd_mutants.name, jobs, &threads) != 0)
		return CLI_EXIT_USAGE;
	char path[1024], err[2048];
	if (cli_find_suite(suite_name, path, sizeof path) != 0) {
		cli_fail(cli_cmd_mutants.name, "no suite '%s' (a path, or a name in golden/suites: default, committed)", suite_name);
		return CLI_EXIT_USAGE;
	}
	struct fpref_golden_suite s;
	if (fpref_golden_suite_read(path, &s, err, sizeof err) != 0) {
		cli_fail(cli_cmd_mutants.name, "%s", err);
		return CLI_EXIT_USAGE;
	}
	if (s.campaign) { /* a sweep's inputs are in no file to judge */
		cli_fail(cli_cmd_mutants.name, "%s is a campaign, not a suite (a campaign's 'mutant NAME' line sweeps one)", path);
		fpref_golden_suite_free(&s);
		return CLI_EXIT_USAGE;
	}
	struct fpref_kill_file *files;
	if (fpref_golden_mutants_suite(&s, threads, &files, err, sizeof err) != 0) {
		cli_fail(cli_cmd_mutants.name, "%s", err);
		fpref_golden_suite_free(&s);
		return CLI_EXIT_FAIL;
	}
	struct tally *t = calloc(fpref_golden_mutant_count(), sizeof *t);
	size_t weak = 0, cells = 0;
	unsigned long long vectors = 0;
	for (size_t f = 0; t && f < s.njobs; f++) {
		vectors += files[f].vectors;
		for (size_t k = 0; k < files[f].nkills; k++) {
			const struct fpref_kill *c = &files[f].kills[k];
			if (only && strcmp(only, c->mutant->name) != 0)
				continue;
			struct tally *m = &t[c->mutant - fpref_golden_mutant_at(0)];
			bool caught = fpref_golden_kill_caught(c);
			if (!m->applies || c->exposed < m->least) {
				m->least = c->exposed;
				m->least_path = files[f].job->path;
			}
			m->applies++;
			m->caught += caught;
			cells++;
			weak += !caught;
			if (!json && (all || !caught))
			{
				char all_of[48] = "";
				if (c->possible != ULONG_MAX && c->exposed < FPREF_MUTANT_BAR)
					snprintf(all_of, sizeof all_of, " (%lu inputs can)", c->possible);
				printf("%-8s %-26s %6lu of %6lu vectors%s  %s\n", caught ? "caught" : "WEAK", c->mutant->name,
				       c->exposed, files[f].vectors, all_of, files[f].job->path);
			}
		}
	}
	if (!t) {
		cli_fail(cli_cmd_mutants.name, "out of memory");
		r = CLI_EXIT_FAIL;
	} else if (json)
		print_json(&s, files, only, t, weak);
	else {
		printf("%-26s %-16s %7s %7s %9s  %s\n", "mutant", "family", "files", "caught", "least", "(where)");
		for (size_t i = 0; i < fpref_golden_mutant_count(); i++) {
			const struct fpref_mutant *m = fpref_golden_mutant_at(i);
			if (only && strcmp(only, m->name) != 0)
				continue;
			printf("%-26s %-16s %7zu %7zu %9lu  %s\n", m->name, m->family, t[i].applies, t[i].caught,
			       t[i].applies ? t[i].least : 0, t[i].applies ? t[i].least_path : "(applies to no file)");
		}
		printf("suite %s: %zu files, %llu vectors, %zu mutants; %zu (file, mutant) cells, %zu caught by at least %d "
		       "vectors (or by every input that can), %zu weak\n",
		       s.name, s.njobs, vectors, fpref_golden_mutant_count(), cells, cells - weak, FPREF_MUTANT_BAR, weak);
	}
	free(t);
	fpref_golden_kill_files_free(files, s.njobs);
	fpref_golden_suite_free(&s);
	return r ? r : weak ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
