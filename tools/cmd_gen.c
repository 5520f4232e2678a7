/* fpref gen: make the golden files of a suite, both engines agreeing on
 * every vector, with progress on a terminal, shards and resumption. */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "cli.h"
#include "fpref_golden.h"
#include "sweep_find.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int cli_parse_jobs(const char *cmd, const char *text, unsigned *threads)
{
	char tail;
	*threads = 1;
	if (text && (sscanf(text, "%u%c", threads, &tail) != 1 || *threads == 0 || *threads > 256)) {
		cli_fail(cmd, "bad --jobs '%s' (1..256)", text);
		return -1;
	}
	if (fpref_golden_threads(*threads) < *threads) {
		fprintf(stderr, "fpref %s: this MPFR is not thread-safe; running on one thread\n", cmd);
		*threads = 1;
	}
	return 0;
}

/* A suite by path, or by name among the installed and the source tree's suites. */
int cli_find_suite(const char *name, char *path, size_t len)
{
	const char *dirs[] = { getenv("FPREF_SUITES"), FPREF_SOURCE_SUITES, FPREF_INSTALLED_SUITES };
	return find_named_file(name, ".suite", dirs, sizeof dirs / sizeof dirs[0], path, len);
}

struct progress_state {
	double start;
	bool tty;
	sigset_t held; /* SIGINT and SIGTERM, held while the suite runs */
	int signal;    /* the one that came, or 0 */
};

/* Shows the progress, and asks the run to stop when SIGINT or SIGTERM came
 * (held while it runs, so that no file is left half made). */
