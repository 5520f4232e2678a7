/* Sweeps: every input of a campaign's jobs through the emulator and the
 * oracle, chunk by chunk, into checksummed result files and a manifest. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpref_emu.h"
#include "fpref_emu_e8m0.h"
#include "fpref_formats_file.h"
#include "fpref_golden_mutants.h"
#include "fpref_golden_sweep.h"
#include "fpref_ref.h"
#include "fpref_ref_e8m0.h"
#include "parse_internal.h"

static uint64_t job_chunks(const struct fpref_golden_suite *s, const struct fpref_golden_job *j)
{
	uint64_t size = UINT64_C(1) << s->chunk_log2;
	return (fpref_golden_sweep_job_inputs(j) + size - 1) / size;
}

uint64_t fpref_golden_sweep_chunks(const struct fpref_golden_suite *s)
{
	if (s->chunk_start)
		return s->chunk_start[s->njobs];
	uint64_t n = 0;
	for (size_t k = 0; k < s->njobs; k++)
		n += job_chunks(s, &s->jobs[k]);
	return n;
}

void fpref_golden_sweep_chunk_at(const struct fpref_golden_suite *s, uint64_t c, struct fpref_golden_sweep_chunk *out)
{
	size_t k = 0;
	if (s->chunk_start) { /* the last job starting at or before c: a campaign can have tens of thousands */
		size_t lo = 0, hi = s->njobs - 1;
		while (lo < hi) {
			size_t mid = lo + (hi - lo + 1) / 2;
			if (s->chunk_start[mid] <= c)
				lo = mid;
			else
				hi = mid - 1;
		}
		k = lo;
		c -= s->chunk_start[k];
	}
	while (k + 1 < s->njobs && c >= job_chunks(s, &s->jobs[k]))
		c -= job_chunks(s, &s->jobs[k++]);
	uint64_t size = UINT64_C(1) << s->chunk_log2, inputs = fpref_golden_sweep_job_inputs(&s->jobs[k]);
	out->job = k;
	out->first = c * size;
	out->end = out->first + size < inputs ? out->first + size : inputs;
}

/* A growing text; `failed` once an allocation failed. */
struct text {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
	for (int pass = 0; pass < 2 && !t->failed; pass++) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
		} else if (t->buf && (size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		} else {
			size_t cap = (t->cap + (size_t)n + 1) * 2;
			char *bigger = realloc(t->buf, cap);
			if (!bigger)
				t->failed = true;
			t->buf = bigger ? bigger : t->buf;
			t->cap = bigger ? cap : t->cap;
		}
	}
}

/* The lines every chunk file of chunk c starts with. */
static void chunk_header(struct text *t, const struct fpref_golden_suite *s, uint64_t c)
{
	struct fpref_golden_sweep_chunk ch;
	fpref_golden_sweep_chunk_at(s, c, &ch);
	add(t, "# fpref sweep chunk\ncampaign %s\n", s->name);
	if (s->mutant) /* a mutant's chunks are not the campaign's own: --resume must not take one for the other */
		add(t, "mutant %s\n", s->mutant->name);
	add(t, "chunk %" PRIu64 "\njob %s\ninputs 0x%" PRIx64 " 0x%" PRIx64 "\n", c, s->jobs[ch.job].path, ch.first,
	    ch.end);
}

static void close_with_sum(struct text *t)
{
	if (t->failed)
		return;
	struct fpref_sha256 h;
	char hex[65];
	fpref_golden_sha256_init(&h);
	fpref_golden_sha256_update(&h, t->buf, t->len);
	fpref_golden_sha256_hex(&h, hex);
	add(t, "sha256 %s\n", hex);
}

