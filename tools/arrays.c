/* Arrays on the command line: converting, checking and saving patterns,
 * output paths checked before the work, progress on a terminal, and the
 * error report of a GEMM.  The numbers come from the library. */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

size_t cli_convert_values(const struct fpref_format *from, uint64_t *bits, size_t n, const struct fpref_format *to,
			  const struct fpref_env *env)
{
	struct fpref_env rne;
	fpref_env_default(&rne);
	size_t inexact = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned flags = 0;
		fpref_emu_convert(from, bits[i], to, env ? env : &rne, 0, &bits[i], &flags);
		inexact += (flags & FPREF_FLAG_INEXACT) != 0;
	}
	return inexact;
}

int cli_check_patterns(const char *cmd, const char *path, const struct fpref_format *f, const uint64_t *bits, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct fpref_unpacked u;
		if (fpref_decode(f, bits[i], &u) == FPREF_DECODE_INVALID) {
			cli_fail(cmd, "%s: element %zu (0x%llx) is not a pattern of %s", path, i, (unsigned long long)bits[i],
				 f->name);
			return -1;
		}
	}
	return 0;
}

/* The first of n values (patterns of from) that to does not hold exactly,
 * named as NAME[row,col] with its exact value: -1 after a message, or 0. */
static int refuse_inexact(const char *cmd, const char *path, const char *what, const struct fpref_format *from,
			  const uint64_t *bits, size_t n, size_t cols, const struct fpref_format *to, const char *to_round)
{
	struct fpref_env rne;
	fpref_env_default(&rne);
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned flags = 0;
		uint64_t r;
		fpref_emu_convert(from, bits[i], to, &rne, 0, &r, &flags);
		if ((flags & FPREF_FLAG_INEXACT) && !bad++)
			first = i;
	}
	if (!bad)
		return 0;
	struct fpref_unpacked u;
	fpref_decode(from, bits[first], &u);
	char *value = fpref_ref_unpacked_decimal(&u);
	int name = (int)strcspn(what, " "); /* "SA (the scales of A)" is SA[i,j] */
	char more[64] = "";
	if (bad > 1)
		snprintf(more, sizeof more, " (nor are %zu more)", bad - 1);
	cli_fail(cmd, "%s: %.*s[%zu,%zu] = %s is not a %s value%s: give %s values %s holds exactly, or its bit patterns%s%s",
		 path, name, what, cols ? first / cols : first, cols ? first % cols : 0, value ? value : "?", to->name, more,
		 from->name, to->name, to_round ? ", or " : "", to_round ? to_round : "");
	free(value);
	return -1;
}

int cli_load_matrix(const char *cmd, const char *path, const char *what, const struct fpref_format *f, size_t rows,
		    size_t cols, struct cli_matrix *m, size_t *inexact, const char *to_round)
{
	struct fpref_npy a;
	char err[512];
	m->bits = NULL;
	if (fpref_npy_read(path, &a, err, sizeof err) != 0) {
		cli_fail(cmd, "%s", err);
		return CLI_EXIT_USAGE;
	}
	const struct fpref_format *from = NULL;
	enum fpref_npy_items items = fpref_npy_item_format(&a, f, &from);
	/* float32 items of a float32 operand are its patterns already: a
	 * conversion would make every NaN the default one and lose the bits a
	 * kernel wrote (NVIDIA's 7FFFFFFF) */
	if (items == FPREF_NPY_VALUES && fpref_format_same(from, f))
		items = FPREF_NPY_PATTERNS;
	int status = 0;
	if (a.ndim != 2 || (rows && a.shape[0] != rows) || (cols && a.shape[1] != cols)) {
		cli_fail(cmd, "%s: %s must be a 2-D array%s", path, what, rows || cols ? " with matching dimensions" : "");
		status = CLI_EXIT_USAGE;
	} else if (a.count == 0) { /* an empty product has no error to report */
		cli_fail(cmd, "%s: %s is empty (%zu x %zu); %s needs at least one element", path, what, a.shape[0],
			 a.shape[1], cmd);
		status = CLI_EXIT_USAGE;
	} else if (items == FPREF_NPY_UNUSABLE) {
		cli_fail(cmd, "%s: items of kind '%c' and %zu bytes: expected float16/32/64 values, or %zu-byte bit patterns "
			 "of %s", path, a.kind, a.item_bytes, fpref_emu_element_bytes(f), f->name);
		status = CLI_EXIT_USAGE;
	} else if (!(m->bits = malloc(a.count * sizeof *m->bits))) {
		cli_fail(cmd, "out of memory");
		status = CLI_EXIT_FAIL;
	}
	for (size_t i = 0; !status && i < a.count; i++)
		m->bits[i] = fpref_npy_item(&a, i);
	size_t ncols = a.ndim == 2 ? a.shape[1] : 0;
	if (!status && items == FPREF_NPY_VALUES && !inexact &&
	    refuse_inexact(cmd, path, what, from, m->bits, a.count, ncols, f, to_round) != 0)
		status = CLI_EXIT_USAGE;
	size_t rounded = !status && items == FPREF_NPY_VALUES ? cli_convert_values(from, m->bits, a.count, f, NULL) : 0;
	if (!status && items == FPREF_NPY_PATTERNS && cli_check_patterns(cmd, path, f, m->bits, a.count) != 0)
		status = CLI_EXIT_USAGE;
	if (inexact)
		*inexact += rounded;
	m->rows = a.shape[0];
	m->cols = ncols;
	m->values = items == FPREF_NPY_VALUES;
	if (status) {
		free(m->bits);
		m->bits = NULL;
	}
	fpref_npy_free(&a);
	return status;
}

