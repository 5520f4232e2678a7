/* A suite's "case" lines: one dot product written out term by term (a
 * cases:K job's inputs), as issue 37 writes its examples: a0=7C00 b0=3C00
 * c=0, the terms not named +0. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"

/* A hex pattern of f (any number of digits, none beyond its width), one
 * that decodes (no padding bits set): 0, or -1. */
static int pattern(const struct fpref_format *f, const char *text, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(text, &end, 16);
	int width = fpref_format_container_bits(f);
	struct fpref_unpacked u;
	if (!*text || *end || errno || *text == '-' || *text == '+' || (width < 64 && x >> width) ||
	    fpref_decode(f, (uint64_t)x, &u) != FPREF_DECODE_OK)
		return -1;
	*v = (uint64_t)x;
	return 0;
}

/* The index after a or b: "7", or "0..a7" (letter: the operand's) into
 * [*lo, *hi]; 0, or -1. */
static int span(const char *text, char letter, size_t K, size_t *lo, size_t *hi)
{
	char *end;
	errno = 0;
	unsigned long a = strtoul(text, &end, 10), b = a;
	if (end == text || *text == '-' || *text == '+')
		return -1;
	if (strncmp(end, "..", 2) == 0) {
		const char *rest = end + 2;
		if (*rest != letter)
			return -1;
		rest++;
		b = strtoul(rest, &end, 10);
		if (end == rest || *rest == '-' || *rest == '+')
			return -1;
	}
	if (*end || errno || a > b || b >= K)
		return -1;
	*lo = a;
	*hi = b;
	return 0;
}

int fpref_golden_suite_case(struct fpref_golden_job *j, char **w, int n, char *err, size_t errlen)
{
	size_t K = j->K, width = 2 * K + 1;
	if (n < 1 || strchr(w[0], '=') || strcmp(w[0], "|") == 0) {
		snprintf(err, errlen, "'case LABEL a0=HEX ... c=HEX': the label first");
		return -1;
	}
	uint64_t *more = realloc(j->case_in, (j->ncases + 1) * width * sizeof *more);
	if (!more) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	j->case_in = more;
	uint64_t *v = more + j->ncases * width;
	/* every term +0 until named; a term named twice is a typing slip */
	unsigned char *named = calloc(width, 1);
	if (!named) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t k = 0; k < width; k++)
		v[k] = fpref_format_zero_bits(k < K ? &j->in : k < 2 * K ? &j->in_b : &j->out, false);
	int status = 0;
	for (int i = 1; i < n && status == 0 && strcmp(w[i], "|") != 0; i++) {
		char *eq = strchr(w[i], '=');
		size_t lo = 2 * K, hi = lo; /* c */
		const struct fpref_format *f = &j->out;
		char name[32];
		snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - w[i]) : 0, w[i]);
		if (!eq || !eq[1])
			status = -1;
		else if ((w[i][0] == 'a' || w[i][0] == 'b') && span(name + 1, w[i][0], K, &lo, &hi) == 0) {
			f = w[i][0] == 'a' ? &j->in : &j->in_b;
			size_t at = w[i][0] == 'a' ? 0 : K;
			lo += at;
			hi += at;
		} else if (strcmp(name, "c") != 0)
			status = -1;
		if (status != 0) {
			snprintf(err, errlen, "case %s: '%s' is not aI=HEX, aI..aJ=HEX, bI=HEX, bI..bJ=HEX or c=HEX with "
					      "I <= J < %zu",
				 w[0], w[i], K);
			break;
		}
		uint64_t x;
		if (pattern(f, eq + 1, &x) != 0) {
			snprintf(err, errlen, "case %s: '%s': not a pattern of %s", w[0], w[i], f->name);
			status = -1;
			break;
		}
		for (size_t k = lo; k <= hi && status == 0; k++) {
			if (named[k]) {
				snprintf(err, errlen, "case %s: '%s' names a term named before", w[0], w[i]);
				status = -1;
			}
			named[k] = 1;
			v[k] = x;
		}
	}
	free(named);
	if (status == 0)
		j->ncases++;
	return status;
}
