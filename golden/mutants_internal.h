/* What the mutant catalogue (mutant_catalogue.c) shares with the code that
 * runs the mutants (mutants.c): the facts about formats and jobs that
 * decide both where a mutant applies and what it computes.  Internal: not
 * installed. */
#ifndef FPREF_GOLDEN_MUTANTS_INTERNAL_H
#define FPREF_GOLDEN_MUTANTS_INTERNAL_H

#include <stdbool.h>

#include "fpref_golden_mutants.h"

static inline bool catalogue_format(const char *name, struct fpref_format *f)
{
	char err[128];
	return fpref_format_parse(name, f, err, sizeof err) == 0;
}

/* Whether the job's results can be inexact (some input does not fit). */
bool fpref_golden_job_rounds(const struct fpref_golden_job *j);

/* The FN/FNUZ partner of a format: the same widths, the other specials, the
 * bias moved by one as between float8_e4m3fn and float8_e4m3fnuz. */
bool fpref_golden_specials_partner(const struct fpref_format *f, struct fpref_format *p);

/* The target's precision with one more exponent bit, biased so that the
 * target's subnormals are normal in it and its largest finite fits; false
 * where that cannot be. */
bool fpref_golden_wide_range(const struct fpref_format *f, struct fpref_format *w);

#endif