int cli_save_patterns(const char *cmd, const char *path, const struct fpref_format *f, const uint64_t *bits,
		      const size_t *shape, int ndim)
{
	size_t n = 1, bytes = fpref_emu_element_bytes(f);
	for (int d = 0; d < ndim; d++)
		n *= shape[d];
	unsigned char *packed = malloc(n * bytes + 1);
	char err[512];
	for (size_t i = 0; packed && i < n; i++)
		memcpy(packed + i * bytes, &bits[i], bytes); /* little-endian host */
	int status = 0;
	if (!packed || fpref_npy_write(path, fpref_npy_descr_of(f), shape, ndim, packed, bytes, err, sizeof err) != 0) {
		cli_fail(cmd, "%s", packed ? err : "out of memory");
		status = CLI_EXIT_FAIL;
	}
	free(packed);
	return status;
}

int cli_check_writable(const char *cmd, const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		cli_fail(cmd, "cannot write '%s': it is a folder", path);
		return CLI_EXIT_FAIL;
	}
	/* the file is written beside itself and renamed: its folder must take a new file */
	char *copy = strdup(path);
	if (!copy) {
		cli_fail(cmd, "out of memory");
		return CLI_EXIT_FAIL;
	}
	const char *dir = dirname(copy);
	/* try it: access(2) asks with the real user's rights and says yes to
	 * root where a read-only mount, an ACL or a full quota says no */
	char probe[4096];
	int n = snprintf(probe, sizeof probe, "%s/.fpref-write-XXXXXX", dir);
	int fd = n > 0 && (size_t)n < sizeof probe ? mkstemp(probe) : (errno = ENAMETOOLONG, -1);
	int why = errno;
	if (fd >= 0) {
		close(fd);
		unlink(probe);
	} else {
		cli_fail(cmd, "cannot write '%s': folder '%s': %s", path, dir, strerror(why));
	}
	free(copy);
	return fd >= 0 ? 0 : CLI_EXIT_FAIL;
}

void cli_progress(void *ctx, size_t done, size_t total)
{
	struct cli_progress *p = ctx;
	if (!p->wanted || !isatty(STDERR_FILENO))
		return;
	p->shown = true;
	fprintf(stderr, "\r%s %zu of %zu", p->what, done, total);
}

void cli_progress_timed(void *ctx, size_t done, size_t total)
{
	struct cli_progress_timed *p = ctx;
	bool tty = isatty(STDERR_FILENO);
	if (!p->base.wanted || (!tty && !p->forced))
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
	if (p->start == 0) { /* the rate is measured from here */
		p->start = now;
		p->at = done;
	} else if (done < total && now - p->last < (tty ? 0.2 : 1.0))
		return;
	p->last = now;
	p->base.shown = tty;
	fprintf(stderr, "%s%s %zu of %zu", tty ? "\r\033[K" : "", p->base.what, done, total);
	if (done > p->at && done < total) {
		double left = (now - p->start) / (double)(done - p->at) * (double)(total - done);
		fprintf(stderr, ", about %.0f s left", left < 1 ? 1 : left);
	}
	if (!tty)
		fputc('\n', stderr);
}

void cli_progress_done(struct cli_progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->shown = false;
}