static int show_progress(const struct fpref_golden_progress *p, void *arg)
{
	struct progress_state *st = arg;
	const struct timespec now_only = { 0, 0 };
	int got = st->signal ? 0 : sigtimedwait(&st->held, NULL, &now_only);
	if (got == SIGINT || got == SIGTERM)
		st->signal = got;
	if (!st->tty)
		return st->signal;
	double elapsed = now() - st->start, fraction = p->files_total ? (double)p->files / (double)p->files_total : 1;
	int width = 30, filled = (int)(fraction * width);
	char bar[40];
	for (int i = 0; i < width; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[width] = '\0';
	double left = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
	fprintf(stderr, "\r[%s] %zu/%zu files, %.3g vectors, %.3g vectors/s, %d:%02d left ", bar, p->files,
		p->files_total, (double)p->vectors, elapsed > 0 ? (double)p->vectors / elapsed : 0.0, (int)left / 60,
		(int)left % 60);
	return st->signal;
}

struct gen_args {
	const char *suite, *out, *shard, *jobs;
	bool list, npy, merge;
};

static const struct cli_opt gen_opts[] = {
	{ "--suite", CLI_VALUE, "NAME|FILE", "default", "the suite (a file, or a name in golden/suites)",
	  offsetof(struct gen_args, suite), 0 },
	{ "--out-dir", CLI_VALUE, "DIR", NULL, "the folder to write (needed unless --list)", offsetof(struct gen_args, out),
	  0 },
	{ "--shard", CLI_VALUE, "i/N", "0/1", "only the jobs k with k mod N = i", offsetof(struct gen_args, shard), 0 },
	{ "--jobs", CLI_VALUE, "N", "1", "threads, 1..256", offsetof(struct gen_args, jobs), 0 },
	{ "--npy", CLI_FLAG, NULL, NULL, "also write each file's operands and results as .npy",
	  offsetof(struct gen_args, npy), 0 },
	{ "--list", CLI_FLAG, NULL, NULL, "print the files the suite (or shard) makes, and stop",
	  offsetof(struct gen_args, list), 0 },
	{ "--merge-manifests", CLI_FLAG, NULL, NULL, "write DIR's MANIFEST from the shards' ones",
	  offsetof(struct gen_args, merge), 0 },
};

const struct cli_command cli_cmd_gen = {
	.name = "gen",
	.synopsis = "[--suite NAME|FILE] --out-dir DIR [--shard i/N] [--jobs N] [--npy] [--list] [--merge-manifests]",
	.summary = "The golden files of a suite, every vector computed by the emulator and the oracle.",
	.opts = gen_opts,
	.nopts = CLI_NOPTS(gen_opts),
	.max_positional = 0,
	.examples = { "fpref gen --out-dir golden/vectors --jobs 2", "fpref gen --suite full --out-dir /tmp/g --shard 0/4" },
	.run = cmd_gen,
};

int cmd_gen(int argc, char **argv)
{
	struct gen_args a = { "default", NULL, NULL, NULL, false, false, false };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_gen, argc, argv, &o, &a);
	if (r)
		return r;
	const char *suite_name = a.suite, *out = a.out, *shard = a.shard, *jobs = a.jobs;
	bool list = a.list, npy = a.npy, merge = a.merge;
	unsigned index = 0, count = 1, threads = 1;
	char tail;
	if (shard && (sscanf(shard, "%u/%u%c", &index, &count, &tail) != 2 || count == 0 || index >= count)) {
		cli_fail(cli_cmd_gen.name, "bad --shard '%s' (i/N with 0 <= i < N)", shard);
		return CLI_EXIT_USAGE;
	}
	if (cli_parse_jobs(cli_cmd_gen.name, jobs, &threads) != 0)
		return CLI_EXIT_USAGE;
	char path[1024], err[2048];
	if (cli_find_suite(suite_name, path, sizeof path) != 0) {
		cli_fail(cli_cmd_gen.name, "no suite '%s' (a path, or a name in golden/suites: default, committed)", suite_name);
		return CLI_EXIT_USAGE;
	}
	struct fpref_golden_suite s;
	if (fpref_golden_suite_read(path, &s, err, sizeof err) != 0) {
		cli_fail(cli_cmd_gen.name, "%s", err);
		return CLI_EXIT_USAGE;
	}
	if (s.campaign) { /* billions of inputs, compared and kept in no file */
		cli_fail(cli_cmd_gen.name, "%s is a campaign, not a suite (run it with fpref sweep)", path);
		fpref_golden_suite_free(&s);
		return CLI_EXIT_USAGE;
	}
	s.npy = s.npy || npy;
	if (list) {
		for (size_t k = 0; k < s.njobs; k++)
			if (k % count == index)
				printf("%s\n", s.jobs[k].path);
		fpref_golden_suite_free(&s);
		return CLI_EXIT_OK;
	}
	if (!out) {
		cli_fail(cli_cmd_gen.name, "needs --out-dir DIR (where the golden files go)");
		fpref_golden_suite_free(&s);
		return CLI_EXIT_USAGE;
	}
	if (merge) {
		/* the shards' manifests into the whole one; nothing is generated */
		int m = fpref_golden_merge_manifests(&s, out, err, sizeof err);
		if (m != 0)
			cli_fail(cli_cmd_gen.name, "%s", err);
		else
			printf("suite %s: MANIFEST merged from the shard manifests -> %s/MANIFEST\n", s.name, out);
		fpref_golden_suite_free(&s);
		return m != 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	}
	if (mkdir(out, 0777) != 0 && access(out, W_OK) != 0) {
		cli_fail(cli_cmd_gen.name, "cannot create or write to '%s'", out);
		fpref_golden_suite_free(&s);
		return CLI_EXIT_FAIL;
	}
	struct progress_state st = { .start = now(), .tty = isatty(STDERR_FILENO) != 0, .signal = 0 };
	sigemptyset(&st.held);
	sigaddset(&st.held, SIGINT);
	sigaddset(&st.held, SIGTERM);
	sigset_t before; /* the threads inherit the held mask */
	pthread_sigmask(SIG_BLOCK, &st.held, &before);
	struct fpref_golden_progress done;
	int status = fpref_golden_generate(&s, out, index, count, threads, show_progress, &st, &done, err, sizeof err);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	if (st.tty)
		fprintf(stderr, "\r\033[K");
	if (status != 0) {
		if (status == -2)
			cli_fail(cli_cmd_gen.name, "interrupted (signal %d): %s", st.signal, err);
		else
			cli_fail(cli_cmd_gen.name, "%s", err);
		fpref_golden_suite_free(&s);
		return status == -2 ? 128 + st.signal : CLI_EXIT_FAIL;
	}
	err[0] = '\0';
	if (fpref_golden_write_manifest(&s, out, index, count, err, sizeof err) != 0) {
		cli_fail(cli_cmd_gen.name, "%s", err);
		fpref_golden_suite_free(&s);
		return CLI_EXIT_FAIL;
	}
	char arrays[96] = "";
	if (done.arrays_added)
		snprintf(arrays, sizeof arrays, ", .npy arrays added to %zu complete files", done.arrays_added);
	char shard_text[64] = "";
	if (count > 1)
		snprintf(shard_text, sizeof shard_text, " (shard %u/%u, MANIFEST.shard-%u-of-%u)", index, count, index, count);
	printf("suite %s%s: %zu files (%zu already complete%s), %llu vectors, %.1f s -> %s\n", s.name, shard_text,
	       done.files, done.skipped, arrays, done.vectors, now() - st.start, out);
	fpref_golden_suite_free(&s);
	return CLI_EXIT_OK;
}
