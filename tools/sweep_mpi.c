/* fpref-sweep-mpi: fpref sweep over Open MPI ranks.  Rank 0 hands out the
 * chunks still to run one at a time (a rank that finishes gets the next:
 * dynamic balancing), receives each chunk's result text, writes it
 * atomically into DIR (no shared file system needed) and, at the end, the
 * one MANIFEST that a serial run writes, byte for byte.  The other ranks
 * compute.  A killed run leaves only whole chunk files; --resume keeps them.
 *
 *   mpirun -n N fpref-sweep-mpi CAMPAIGN --out-dir DIR [--resume]
 *
 * FPREF_SWEEP_MPI_KILL=R:K (for tests/sweep-mpi.sh) makes worker rank R
 * send itself SIGKILL when its K-th chunk arrives: a rank dying midway, at
 * a point that does not depend on how busy the machine is (a kill from
 * outside raced the run's end on a loaded machine). */
#include <mpi.h>
#include <stdbool.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpref_golden_sweep.h"
#include "sweep_find.h"

enum { TAG_WORK = 1, TAG_STOP = 2, TAG_RESULT = 3 };

static int usage(int rank, const char *fmt, const char *token)
{
	if (rank == 0) {
		fprintf(stderr, "fpref-sweep-mpi: ");
		fprintf(stderr, fmt, token);
		fprintf(stderr, "\nusage: mpirun -n N fpref-sweep-mpi CAMPAIGN --out-dir DIR [--resume]\n");
	}
	return 2;
}

/* The chunk count at which this rank is to die (FPREF_SWEEP_MPI_KILL), or 0. */
static unsigned long kill_after(int rank)
{
	const char *v = getenv("FPREF_SWEEP_MPI_KILL");
	int r;
	unsigned long k;
	if (v && sscanf(v, "%d:%lu", &r, &k) == 2 && r == rank)
		return k;
	return 0;
}

