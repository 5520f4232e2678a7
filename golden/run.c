/* A whole suite: its files shared out among threads, each made whole or
 * not at all, with progress reported from the calling thread. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fpref_golden.h"

struct shared {
	const struct fpref_golden_suite *suite;
	const char *dir;
	unsigned index, count;
	atomic_size_t next;       /* the next job to take */
	atomic_size_t files, skipped, arrays_added;
	atomic_ullong vectors;
	atomic_int failed;
	atomic_int stop;          /* the caller asked to stop: take no more jobs */
	pthread_mutex_t lock;     /* guards err */
	char err[1024];
};

/* Whether any of the job's .npy arrays is missing from dir. */
static bool arrays_missing(const char *dir, const struct fpref_golden_job *j)
{
	char names[3][300], path[1400];
	int n = fpref_golden_arrays(j, names);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (access(path, F_OK) != 0)
			return true;
	}
	return false;
}

/* The arrays of a file that is already complete, from its body (a run
 * with --npy over a folder made without it). */
static int arrays_from_file(const char *dir, const struct fpref_golden_job *j, char *err, size_t errlen)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, j->path);
	struct fpref_golden_file g;
	if (fpref_golden_read(path, &g, err, errlen) != 0)
		return -1;
	size_t len = 0;
	for (size_t i = 0; i < g.nlines; i++)
		len += strlen(g.lines[i]) + 1;
	char *body = malloc(len + 1), *p = body;
	for (size_t i = 0; body && i < g.nlines; i++) {
		size_t n = strlen(g.lines[i]);
		memcpy(p, g.lines[i], n);
		p[n] = '\n';
		p += n + 1;
	}
	int status = -1;
	if (body) {
		*p = '\0';
		status = fpref_golden_write_npy(dir, j, body, err, errlen);
	} else
		snprintf(err, errlen, "out of memory");
	free(body);
	fpref_golden_file_free(&g);
	return status;
}

static void worker_failed(struct shared *sh, const char *err)
{
	pthread_mutex_lock(&sh->lock);
	if (!atomic_exchange(&sh->failed, 1))
		snprintf(sh->err, sizeof sh->err, "%s", err);
	pthread_mutex_unlock(&sh->lock);
}

static void *worker(void *arg)
{
	struct shared *sh = arg;
	for (;;) {
		size_t k = atomic_fetch_add(&sh->next, 1);
		if (k >= sh->suite->njobs || atomic_load(&sh->failed) || atomic_load(&sh->stop))
			break;
		if (k % sh->count != sh->index)
			continue;
		const struct fpref_golden_job *j = &sh->suite->jobs[k];
		unsigned long vectors = 0;
		char err[1024];
		if (fpref_golden_is_done(sh->dir, j, sh->suite->name, &vectors)) {
			atomic_fetch_add(&sh->skipped, 1);
			if (sh->suite->npy && arrays_missing(sh->dir, j)) {
				if (arrays_from_file(sh->dir, j, err, sizeof err) != 0) {
					worker_failed(sh, err);
					break;
				}
				atomic_fetch_add(&sh->arrays_added, 1);
			}
		} else {
			char *body = NULL;
			size_t len = 0;
			/* the arrays first: the golden file, written last, marks the job done */
			if (fpref_golden_compute(j, &body, &len, &vectors, err, sizeof err) != 0 ||
			    (sh->suite->npy && fpref_golden_write_npy(sh->dir, j, body, err, sizeof err) != 0) ||
			    fpref_golden_write(sh->dir, j, sh->suite->name, body, len, vectors, err, sizeof err) != 0) {
				free(body);
				worker_failed(sh, err);
				break;
			}
			free(body);
		}
		atomic_fetch_add(&sh->vectors, vectors);
		atomic_fetch_add(&sh->files, 1);
	}
	return NULL;
}

static void snapshot(struct shared *sh, size_t total, struct fpref_golden_progress *p)
{
	p->files = atomic_load(&sh->files);
	p->skipped = atomic_load(&sh->skipped);
	p->arrays_added = atomic_load(&sh->arrays_added);
	p->vectors = atomic_load(&sh->vectors);
	p->files_total = total;
}

int fpref_golden_generate(const struct fpref_golden_suite *s, const char *dir, unsigned index, unsigned count,
			  unsigned threads, fpref_golden_progress_fn fn, void *arg, struct fpref_golden_progress *done,
			  char *err, size_t errlen)
{
	if (count == 0 || index >= count || threads == 0) {
		snprintf(err, errlen, "bad shard %u/%u or thread count %u", index, count, threads);
		return -1;
	}
	struct shared *sh = calloc(1, sizeof *sh);
	pthread_t *t = calloc(threads, sizeof *t);
	if (!sh || !t) {
		free(sh);
		free(t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	threads = fpref_golden_threads(threads); /* the oracle's MPFR must be thread-safe */
	sh->suite = s;
	sh->dir = dir;
	sh->index = index;
	sh->count = count;
	pthread_mutex_init(&sh->lock, NULL);
	size_t total = 0;
	for (size_t k = 0; k < s->njobs; k++)
		total += k % count == index;
	unsigned started = 0;
	while (started < threads && pthread_create(&t[started], NULL, worker, sh) == 0)
		started++;
	if (started == 0)
		worker(sh);
	struct fpref_golden_progress p;
	bool stopped = false;
	while (started) {
		snapshot(sh, total, &p);
		p.threads = threads;
		/* a stop lets the threads finish the files they are writing and
		 * start no more, so that no file is left half made */
		if (fn && fn(&p, arg) != 0) {
			stopped = true;
			atomic_store(&sh->stop, 1);
		}
		if (p.files >= total || atomic_load(&sh->failed) || stopped)
			break;
		struct timespec pause = { 0, 200 * 1000 * 1000 };
		nanosleep(&pause, NULL);
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	snapshot(sh, total, done);
	done->threads = threads;
	if (fn)
		fn(done, arg);
	int failed = atomic_load(&sh->failed);
	if (failed)
		snprintf(err, errlen, "%s", sh->err);
	else if (stopped)
		snprintf(err, errlen, "%zu of %zu files complete, kept; run again to finish", done->files, total);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
	free(t);
	return failed ? -1 : stopped ? -2 : 0;
}
