/* fpref — sweeps: campaigns that compare the emulator with the oracle on
 * every input of a job, bit for bit and flag for flag, in chunks.
 *
 * A campaign is a suite file (fpref_golden.h) whose first line is
 * "campaign NAME", with a "chunk N" line (2^N inputs per chunk) and
 * convert and op lines whose generator is "exhaustive": every pattern of
 * the source, or every operand tuple of the format.  Its chunks are
 * numbered through the jobs in order; chunk c of the campaign covers
 * inputs [first, end) of one job.
 *
 * Each chunk's result is a small text file, DIR/chunks/NNNNNNNN.txt: the
 * campaign, the job, the range, the counts (cases, agreements,
 * disagreements), the first disagreements, and a closing SHA-256 of the
 * lines before it.  It is written to a temporary and renamed, so that a
 * kill leaves either the whole file or none, and a resumed run keeps every
 * chunk whose file checks.  The manifest, DIR/MANIFEST, is written once
 * every chunk is there: the totals per job and each chunk file's SHA-256,
 * in chunk order, and nothing that depends on how the chunks were shared
 * out (processes, shards, MPI ranks, order of completion), so that every
 * way of running a campaign gives the same bytes. */
#ifndef FPREF_GOLDEN_SWEEP_H
#define FPREF_GOLDEN_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "fpref_golden.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FPREF_GOLDEN_SWEEP_SHOWN 8 /* disagreements listed per chunk */

struct fpref_golden_sweep_chunk {
	size_t job;          /* index into the campaign's jobs */
	uint64_t first, end; /* the job's inputs [first, end) */
};

struct fpref_golden_sweep_counts {
	uint64_t cases, agree, disagree;
	uint64_t refused; /* of agree: a pattern the source lacks, refused by both */
};

/* The number of chunks of campaign s, and chunk c of it (c < that). */
uint64_t fpref_golden_sweep_chunks(const struct fpref_golden_suite *s);
void fpref_golden_sweep_chunk_at(const struct fpref_golden_suite *s, uint64_t c, struct fpref_golden_sweep_chunk *out);
/* The inputs of job j: 2^(arity x width of its source). */
uint64_t fpref_golden_sweep_job_inputs(const struct fpref_golden_job *j);

/* Compare emulator and oracle on chunk c: its result file's text (free
 * with free()) and counts.  0, or -1 when out of memory. */
int fpref_golden_sweep_compute(const struct fpref_golden_suite *s, uint64_t c, char **text, size_t *len,
			struct fpref_golden_sweep_counts *counts);
/* Write chunk c's text into dir/chunks/ atomically (creating the folders).
 * 0, or -1 with a message. */
int fpref_golden_sweep_store(const char *dir, uint64_t c, const char *text, size_t len, char *err, size_t errlen);
/* Whether dir holds chunk c's file for campaign s, its checksum right and
 * its header this chunk's; its counts into *counts when so (may be NULL). */
bool fpref_golden_sweep_done(const struct fpref_golden_suite *s, const char *dir, uint64_t c,
		      struct fpref_golden_sweep_counts *counts);

/* Write dir/MANIFEST from the chunk files, all of which must be done.  The
 * campaign's totals into *total.  0, or -1 with a message naming the first
 * missing or damaged chunk. */
int fpref_golden_sweep_manifest(const struct fpref_golden_suite *s, const char *dir,
				struct fpref_golden_sweep_counts *total, char *err, size_t errlen);

/* The first disagreement of the campaign in dir, in chunk order, among
 * the chunk files there: "chunks/NNNNNNNN.txt JOB [ENV] differs INPUTS
 * oracle BITS FLAGS RC emulator BITS FLAGS RC" into buf; 1, or 0 when
 * none (the MANIFEST's "first" line, and what the tools print). */
int fpref_golden_sweep_first(const struct fpref_golden_suite *s, const char *dir, char *buf, size_t len);

struct fpref_golden_sweep_progress {
	uint64_t chunks, done, skipped; /* of this run's share; skipped: found done (resume) */
	uint64_t cases;                 /* compared by this run */
	uint64_t disagree;              /* in this run's share, computed or kept */
};
/* Called after each chunk; nonzero stops the run. */
typedef int (*fpref_golden_sweep_progress_fn)(const struct fpref_golden_sweep_progress *p, void *arg);

/* Run the chunks c with c % count == index into dir, keeping those already
 * done when `resume`, then write the manifest when every chunk of the
 * campaign is done (the last shard to finish writes it).  0 (*complete
 * says whether the manifest was written), or -1 with a message. */
int fpref_golden_sweep_run(const struct fpref_golden_suite *s, const char *dir, unsigned index, unsigned count,
			   bool resume, fpref_golden_sweep_progress_fn fn, void *arg, struct fpref_golden_sweep_progress *p,
			   bool *complete, struct fpref_golden_sweep_counts *total, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
