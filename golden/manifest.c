/* Manifests: the checksum of every file a suite makes, written by a whole
 * run or by each shard, merged from the shards, and checked against a
 * folder (missing, changed and extra files). */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fpref_formats_file.h"
#include "fpref_golden.h"

int fpref_golden_arrays(const struct fpref_golden_job *j, char names[3][300])
{
	static const char *const kinds[] = { "inputs", "results", "flags" };
	int n = j->kind == FPREF_GOLDEN_DOT ? 2 : 3; /* dot lines carry no flags */
	int stem = (int)strlen(j->path) - 4;         /* without ".txt" */
	for (int i = 0; i < n; i++)
		snprintf(names[i], sizeof names[i], "%.*s.%s.npy", stem, j->path, kinds[i]);
	return n;
}

static int hash_file(const char *path, char hex[65])
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	struct fpref_sha256 sha;
	fpref_golden_sha256_init(&sha);
	char buf[1 << 16];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		fpref_golden_sha256_update(&sha, buf, n);
	bool bad = ferror(f);
	fclose(f);
	fpref_golden_sha256_hex(&sha, hex);
	return bad ? -1 : 0;
}

/* The paths of job k's entries: its file, then its arrays if the suite makes them. */
static int entries_of(const struct fpref_golden_suite *s, size_t k, char names[4][300])
{
	snprintf(names[0], sizeof names[0], "%s", s->jobs[k].path);
	return s->npy ? 1 + fpref_golden_arrays(&s->jobs[k], names + 1) : 1;
}

static void manifest_name(const char *dir, unsigned index, unsigned count, char *buf, size_t len)
{
	if (count == 1)
		snprintf(buf, len, "%s/MANIFEST", dir);
	else
		snprintf(buf, len, "%s/MANIFEST.shard-%u-of-%u", dir, index, count);
}

/* SIGINT and SIGTERM held while a manifest is written, so that an
 * interrupt leaves no temporary: it takes effect once the file is renamed
 * (or removed). */
static void hold_signals(sigset_t *before)
{
	sigset_t held;
	sigemptyset(&held);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &held, before);
}

static int write_entries(const struct fpref_golden_suite *s, const char *dir, unsigned index, unsigned count,
			 char *err, size_t errlen)
{
	char path[1024];
	manifest_name(dir, index, count, path, sizeof path);
	struct fpref_atomic out = { 0 };
	if (fpref_atomic_open(&out, path, err, errlen) != 0)
		return -1;
	bool ok = true;
	for (size_t k = index; k < s->njobs && ok; k += count) {
		char names[4][300];
		int n = entries_of(s, k, names);
		for (int i = 0; i < n && ok; i++) {
			char file[1400], hex[65];
			snprintf(file, sizeof file, "%s/%s", dir, names[i]);
			if (hash_file(file, hex) != 0) {
				fpref_atomic_commit(&out, false, err, errlen);
				snprintf(err, errlen, "%s: %s (make the whole suite before its manifest)", file, strerror(errno));
				return -1;
			}
			ok = fprintf(out.f, "%s  %s\n", hex, names[i]) > 0;
		}
	}
	return fpref_atomic_commit(&out, ok, err, errlen);
}

/* A manifest's lines, read whole; each "HEX  PATH" split at the two spaces. */
struct entries {
	char **hash, **path;
	size_t n;
};

/* Append the entries of the manifest at path.  0; 1: no such file; -1: unreadable or malformed. */
static int entries_read(const char *path, struct entries *e, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f && errno != ENOENT)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	if (!f)
		return errno == ENOENT ? 1 : -1;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int status = 0;
	while (status == 0 && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		char **h = realloc(e->hash, (e->n + 1) * sizeof *h), **p = h ? realloc(e->path, (e->n + 1) * sizeof *p) : NULL;
		if (h)
			e->hash = h;
		if (p)
			e->path = p;
		if (!h || !p || strlen(line) < 67 || strspn(line, "0123456789abcdef") != 64 || strncmp(line + 64, "  ", 2)) {
			snprintf(err, errlen, "%s:%zu: not a manifest line ('SHA256  PATH')", path, lineno);
			status = -1;
			break;
		}
		e->hash[e->n] = strndup(line, 64);
		e->path[e->n] = strdup(line + 66);
		if (!e->hash[e->n] || !e->path[e->n])
			status = -1;
		e->n++;
	}
	free(line);
	fclose(f);
	return status;
}

static void entries_free(struct entries *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->hash[i]);
		free(e->path[i]);
	}
	free(e->hash);
	free(e->path);
	memset(e, 0, sizeof *e);
}

static const char *entries_find(const struct entries *e, const char *path)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->path[i] && strcmp(e->path[i], path) == 0)
			return e->hash[i];
	return NULL;
}

/* N of the shard manifests in dir: the one N they all name, or 0 with a message. */
static unsigned shard_count(const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	unsigned count = 0;
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return 0;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		unsigned i, n;
		char tail;
		if (sscanf(e->d_name, "MANIFEST.shard-%u-of-%u%c", &i, &n, &tail) != 2 || n == 0 || i >= n)
			continue;
		if (count && n != count) {
			snprintf(err, errlen, "%s: shard manifests of %u and of %u shards: remove the stale ones", dir, count, n);
			count = 0;
			break;
		}
		count = n;
	}
	closedir(d);
	if (count == 0 && !err[0])
		snprintf(err, errlen, "%s: no MANIFEST.shard-I-of-N (run gen --shard I/N first)", dir);
	return count;
}

