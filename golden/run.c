/* A whole suite: its files shared out among threads, each made whole or
 * not at all, with progress reported from the calling thread. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <errno.h>

#include "fpref_file.h"
#include "fpref_golden.h"

struct shared {
	const struct fpref_golden_suite *suite;
	const char *dir;
	unsigned index, count;
	atomic_size_t next;       /* the next job to take */
	atomic_size_t files, skipped;
	atomic_ullong vectors;
	atomic_int failed;
	atomic_int stop;          /* a signal came: take no more jobs */
	pthread_mutex_t lock;     /* guards err */
	char err[1024];
};

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
		} else {
			char *body = NULL;
			size_t len = 0;
			/* the arrays first: the golden file, written last, marks the job done */
			if (fpref_golden_compute(j, &body, &len, &vectors, err, sizeof err) != 0 ||
			    (sh->suite->npy && fpref_golden_write_npy(sh->dir, j, body, err, sizeof err) != 0) ||
			    fpref_golden_write(sh->dir, j, sh->suite->name, body, len, vectors, err, sizeof err) != 0) {
				free(body);
				pthread_mutex_lock(&sh->lock);
				if (!atomic_exchange(&sh->failed, 1))
					snprintf(sh->err, sizeof sh->err, "%s", err);
				pthread_mutex_unlock(&sh->lock);
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
	sh->suite = s;
	sh->dir = dir;
	sh->index = index;
	sh->count = count;
	pthread_mutex_init(&sh->lock, NULL);
	size_t total = 0;
	for (size_t k = 0; k < s->njobs; k++)
		total += k % count == index;
	/* SIGINT and SIGTERM are held while the threads run (they inherit the
	 * mask) and taken here: the threads then finish the files they are
	 * writing and start no more, so no file is left half made */
	sigset_t held, before;
	sigemptyset(&held);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &held, &before);
	unsigned started = 0;
	while (started < threads && pthread_create(&t[started], NULL, worker, sh) == 0)
		started++;
	if (started == 0)
		worker(sh);
	struct fpref_golden_progress p;
	int signal = 0;
	while (started) {
		snapshot(sh, total, &p);
		if (fn)
			fn(&p, arg);
		if (p.files >= total || atomic_load(&sh->failed) || signal)
			break;
		struct timespec pause = { 0, 200 * 1000 * 1000 };
		int got = sigtimedwait(&held, NULL, &pause);
		if (got == SIGINT || got == SIGTERM) {
			signal = got;
			atomic_store(&sh->stop, 1);
		}
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	snapshot(sh, total, done);
	done->signal = signal;
	if (fn)
		fn(done, arg);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	int failed = atomic_load(&sh->failed);
	if (failed)
		snprintf(err, errlen, "%s", sh->err);
	else if (signal)
		snprintf(err, errlen, "interrupted (signal %d): %zu of %zu files complete, kept; run again to finish",
			 signal, done->files, total);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
	free(t);
	return failed ? -1 : signal ? -2 : 0;
}

int fpref_golden_write_manifest(const struct fpref_golden_suite *s, const char *dir, char *err, size_t errlen)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/MANIFEST", dir);
	struct fpref_atomic out = { 0 };
	if (fpref_atomic_open(&out, path, err, errlen) != 0)
		return -1;
	bool ok = true;
	for (size_t k = 0; k < s->njobs && ok; k++) {
		char file[1024], hex[65], buf[1 << 16];
		snprintf(file, sizeof file, "%s/%s", dir, s->jobs[k].path);
		FILE *f = fopen(file, "rb");
		if (!f) {
			fpref_atomic_commit(&out, false, err, errlen);
			snprintf(err, errlen, "%s: %s (make the whole suite before its manifest)", file, strerror(errno));
			return -1;
		}
		struct fpref_sha256 sha;
		fpref_sha256_init(&sha);
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, f)) > 0)
			fpref_sha256_update(&sha, buf, n);
		fclose(f);
		fpref_sha256_hex(&sha, hex);
		ok = fprintf(out.f, "%s  %s\n", hex, s->jobs[k].path) > 0;
	}
	return fpref_atomic_commit(&out, ok, err, errlen);
}
