/* fpref sweep: run a campaign (golden/fpref_golden_sweep.h), emulator
 * against oracle on every input, in resumable chunks, with progress on a
 * terminal. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "fpref_golden_sweep.h"
#include "sweep_find.h"

struct sweep_args {
	const char *shard, *out;
	bool resume, list;
};

struct progress_state {
	struct timespec start;
	bool tty;
};

static int show_progress(const struct fpref_golden_sweep_progress *p, void *arg)
{
	struct progress_state *st = arg;
	if (!st->tty)
		return 0;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	double elapsed = (double)(t.tv_sec - st->start.tv_sec) + 1e-9 * (double)(t.tv_nsec - st->start.tv_nsec);
	uint64_t computed = p->done - p->skipped, left = p->chunks - p->done;
	double eta = computed ? elapsed / (double)computed * (double)left : 0;
	fprintf(stderr, "\r%llu/%llu chunks (%llu kept), %.3g cases/s, %d:%02d:%02d left ", (unsigned long long)p->done,
		(unsigned long long)p->chunks, (unsigned long long)p->skipped,
		elapsed > 0 ? (double)p->cases / elapsed : 0.0, (int)eta / 3600, (int)eta / 60 % 60, (int)eta % 60);
	return 0;
}

static const struct cli_opt sweep_opts[] = {
	{ "--out-dir", CLI_VALUE, "DIR", NULL, "the folder of the chunk files and the MANIFEST (needed)",
	  offsetof(struct sweep_args, out), 0 },
	{ "--shard", CLI_VALUE, "i/N", "0/1", "only the chunks c with c mod N = i", offsetof(struct sweep_args, shard),
	  0 },
	{ "--resume", CLI_FLAG, NULL, NULL, "keep the chunks DIR already holds (their checksums right)",
	  offsetof(struct sweep_args, resume), 0 },
	{ "--list", CLI_FLAG, NULL, NULL, "the campaigns fpref finds by name: each one's chunks and what it sweeps",
	  offsetof(struct sweep_args, list), 0 },
};

const struct cli_command cli_cmd_sweep = {
	.name = "sweep",
	.synopsis = "CAMPAIGN --out-dir DIR [--shard i/N] [--resume] | --list",
	.summary = "Run a campaign: the emulator against the oracle on every input, bit for bit and flag for\n"
		   "flag, in checksummed chunk files and a manifest (docs/sweeps.md).",
	.details = "CAMPAIGN is a file, or a name in golden/sweeps (docs/sweeps.md lists them).  The MANIFEST is\n"
		   "written by the run (or shard) that finds every chunk done.  Exit status 0: no disagreement\n"
		   "(the campaign, or a shard's share); 1: disagreements; 2: bad input.\n",
	.opts = sweep_opts,
	.nopts = CLI_NOPTS(sweep_opts),
	.max_positional = 1,
	.examples = { "fpref sweep mpi-test --out-dir /tmp/s", "fpref sweep fp32-narrow --out-dir /tmp/s --shard 0/8 --resume" },
	.run = cmd_sweep,
};

/* A campaign file's opening comment up to its first full stop: what it
 * sweeps, in words. */
static void first_sentence(const char *path, char *out, size_t size)
{
	*out = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	size_t used = 0;
	char line[512];
	while (fgets(line, sizeof line, f) && line[0] == '#') {
		char *text = line + strspn(line, "# ");
		text[strcspn(text, "\n")] = '\0';
		char *stop = strstr(text, ". ");
		if (!stop && text[0] && text[strlen(text) - 1] == '.')
			stop = text + strlen(text) - 1;
		if (stop)
			stop[1] = '\0';
		used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s", used ? " " : "", text);
		if (stop || used >= size)
			break;
	}
	fclose(f);
}