int fpref_golden_write_manifest(const struct fpref_golden_suite *s, const char *dir, unsigned index, unsigned count,
				char *err, size_t errlen)
{
	sigset_t before;
	hold_signals(&before);
	int status = write_entries(s, dir, index, count, err, errlen);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	return status;
}

static int merge(const struct fpref_golden_suite *s, const char *dir, char *err, size_t errlen)
{
	err[0] = '\0';
	unsigned count = shard_count(dir, err, errlen);
	if (count == 0)
		return -1;
	struct entries all = { 0 };
	int status = 0;
	char path[1024];
	for (unsigned i = 0; i < count && status == 0; i++) {
		manifest_name(dir, i, count, path, sizeof path);
		int r = entries_read(path, &all, err, errlen);
		if (r == 1)
			snprintf(err, errlen, "%s: missing (shard %u/%u not run, or not finished)", path, i, count);
		status = r == 0 ? 0 : -1;
	}
	struct fpref_atomic out = { 0 };
	manifest_name(dir, 0, 1, path, sizeof path);
	if (status == 0 && fpref_atomic_open(&out, path, err, errlen) != 0)
		status = -1;
	bool ok = status == 0;
	for (size_t k = 0; k < s->njobs && ok; k++) {
		char names[4][300];
		int n = entries_of(s, k, names);
		for (int i = 0; i < n && ok; i++) {
			const char *hex = entries_find(&all, names[i]);
			if (!hex) {
				snprintf(err, errlen, "%s: not in %s/MANIFEST.shard-%zu-of-%u (that shard incomplete, or another suite)",
					 names[i], dir, k % count, count);
				status = -1;
				ok = false;
				break;
			}
			ok = fprintf(out.f, "%s  %s\n", hex, names[i]) > 0;
		}
	}
	if (out.f) {
		char msg[256];
		if (fpref_atomic_commit(&out, ok, msg, sizeof msg) != 0 && status == 0) {
			snprintf(err, errlen, "%s", msg);
			status = -1;
		}
	}
	entries_free(&all);
	return status;
}

int fpref_golden_merge_manifests(const struct fpref_golden_suite *s, const char *dir, char *err, size_t errlen)
{
	sigset_t before;
	hold_signals(&before);
	int status = merge(s, dir, err, errlen);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	return status;
}

static int list_add(struct fpref_golden_list *l, const char *rel)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		char **more = realloc(l->paths, cap * sizeof *more);
		if (!more)
			return -1;
		l->paths = more;
		l->cap = cap;
	}
	l->paths[l->n] = strdup(rel);
	return l->paths[l->n++] ? 0 : -1;
}

static int walk(const char *dir, const char *rel, struct fpref_golden_list *l, int depth)
{
	char here[4096];
	snprintf(here, sizeof here, "%s%s%s", dir, rel[0] ? "/" : "", rel);
	DIR *d = opendir(here);
	if (!d || depth > 16) {
		if (d)
			closedir(d);
		return -1;
	}
	int status = 0;
	struct dirent *e;
	while (status == 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue; /* ".", "..", and unfinished temporaries */
		char child[4096], path[8200];
		snprintf(child, sizeof child, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
		snprintf(path, sizeof path, "%s/%s", dir, child);
		struct stat st;
		size_t len = strlen(e->d_name);
		if (lstat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			status = walk(dir, child, l, depth + 1);
		else if (S_ISREG(st.st_mode) && len > 4 && strcmp(e->d_name + len - 4, ".txt") == 0)
			status = list_add(l, child);
	}
	closedir(d);
	return status;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int fpref_golden_list_files(const char *dir, struct fpref_golden_list *l)
{
	memset(l, 0, sizeof *l);
	int status = walk(dir, "", l, 0);
	if (l->n)
		qsort(l->paths, l->n, sizeof *l->paths, by_name);
	return status;
}

void fpref_golden_list_free(struct fpref_golden_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	memset(l, 0, sizeof *l);
}

/* Every entry present with its checksum. */
static int check_entries(const char *dir, const struct entries *e, char *err, size_t errlen)
{
	for (size_t i = 0; i < e->n; i++) {
		char file[4200], hex[65];
		snprintf(file, sizeof file, "%s/%s", dir, e->path[i]);
		if (hash_file(file, hex) != 0) {
			snprintf(err, errlen, "%s: listed in MANIFEST but missing (%s)", file, strerror(errno));
			return -1;
		}
		if (strcmp(hex, e->hash[i]) != 0) {
			snprintf(err, errlen, "%s: changed since MANIFEST was written (sha256 %s, listed %s)", file, hex, e->hash[i]);
			return -1;
		}
	}
	return 0;
}

int fpref_golden_manifest_check(const char *dir, size_t *listed, char *err, size_t errlen)
{
	char path[1024];
	manifest_name(dir, 0, 1, path, sizeof path);
	struct entries e = { 0 };
	*listed = 0;
	int r = entries_read(path, &e, err, errlen);
	if (r != 0) {
		entries_free(&e);
		return r == 1 ? 1 : -1;
	}
	int status = check_entries(dir, &e, err, errlen);
	struct fpref_golden_list files = { 0 };
	if (status == 0 && fpref_golden_list_files(dir, &files) != 0) {
		snprintf(err, errlen, "%s: cannot list its files", dir);
		status = -1;
	}
	for (size_t i = 0; status == 0 && i < files.n; i++)
		if (!entries_find(&e, files.paths[i])) {
			snprintf(err, errlen, "%s/%s: a golden file that MANIFEST does not list", dir, files.paths[i]);
			status = -1;
		}
	fpref_golden_list_free(&files);
	*listed = e.n;
	entries_free(&e);
	return status;
}
