/* .npy reading and writing: the magic, a version, a header length, a
 * Python dict literal with descr, fortran_order and shape, then the data. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fpref_formats_file.h"
#include "fpref_formats_npy.h"

static const char magic[6] = { '\x93', 'N', 'U', 'M', 'P', 'Y' };

/* The value text after 'key': in the header dict, or NULL. */
static const char *dict_value(const char *header, const char *key)
{
	char quoted[32];
	const char *p = NULL;
	for (int q = 0; q < 2 && !p; q++) {
		snprintf(quoted, sizeof quoted, q ? "\"%s\"" : "'%s'", key);
		p = strstr(header, quoted);
		if (p)
			p += strlen(quoted);
	}
	if (!p)
		return NULL;
	while (*p == ' ')
		p++;
	if (*p++ != ':')
		return NULL;
	while (*p == ' ')
		p++;
	return p;
}

static int fail(char *err, size_t errlen, const char *path, const char *what)
{
	snprintf(err, errlen, "%s: %s", path, what);
	return -1;
}

/* descr as a quoted string: a byte order, a type letter, a decimal item
 * size and the same closing quote.  Each character is looked at only after
 * the one before it was found not to end the header. */
static int parse_descr(const char *path, const char *d, struct fpref_npy *a, bool *big_endian, char *err,
		       size_t errlen)
{
	char quote = d[0];
	if (quote != '\'' && quote != '"')
		return fail(err, errlen, path, "structured dtypes are not supported (descr is not a string)");
	char order = d[1];
	if (order == '\0' || !strchr("<>|=", order) || !isalpha((unsigned char)d[2]))
		return fail(err, errlen, path, "unreadable descr");
	char kind = d[2];
	size_t bytes = 0;
	const char *p = d + 3;
	for (int digits = 0; isdigit((unsigned char)*p) && digits < 3; digits++)
		bytes = bytes * 10 + (size_t)(*p++ - '0');
	if (*p != quote || bytes == 0 || bytes > 16 || kind == 'O')
		return fail(err, errlen, path, "unsupported descr (fixed-size items of 1 to 16 bytes only)");
	a->kind = kind;
	a->item_bytes = bytes;
	*big_endian = order == '>' && bytes > 1;
	return 0;
}

/* shape as a tuple of decimals.  The product of its nonzero dimensions,
 * times 16 bytes an item at most, must fit a size_t: a zero dimension
 * elsewhere must not let a consumer multiply the others into an overflow. */
static int parse_shape(const char *path, const char *s, struct fpref_npy *a, char *err, size_t errlen)
{
	if (*s != '(')
		return fail(err, errlen, path, "unreadable shape");
	size_t nonzero = 1;
	a->ndim = 0;
	a->count = 1;
	for (s++;;) {
		while (*s == ' ' || *s == ',')
			s++;
		if (*s == ')')
			return 0;
		if (a->ndim == FPREF_NPY_MAX_DIMS)
			return fail(err, errlen, path, "more than 8 dimensions");
		if (!isdigit((unsigned char)*s)) /* strtoull would skip blanks and take a sign */
			return fail(err, errlen, path, "unreadable shape");
		char *end;
		errno = 0;
		unsigned long long n = strtoull(s, &end, 10);
		if (errno || n > SIZE_MAX / 16 || (n && nonzero > SIZE_MAX / 16 / n))
			return fail(err, errlen, path, "truncated (the shape claims more bytes than any file holds)");
		a->shape[a->ndim++] = (size_t)n;
		nonzero *= n ? (size_t)n : 1;
		a->count *= (size_t)n;
		s = end;
	}
}

static int parse_header(const char *path, const char *h, struct fpref_npy *a, bool *big_endian, char *err,
			size_t errlen)
{
	const char *d = dict_value(h, "descr"), *f = dict_value(h, "fortran_order"), *s = dict_value(h, "shape");
	if (!d || !f || !s)
		return fail(err, errlen, path, "the header lacks descr, fortran_order or shape");
	if (parse_descr(path, d, a, big_endian, err, errlen) != 0)
		return -1;
	if (strncmp(f, "False", 5) != 0)
		return fail(err, errlen, path,
			    "Fortran-order arrays are not supported (save np.ascontiguousarray(x) instead)");
	return parse_shape(path, s, a, err, errlen);
}