int fpref_golden_sweep_compute(const struct fpref_golden_suite *s, uint64_t c, char **text, size_t *len,
			struct fpref_golden_sweep_counts *counts)
{
	struct fpref_golden_sweep_chunk ch;
	fpref_golden_sweep_chunk_at(s, c, &ch);
	const struct fpref_golden_job *j = &s->jobs[ch.job];
	unsigned arity = job_arity(j), width = (unsigned)fpref_format_width(&j->in);
	uint64_t mask = (UINT64_C(1) << width) - 1;
	struct fpref_golden_sweep_counts n = { 0 };
	struct text shown = { 0 };
	for (uint64_t i = ch.first; i < ch.end; i++) {
		uint64_t in[3] = { 0, 0, 0 }, want = 0, got = 0;
		unsigned want_flags = 0, got_flags = 0;
		for (unsigned k = 0; k < arity; k++)
			in[k] = (i >> (k * width)) & mask;
		uint64_t R = fpref_env_sr_random(&j->env, i);
		int rr, re;
		if (j->kind == FPREF_GOLDEN_E8M0) {
			/* a scale rule: a code, no flags (fpref_formats_e8m0.h) */
			uint8_t rc = 0, ec = 0;
			char err[256];
			const struct fpref_format *el = fpref_e8m0_rule_needs_element(&j->e8m0) ? &j->out : NULL;
			rr = fpref_ref_e8m0(&j->e8m0, el, (uint32_t)in[0], &rc, err, sizeof err);
			re = fpref_emu_e8m0(&j->e8m0, el, (uint32_t)in[0], &ec, err, sizeof err);
			want = rc;
			got = ec;
		} else if (j->kind == FPREF_GOLDEN_CONVERT) {
			rr = fpref_ref_convert(&j->in, in[0], &j->out, &j->env, R, &want, &want_flags);
			re = fpref_emu_convert(&j->in, in[0], &j->out, &j->env, R, &got, &got_flags);
		} else {
			rr = fpref_ref_op(j->op, &j->in, in, &j->env, R, &want, &want_flags);
			re = fpref_emu_op(j->op, &j->in, in, &j->env, R, &got, &got_flags);
		}
		if (s->mutant && re == 0) /* the bug's bits; a kernel raises no flags, so the emulator's stay */
			fpref_golden_mutant_result(s->mutant, j, in, &got);
		n.cases++;
		if (rr == re && (rr != 0 || (want == got && want_flags == got_flags))) {
			n.agree++;
			n.refused += rr != 0;
			continue;
		}
		if (n.disagree++ < FPREF_GOLDEN_SWEEP_SHOWN) {
			add(&shown, "differs");
			for (unsigned k = 0; k < arity; k++)
				add(&shown, " %" PRIx64, in[k]);
			add(&shown, " oracle %" PRIx64 " %02x %d emulator %" PRIx64 " %02x %d\n", want, want_flags, rr, got,
			    got_flags, re);
		}
	}
	struct text t = { 0 };
	chunk_header(&t, s, c);
	add(&t, "cases %" PRIu64 "\nagree %" PRIu64 "\nrefused %" PRIu64 "\ndisagree %" PRIu64 "\n", n.cases, n.agree,
	    n.refused, n.disagree);
	if (shown.len)
		add(&t, "%s", shown.buf);
	close_with_sum(&t);
	bool failed = t.failed || shown.failed;
	free(shown.buf);
	if (failed) {
		free(t.buf);
		return -1;
	}
	*text = t.buf;
	*len = t.len;
	if (counts)
		*counts = n;
	return 0;
}

static void chunk_path(const char *dir, uint64_t c, char *buf, size_t len)
{
	snprintf(buf, len, "%s/chunks/%08" PRIu64 ".txt", dir, c);
}

static int make_dir(const char *path, char *err, size_t errlen)
{
	if (mkdir(path, 0777) == 0 || errno == EEXIST)
		return 0;
	snprintf(err, errlen, "%s: %s", path, strerror(errno));
	return -1;
}

int fpref_golden_sweep_store(const char *dir, uint64_t c, const char *text, size_t len, char *err, size_t errlen)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/chunks", dir);
	if (make_dir(dir, err, errlen) != 0 || make_dir(path, err, errlen) != 0)
		return -1;
	chunk_path(dir, c, path, sizeof path);
	struct fpref_atomic file = { 0 };
	if (fpref_atomic_open(&file, path, err, errlen) != 0)
		return -1;
	bool ok = fwrite(text, 1, len, file.f) == len;
	return fpref_atomic_commit(&file, ok, err, errlen);
}

