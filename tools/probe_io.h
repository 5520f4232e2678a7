/* fpref probe infer: reading measured cases, from a golden dot file and
 * the results judged against it, or from plain dot lines. */
#ifndef FPREF_PROBE_IO_H
#define FPREF_PROBE_IO_H

#include "cli.h"

struct probe_cases {
	struct fpref_format in, in_b, out; /* A's, B's (in's for one format), c's and d's */
	bool have_formats; /* set by the caller from --in-format and --out-format, or by the file */
	size_t K, count, cap;
	uint64_t *rows, *d;
};

/* Each 0, or a message and an exit status.  Formats given by the caller
 * must be the file's own ('# formats' line, golden header): results
 * measured for other formats match no model, and the search would run
 * for nothing. */
int probe_cases_from_golden(const char *golden, const char *results, struct probe_cases *c);
int probe_cases_from_lines(const char *path, struct probe_cases *c);
void probe_cases_free(struct probe_cases *c);

#endif