/* The bytes left after the header in a regular file, so that a huge shape
 * in a small file is refused before its buffer is allocated; -1 where the
 * size cannot be known (a pipe), and reading finds the truncation. */
static long long bytes_left(FILE *fp)
{
	struct stat st;
	long here = ftell(fp);
	if (here < 0 || fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	return (long long)st.st_size - here;
}

int fpref_npy_read(const char *path, struct fpref_npy *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof *a);
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	unsigned char pre[12];
	int r = -1;
	char *header = NULL;
	struct stat st;
	if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) { /* fopen takes a directory; fread then fails */
		fail(err, errlen, path, "is a directory");
		goto out;
	}
	if (fread(pre, 1, 8, fp) != 8 || memcmp(pre, magic, 6) != 0) {
		fail(err, errlen, path, "not a .npy file (no \\x93NUMPY magic)");
		goto out;
	}
	size_t len;
	if (pre[6] == 1) {
		if (fread(pre + 8, 1, 2, fp) != 2)
			goto truncated;
		len = pre[8] | (size_t)pre[9] << 8;
	} else if (pre[6] == 2 || pre[6] == 3) {
		if (fread(pre + 8, 1, 4, fp) != 4)
			goto truncated;
		len = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
	} else {
		fail(err, errlen, path, "unknown .npy format version");
		goto out;
	}
	if (len > 1 << 24) {
		fail(err, errlen, path, "header too long");
		goto out;
	}
	header = malloc(len + 1);
	if (!header || fread(header, 1, len, fp) != len)
		goto truncated;
	header[len] = '\0';
	bool big_endian;
	if (parse_header(path, header, a, &big_endian, err, errlen) != 0)
		goto out;
	size_t bytes = a->count * a->item_bytes;
	long long left = bytes_left(fp);
	if (left >= 0 && (unsigned long long)left < bytes)
		goto truncated;
	a->data = malloc(bytes ? bytes : 1);
	if (!a->data) {
		fail(err, errlen, path, "out of memory");
		goto out;
	}
	if (fread(a->data, 1, bytes, fp) != bytes)
		goto truncated;
	if (fgetc(fp) != EOF) {
		fail(err, errlen, path, "more data than the shape says");
		goto out;
	}
	for (size_t i = 0; big_endian && i < a->count; i++) {
		unsigned char *item = (unsigned char *)a->data + i * a->item_bytes;
		for (size_t j = 0; j < a->item_bytes / 2; j++) {
			unsigned char t = item[j];
			item[j] = item[a->item_bytes - 1 - j];
			item[a->item_bytes - 1 - j] = t;
		}
	}
	r = 0;
	goto out;
truncated:
	fail(err, errlen, path, "truncated (less data than the header says)");
out:
	free(header);
	fclose(fp);
	if (r != 0)
		fpref_npy_free(a);
	return r;
}

void fpref_npy_free(struct fpref_npy *a)
{
	free(a->data);
	a->data = NULL;
}

int fpref_npy_write(const char *path, const char *descr, const size_t *shape, int ndim, const void *data,
		    size_t item_bytes, char *err, size_t errlen)
{
	char dict[256];
	int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
	size_t count = 1;
	for (int i = 0; i < ndim; i++) {
		n += snprintf(dict + n, sizeof dict - (size_t)n, ndim == 1 ? "%zu," : i ? ", %zu" : "%zu", shape[i]);
		count *= shape[i];
	}
	n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
	/* pad with spaces so that the data starts on a multiple of 64 bytes */
	size_t total = 10 + (size_t)n + 1;
	size_t pad = (64 - total % 64) % 64;
	unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0 };
	size_t hlen = (size_t)n + pad + 1;
	pre[8] = (unsigned char)(hlen & 0xFF);
	pre[9] = (unsigned char)(hlen >> 8);
	struct fpref_atomic file = { 0 };
	if (fpref_atomic_open(&file, path, err, errlen) != 0)
		return -1;
	FILE *fp = file.f;
	bool ok = fwrite(pre, 1, 10, fp) == 10 && fwrite(dict, 1, (size_t)n, fp) == (size_t)n;
	for (size_t i = 0; ok && i < pad; i++)
		ok = fputc(' ', fp) != EOF;
	ok = ok && fputc('\n', fp) != EOF && fwrite(data, item_bytes, count, fp) == count;
	return fpref_atomic_commit(&file, ok, err, errlen);
}
