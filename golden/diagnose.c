/* Diagnosis: the mutant catalogue run on a golden file's inputs and
 * ranked by how well each mutant reproduces a kernel's results (every
 * mismatch and nothing else is an exact diagnosis), with a greedy cover for
 * kernels that have more than one bug.  Lines are split among threads in
 * chunks of whole 64-line words, so that each thread writes its own bits. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_golden_diagnose.h"

#define CHUNK_WORDS 16 /* 1024 lines a chunk */

struct diagnose_work {
	const struct fpref_golden_file *g;
	const struct fpref_golden_job *j;
	const struct fpref_golden_results *r;
	const struct fpref_mutant **mutants;
	size_t nmutants, words;
	uint64_t *mismatch;   /* words: the kernel's bits differ from the golden's */
	uint64_t *explained;  /* nmutants x words: the mutant gives the kernel's bits there */
	size_t *contradicts;  /* nmutants, summed under the lock */
	size_t next;          /* the next chunk */
	int status;
	char *err;
	size_t errlen;
	pthread_mutex_t lock;
};

bool fpref_golden_diagnosis_exact(const struct fpref_diagnosis *d)
{
	return d->mismatches && d->explains == d->mismatches && d->contradicts == 0;
}

static int run_chunk(struct diagnose_work *w, size_t chunk, struct fpref_golden_line *l, size_t *contradicts, char *err,
		     size_t errlen)
{
	size_t first = chunk * CHUNK_WORDS * 64, end = first + CHUNK_WORDS * 64;
	if (end > w->g->nlines)
		end = w->g->nlines;
	for (size_t i = first; i < end; i++) {
		if (fpref_golden_parse_line(w->j, w->g->lines[i], l, err, errlen) != 0)
			return -1;
		uint64_t got = w->r->bits[i], bit = 1ull << (i % 64);
		bool wrong = got != l->result;
		if (wrong)
			w->mismatch[i / 64] |= bit;
		for (size_t m = 0; m < w->nmutants; m++) {
			uint64_t mine;
			if (fpref_golden_mutant_result(w->mutants[m], w->j, l->in, &mine) != 0)
				continue;
			if (wrong && mine == got)
				w->explained[m * w->words + i / 64] |= bit;
			else if (!wrong && mine != got)
				contradicts[m]++;
		}
	}
	return 0;
}

static void *worker(void *arg)
{
	struct diagnose_work *w = arg;
	char err[512];
	size_t *contradicts = calloc(w->nmutants ? w->nmutants : 1, sizeof *contradicts);
	struct fpref_golden_line *l = malloc(sizeof *l);
	int status = contradicts && l ? 0 : -1;
	if (status)
		snprintf(err, sizeof err, "out of memory");
	size_t chunks = (w->words + CHUNK_WORDS - 1) / CHUNK_WORDS;
	while (status == 0) {
		pthread_mutex_lock(&w->lock);
		size_t c = w->status ? chunks : w->next++;
		pthread_mutex_unlock(&w->lock);
		if (c >= chunks)
			break;
		status = run_chunk(w, c, l, contradicts, err, sizeof err);
	}
	pthread_mutex_lock(&w->lock);
	for (size_t m = 0; contradicts && m < w->nmutants; m++)
		w->contradicts[m] += contradicts[m];
	if (status && !w->status) {
		snprintf(w->err, w->errlen, "%s", err);
		w->status = -1;
	}
	pthread_mutex_unlock(&w->lock);
	free(contradicts);
	free(l);
	return NULL;
}

static size_t popcount_and(const uint64_t *a, const uint64_t *not_b, size_t words)
{
	size_t n = 0;
	for (size_t k = 0; k < words; k++)
		n += (size_t)__builtin_popcountll(a[k] & (not_b ? ~not_b[k] : ~0ull));
	return n;
}

static long score(const struct fpref_diagnosis *d)
{
	return (long)d->explains - (long)d->contradicts;
}

static int by_score(const void *a, const void *b)
{
	const struct fpref_diagnosis *x = a, *y = b;
	if (score(x) != score(y))
		return score(x) > score(y) ? -1 : 1;
	if (x->explains != y->explains)
		return x->explains > y->explains ? -1 : 1;
	return x->mutant < y->mutant ? -1 : x->mutant > y->mutant; /* the catalogue's order */
}