/* Chunk c's file, read whole and checked: its text, or NULL. */
static char *read_done(const struct fpref_golden_suite *s, const char *dir, uint64_t c, size_t *len)
{
	char path[1200];
	chunk_path(dir, c, path, sizeof path);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = malloc(1 << 16);
	size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
	fclose(f);
	if (!buf)
		return NULL;
	buf[n] = '\0';
	struct text head = { 0 };
	chunk_header(&head, s, c);
	/* the last line is "sha256 HEX\n", the sum of everything before it */
	char *last = n >= 72 ? buf + n - 72 : NULL;
	bool ok = !head.failed && last && strncmp(last, "sha256 ", 7) == 0 && buf[n - 1] == '\n' &&
		  strncmp(buf, head.buf, head.len) == 0;
	if (ok) {
		struct fpref_sha256 h;
		char hex[65];
		fpref_golden_sha256_init(&h);
		fpref_golden_sha256_update(&h, buf, (size_t)(last - buf));
		fpref_golden_sha256_hex(&h, hex);
		ok = strncmp(last + 7, hex, 64) == 0;
	}
	free(head.buf);
	if (!ok) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static bool count_of(const char *text, const char *name, uint64_t *v)
{
	char key[32];
	snprintf(key, sizeof key, "\n%s ", name);
	const char *p = strstr(text, key);
	return p && sscanf(p + strlen(key), "%" SCNu64, v) == 1;
}

static bool counts_of(const char *text, struct fpref_golden_sweep_counts *n)
{
	return count_of(text, "cases", &n->cases) && count_of(text, "agree", &n->agree) &&
	       count_of(text, "refused", &n->refused) && count_of(text, "disagree", &n->disagree);
}

bool fpref_golden_sweep_done(const struct fpref_golden_suite *s, const char *dir, uint64_t c,
		      struct fpref_golden_sweep_counts *counts)
{
	size_t len;
	char *text = read_done(s, dir, c, &len);
	struct fpref_golden_sweep_counts n = { 0 };
	bool ok = text && counts_of(text, &n);
	free(text);
	if (ok && counts)
		*counts = n;
	return ok;
}

int fpref_golden_sweep_first(const struct fpref_golden_suite *s, const char *dir, char *buf, size_t len)
{
	uint64_t chunks = fpref_golden_sweep_chunks(s);
	int found = 0;
	for (uint64_t c = 0; c < chunks && !found; c++) {
		size_t n;
		char *text = read_done(s, dir, c, &n);
		struct fpref_golden_sweep_counts k;
		const char *d = text && counts_of(text, &k) && k.disagree ? strstr(text, "\ndiffers ") : NULL;
		if (d) {
			struct fpref_golden_sweep_chunk ch;
			fpref_golden_sweep_chunk_at(s, c, &ch);
			char env[256];
			fpref_env_describe(&s->jobs[ch.job].env, env, sizeof env);
			snprintf(buf, len, "chunks/%08" PRIu64 ".txt %s [%s] %.*s", c, s->jobs[ch.job].path, env,
				 (int)strcspn(d + 1, "\n"), d + 1);
			found = 1;
		}
		free(text);
	}
	return found;
}

static void sum_into(struct fpref_golden_sweep_counts *to, const struct fpref_golden_sweep_counts *n)
{
	to->cases += n->cases;
	to->agree += n->agree;
	to->refused += n->refused;
	to->disagree += n->disagree;
}

static void put_counts(struct text *t, const struct fpref_golden_sweep_counts *n)
{
	add(t, "cases %" PRIu64 " agree %" PRIu64 " refused %" PRIu64 " disagree %" PRIu64 "\n", n->cases, n->agree,
	    n->refused, n->disagree);
}

int fpref_golden_sweep_manifest(const struct fpref_golden_suite *s, const char *dir,
				struct fpref_golden_sweep_counts *total, char *err, size_t errlen)
{
	uint64_t chunks = fpref_golden_sweep_chunks(s);
	struct fpref_golden_sweep_counts *per_job = calloc(s->njobs, sizeof *per_job), all = { 0 };
	struct text sums = { 0 }, t = { 0 };
	int status = per_job ? 0 : -1;
	if (!per_job)
		snprintf(err, errlen, "out of memory");
	for (uint64_t c = 0; c < chunks && status == 0; c++) {
		size_t len;
		char *text = read_done(s, dir, c, &len);
		struct fpref_golden_sweep_counts n;
		if (!text || !counts_of(text, &n)) {
			char path[1200];
			chunk_path(dir, c, path, sizeof path);
			snprintf(err, errlen, "%s: missing or damaged (run the campaign with --resume to make it)", path);
			status = -1;
		} else {
			struct fpref_golden_sweep_chunk ch;
			fpref_golden_sweep_chunk_at(s, c, &ch);
			sum_into(&per_job[ch.job], &n);
			sum_into(&all, &n);
			struct fpref_sha256 h;
			char hex[65];
			fpref_golden_sha256_init(&h);
			fpref_golden_sha256_update(&h, text, len);
			fpref_golden_sha256_hex(&h, hex);
			add(&sums, "%s  chunks/%08" PRIu64 ".txt\n", hex, c);
		}
		free(text);
	}
	if (status == 0) {
		add(&t, "# fpref sweep manifest\ncampaign %s\nfpref %s\noracle MPFR %s\nchunks %" PRIu64 " of 2^%u inputs\n",
		    s->name, PACKAGE_VERSION, mpfr_get_version(), chunks, s->chunk_log2);
		if (s->mutant)
			add(&t, "mutant %s\n", s->mutant->name);
		for (size_t k = 0; k < s->njobs; k++) {
			add(&t, "job %s ", s->jobs[k].path);
			put_counts(&t, &per_job[k]);
		}
		add(&t, "total ");
		put_counts(&t, &all);
		char first[1024];
		if (all.disagree && fpref_golden_sweep_first(s, dir, first, sizeof first))
			add(&t, "first %s\n", first);
		add(&t, "%s", sums.buf ? sums.buf : "");
		close_with_sum(&t);
		if (t.failed || sums.failed) {
			snprintf(err, errlen, "out of memory");
			status = -1;
		}
	}
	if (status == 0) {
		char path[1200];
		snprintf(path, sizeof path, "%s/MANIFEST", dir);
		struct fpref_atomic file = { 0 };
		status = fpref_atomic_open(&file, path, err, errlen);
		if (status == 0)
			status = fpref_atomic_commit(&file, fwrite(t.buf, 1, t.len, file.f) == t.len, err, errlen);
	}
	if (status == 0 && total)
		*total = all;
	free(per_job);
	free(sums.buf);
	free(t.buf);
	return status;
}

int fpref_golden_sweep_run(const struct fpref_golden_suite *s, const char *dir, unsigned index, unsigned count,
			   bool resume, fpref_golden_sweep_progress_fn fn, void *arg, struct fpref_golden_sweep_progress *p,
			   bool *complete, struct fpref_golden_sweep_counts *total, char *err, size_t errlen)
{
	uint64_t chunks = fpref_golden_sweep_chunks(s);
	memset(p, 0, sizeof *p);
	*complete = false;
	p->chunks = chunks / count + (index < chunks % count);
	char manifest[1200];
	snprintf(manifest, sizeof manifest, "%s/MANIFEST", dir);
	if (!resume)
		remove(manifest); /* a fresh run: the old manifest describes other chunk files */
	for (uint64_t c = index; c < chunks; c += count) {
		struct fpref_golden_sweep_counts kept;
		if (resume && fpref_golden_sweep_done(s, dir, c, &kept)) {
			p->skipped++;
			p->disagree += kept.disagree; /* a kept chunk's disagreements are still this run's to report */
		} else {
			char *text;
			size_t len;
			struct fpref_golden_sweep_counts n;
			if (fpref_golden_sweep_compute(s, c, &text, &len, &n) != 0) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			int r = fpref_golden_sweep_store(dir, c, text, len, err, errlen);
			free(text);
			if (r != 0)
				return -1;
			p->cases += n.cases;
			p->disagree += n.disagree;
		}
		p->done++;
		if (fn && fn(p, arg) != 0)
			return 0;
	}
	for (uint64_t c = 0; c < chunks; c++)
		if (!fpref_golden_sweep_done(s, dir, c, NULL))
			return 0; /* another shard's chunks are still to come */
	if (fpref_golden_sweep_manifest(s, dir, total, err, errlen) != 0)
		return -1;
	*complete = true;
	return 0;
}