static int list_campaigns(void)
{
	size_t n;
	char **names = sweep_campaign_names(&n);
	if (!names) {
		cli_fail(cli_cmd_sweep.name, "no campaigns found (golden/sweeps, or FPREF_SWEEPS)");
		return CLI_EXIT_FAIL;
	}
	int status = CLI_EXIT_OK;
	for (size_t i = 0; i < n; i++) {
		char path[1024], err[2048], about[1024];
		struct fpref_golden_suite s;
		if (sweep_find_campaign(names[i], path, sizeof path) != 0) {
			fprintf(stderr, "fpref sweep: %s: unreadable\n", names[i]);
			status = CLI_EXIT_FAIL;
			continue;
		}
		if (fpref_golden_suite_read(path, &s, err, sizeof err) != 0 || !s.campaign) {
			fprintf(stderr, "fpref sweep: %s: %s\n", path, s.campaign ? err : "not a campaign");
			fpref_golden_suite_free(&s);
			status = CLI_EXIT_FAIL;
			continue;
		}
		first_sentence(path, about, sizeof about);
		printf("%s: %llu chunks of 2^%u inputs\n    %s\n", names[i],
		       (unsigned long long)fpref_golden_sweep_chunks(&s), s.chunk_log2, about);
		fpref_golden_suite_free(&s);
	}
	sweep_campaign_names_free(names, n);
	return status;
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_args a = { NULL, NULL, false, false };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_sweep, argc, argv, &o, &a);
	if (r)
		return r;
	unsigned index, count;
	char path[1024], err[2048];
	if (a.list) {
		if (o.npositional || a.out || a.shard || a.resume) {
			cli_fail(cli_cmd_sweep.name, "--list takes nothing else");
			return CLI_EXIT_USAGE;
		}
		return list_campaigns();
	}
	if (o.npositional != 1) {
		cli_fail(cli_cmd_sweep.name, "expected one CAMPAIGN (see fpref sweep --help)");
		return CLI_EXIT_USAGE;
	}
	if (!a.out) {
		cli_fail(cli_cmd_sweep.name, "--out-dir DIR is needed");
		return CLI_EXIT_USAGE;
	}
	if (sweep_parse_shard(a.shard, &index, &count) != 0) {
		cli_fail(cli_cmd_sweep.name, "bad --shard '%s' (i/N with 0 <= i < N)", a.shard);
		return CLI_EXIT_USAGE;
	}
	if (sweep_find_campaign(o.positional[0], path, sizeof path) != 0) {
		cli_fail(cli_cmd_sweep.name, "no campaign '%s' (a path, or a name in golden/sweeps)", o.positional[0]);
		return CLI_EXIT_USAGE;
	}
	struct fpref_golden_suite s;
	if (fpref_golden_suite_read(path, &s, err, sizeof err) != 0 || !s.campaign) {
		if (s.njobs)
			snprintf(err, sizeof err, "%s is a suite, not a campaign (run it with fpref gen)", path);
		cli_fail(cli_cmd_sweep.name, "%s", err);
		fpref_golden_suite_free(&s);
		return CLI_EXIT_USAGE;
	}
	struct progress_state st = { .tty = isatty(2) };
	clock_gettime(CLOCK_MONOTONIC, &st.start);
	struct fpref_golden_sweep_progress p;
	struct fpref_golden_sweep_counts total = { 0 };
	bool complete;
	r = fpref_golden_sweep_run(&s, a.out, index, count, a.resume, show_progress, &st, &p, &complete, &total, err,
			    sizeof err);
	if (st.tty)
		fprintf(stderr, "\n");
	if (r != 0) {
		fpref_golden_suite_free(&s);
		cli_fail(cli_cmd_sweep.name, "%s", err);
		return CLI_EXIT_FAIL;
	}
	printf("%s: %llu chunks run, %llu kept, %llu cases compared\n", o.positional[0],
	       (unsigned long long)(p.done - p.skipped), (unsigned long long)p.skipped, (unsigned long long)p.cases);
	if (complete)
		printf("complete: %llu cases, %llu agree (%llu refused by both), %llu disagree; %s/MANIFEST\n",
		       (unsigned long long)total.cases, (unsigned long long)total.agree, (unsigned long long)total.refused,
		       (unsigned long long)total.disagree, a.out);
	else if (p.disagree)
		printf("%llu disagree in this shard's chunks\n", (unsigned long long)p.disagree);
	char first[1024];
	if ((complete ? total.disagree : p.disagree) && fpref_golden_sweep_first(&s, a.out, first, sizeof first))
		printf("first disagreement: %s\n", first);
	if (!complete)
		printf("not complete: other shards' chunks are still to run (then --resume writes the MANIFEST)\n");
	fpref_golden_suite_free(&s);
	/* a shard whose share agrees has done its part: 0, so that job arrays
	 * and make check-exhaustive SHARD=i/N go on; a disagreement fails */
	return (complete ? total.disagree : p.disagree) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