/* A worker: compute the chunks rank 0 sends until it says stop. */
static int work(const struct fpref_golden_suite *s, int rank)
{
	unsigned long die_at = kill_after(rank), received = 0;
	for (;;) {
		uint64_t c;
		MPI_Status st;
		MPI_Recv(&c, 1, MPI_UINT64_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		if (st.MPI_TAG == TAG_STOP)
			return 0;
		if (++received == die_at)
			raise(SIGKILL);
		char *text = NULL;
		size_t len = 0;
		if (fpref_golden_sweep_compute(s, c, &text, &len, NULL) != 0) {
			fprintf(stderr, "fpref-sweep-mpi: out of memory\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		MPI_Send(text, (int)len, MPI_CHAR, 0, TAG_RESULT, MPI_COMM_WORLD);
		free(text);
	}
}

/* Move *next past the chunks dir already holds (when resuming). */
static void skip_done(const struct fpref_golden_suite *s, const char *dir, bool resume, uint64_t chunks, uint64_t *next,
		      uint64_t *kept)
{
	while (resume && *next < chunks && fpref_golden_sweep_done(s, dir, *next, NULL)) {
		++*next;
		++*kept;
	}
}

/* Rank 0: the chunks to run, out to the workers; results into dir. */
static int lead(const struct fpref_golden_suite *s, const char *dir, bool resume, int size)
{
	char err[2048], manifest[1200];
	uint64_t chunks = fpref_golden_sweep_chunks(s), kept = 0, run = 0, next = 0;
	snprintf(manifest, sizeof manifest, "%s/MANIFEST", dir);
	if (!resume)
		remove(manifest);
	bool tty = isatty(2);
	skip_done(s, dir, resume, chunks, &next, &kept); /* next: the first chunk to run, or chunks */
	int busy = 0;
	for (int r = 1; r < size; r++) {
		if (next < chunks) {
			MPI_Send(&next, 1, MPI_UINT64_T, r, TAG_WORK, MPI_COMM_WORLD);
			next++;
			skip_done(s, dir, resume, chunks, &next, &kept);
			busy++;
		} else {
			MPI_Send(&next, 1, MPI_UINT64_T, r, TAG_STOP, MPI_COMM_WORLD);
		}
	}
	while (busy > 0 || (size == 1 && next < chunks)) {
		char *text = NULL;
		int len = 0, from = 0;
		uint64_t c = 0;
		if (size == 1) { /* alone: compute here */
			size_t n;
			c = next++;
			if (fpref_golden_sweep_compute(s, c, &text, &n, NULL) != 0)
				MPI_Abort(MPI_COMM_WORLD, 1);
			len = (int)n;
		} else {
			MPI_Status st;
			MPI_Probe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_CHAR, &len);
			from = st.MPI_SOURCE;
			text = malloc((size_t)len + 1);
			if (!text)
				MPI_Abort(MPI_COMM_WORLD, 1);
			MPI_Recv(text, len, MPI_CHAR, from, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			/* the chunk is named in its own text ("chunk C" on line 3) */
			const char *p = strstr(text, "\nchunk ");
			if (!p || sscanf(p + 7, "%" SCNu64, &c) != 1 || c >= chunks)
				MPI_Abort(MPI_COMM_WORLD, 1);
			busy--;
			if (next < chunks) {
				MPI_Send(&next, 1, MPI_UINT64_T, from, TAG_WORK, MPI_COMM_WORLD);
				next++;
				busy++;
			} else {
				MPI_Send(&next, 1, MPI_UINT64_T, from, TAG_STOP, MPI_COMM_WORLD);
			}
		}
		if (fpref_golden_sweep_store(dir, c, text, (size_t)len, err, sizeof err) != 0) {
			fprintf(stderr, "fpref-sweep-mpi: %s\n", err);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		free(text);
		run++;
		skip_done(s, dir, resume, chunks, &next, &kept);
		if (tty)
			fprintf(stderr, "\r%llu/%llu chunks (%llu kept) ", (unsigned long long)(run + kept),
				(unsigned long long)chunks, (unsigned long long)kept);
	}
	if (tty)
		fprintf(stderr, "\n");
	struct fpref_golden_sweep_counts total;
	if (fpref_golden_sweep_manifest(s, dir, &total, err, sizeof err) != 0) {
		fprintf(stderr, "fpref-sweep-mpi: %s\n", err);
		return 1;
	}
	printf("%s: %llu chunks run on %d ranks, %llu kept\n", s->name, (unsigned long long)run, size,
	       (unsigned long long)kept);
	printf("complete: %llu cases, %llu agree (%llu refused by both), %llu disagree; %s\n",
	       (unsigned long long)total.cases, (unsigned long long)total.agree, (unsigned long long)total.refused,
	       (unsigned long long)total.disagree, manifest);
	char first[1024];
	if (total.disagree && fpref_golden_sweep_first(s, dir, first, sizeof first))
		printf("first disagreement: %s\n", first);
	return total.disagree ? 1 : 0;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	const char *campaign = NULL, *out = NULL;
	bool resume = false;
	int status = 0;
	for (int i = 1; i < argc && status == 0; i++) {
		if ((strcmp(argv[i], "--out-dir") == 0 || strcmp(argv[i], "-o") == 0) && i + 1 < argc)
			out = argv[++i];
		else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
			/* the old spelling, as fpref sweep reads it (docs/vocabulary.md) */
			if (rank == 0)
				fprintf(stderr, "fpref-sweep-mpi: note: --out is now --out-dir (the old spelling still works; "
						"docs/vocabulary.md)\n");
			out = argv[++i];
		}
		else if (strcmp(argv[i], "--resume") == 0)
			resume = true;
		else if (argv[i][0] != '-' && !campaign)
			campaign = argv[i];
		else
			status = usage(rank, "unexpected argument '%s'", argv[i]);
	}
	if (status == 0 && (!campaign || !out))
		status = usage(rank, "%s", "a CAMPAIGN and --out-dir DIR are needed");
	char path[1024], err[2048];
	struct fpref_golden_suite s = { .njobs = 0 };
	if (status == 0 && sweep_find_campaign(campaign, path, sizeof path) != 0)
		status = usage(rank, "no campaign '%s' (a path, or a name in golden/sweeps)", campaign);
	if (status == 0 && (fpref_golden_suite_read(path, &s, err, sizeof err) != 0 || !s.campaign)) {
		if (s.njobs)
			snprintf(err, sizeof err, "%s is a suite, not a campaign", path);
		status = usage(rank, "%s", err);
	}
	if (status == 0)
		status = rank == 0 ? lead(&s, out, resume, size) : work(&s, rank);
	fpref_golden_suite_free(&s);
	MPI_Finalize();
	return status;
}