/* The greedy cover: at each step the mutant whose newly explained
 * mismatches, less its contradictions, are most; stop when none gains. */
static void cover(struct diagnose_work *w, struct fpref_diagnosis_report *rep, uint64_t *done)
{
	while (rep->ncover < FPREF_DIAGNOSE_COVER && rep->covered < rep->mismatches) {
		long best = 0;
		size_t pick = w->nmutants, gain = 0;
		for (size_t m = 0; m < w->nmutants; m++) {
			size_t add = popcount_and(&w->explained[m * w->words], done, w->words);
			long s = (long)add - (long)w->contradicts[m];
			if (add && s > best) {
				best = s;
				pick = m;
				gain = add;
			}
		}
		if (pick == w->nmutants)
			break;
		rep->cover[rep->ncover++] = (struct fpref_diagnosis){ w->mutants[pick], gain, w->contradicts[pick],
								      rep->mismatches };
		rep->covered += gain;
		for (size_t k = 0; k < w->words; k++)
			done[k] |= w->explained[pick * w->words + k];
	}
}

static void run_threads(struct diagnose_work *w, unsigned threads)
{
	pthread_t t[256];
	unsigned started = 0;
	threads = threads < 1 ? 1 : threads > 256 ? 256 : threads;
	for (unsigned i = 1; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, w) == 0)
			started = i;
		else
			break;
	worker(w);
	for (unsigned i = 1; i <= started; i++)
		pthread_join(t[i], NULL);
}

int fpref_golden_diagnose(const struct fpref_golden_file *g, const struct fpref_golden_job *j,
			  const struct fpref_golden_results *r, unsigned threads, struct fpref_diagnosis_report *rep,
			  char *err, size_t errlen)
{
	memset(rep, 0, sizeof *rep);
	if (r->n != g->nlines) {
		snprintf(err, errlen, "%zu results for %zu golden vectors", r->n, g->nlines);
		return -1;
	}
	size_t count = fpref_golden_mutant_count(), words = (g->nlines + 63) / 64;
	struct diagnose_work w = { g, j, r, calloc(count, sizeof *w.mutants), 0, words ? words : 1,
				   NULL, NULL, calloc(count, sizeof *w.contradicts), 0, 0, err, errlen,
				   PTHREAD_MUTEX_INITIALIZER };
	for (size_t i = 0; w.mutants && i < count; i++)
		if (fpref_golden_mutant_applies(fpref_golden_mutant_at(i), j))
			w.mutants[w.nmutants++] = fpref_golden_mutant_at(i);
	w.mismatch = calloc(w.words, sizeof *w.mismatch);
	w.explained = calloc(w.words * (w.nmutants ? w.nmutants : 1), sizeof *w.explained);
	uint64_t *done = calloc(w.words, sizeof *done);
	rep->rows = calloc(w.nmutants ? w.nmutants : 1, sizeof *rep->rows);
	int status = 0;
	if (!w.mutants || !w.contradicts || !w.mismatch || !w.explained || !done || !rep->rows) {
		snprintf(err, errlen, "out of memory");
		status = -1;
	} else {
		run_threads(&w, threads);
		status = w.status;
	}
	if (status == 0) {
		rep->lines = g->nlines;
		rep->applicable = w.nmutants;
		rep->mismatches = popcount_and(w.mismatch, NULL, w.words);
		for (size_t m = 0; m < w.nmutants; m++) {
			size_t e = popcount_and(&w.explained[m * w.words], NULL, w.words);
			if (e)
				rep->rows[rep->nrows++] = (struct fpref_diagnosis){ w.mutants[m], e, w.contradicts[m],
										    rep->mismatches };
		}
		qsort(rep->rows, rep->nrows, sizeof *rep->rows, by_score);
		cover(&w, rep, done);
	}
	pthread_mutex_destroy(&w.lock);
	free(w.mutants);
	free(w.contradicts);
	free(w.mismatch);
	free(w.explained);
	free(done);
	if (status)
		fpref_golden_diagnosis_free(rep);
	return status;
}

void fpref_golden_diagnosis_free(struct fpref_diagnosis_report *rep)
{
	free(rep->rows);
	rep->rows = NULL;
	rep->nrows = 0;
}
