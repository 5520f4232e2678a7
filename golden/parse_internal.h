/* What golden/'s parsing layer (suite.c, lines.c) gives the files above
 * it beyond the public headers: a body line's tokens read with the flags
 * optional (results files), and a job's arity.  Internal: not installed. */
#ifndef FPREF_GOLDEN_PARSE_INTERNAL_H
#define FPREF_GOLDEN_PARSE_INTERNAL_H

#include <stddef.h>

#include "fpref_golden.h"

/* Parse the tokens of a line (lines.c): `need_flags` 0: no flags, 1: flags
 * required, -1: optional. */
int fpref_golden_parse_tokens(const struct fpref_golden_job *j, const char *line, struct fpref_golden_line *l,
			      int need_flags, char *err, size_t errlen);

/* The words a suite line may hold: a case line's terms one by one (K of
 * 64 FP4 products, a and b apart, with c and its label and notes). */
#define FPREF_GOLDEN_CASE_WORDS 192

/* One "case LABEL WORD... [| NOTES]" line (w: the words after "case")
 * appended to j's cases (suite_cases.c): 0, or -1 with a message. */
int fpref_golden_suite_case(struct fpref_golden_job *j, char **w, int n, char *err, size_t errlen);

static inline unsigned job_arity(const struct fpref_golden_job *j)
{
	return j->kind == FPREF_GOLDEN_OP ? (unsigned)fpref_op_arity(j->op) : 1;
}

#endif
