/* fpref — diagnosis: which bug of the mutant catalogue
 * (fpref_golden_mutants.h) a kernel's wrong results are, found by running
 * every applicable mutant on the golden file's inputs and asking which
 * reproduces the kernel's results: every mismatch and nothing else, or
 * how many of them (docs/diagnose.md). */
#ifndef FPREF_GOLDEN_DIAGNOSE_H
#define FPREF_GOLDEN_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "fpref_golden.h"
#include "fpref_golden_mutants.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One mutant against the kernel's results.  A mismatch is a line whose
 * result bits differ from the golden's (flags are not compared: mutants
 * give bits only). */
struct fpref_diagnosis {
	const struct fpref_mutant *mutant;
	size_t explains;    /* mismatches where the mutant gives the kernel's bits */
	size_t contradicts; /* lines where the kernel gives the golden bits and the mutant does not */
	size_t mismatches;  /* the kernel's mismatches (the same in every row) */
};

/* The mutant reproduces every result bit for bit. */
bool fpref_golden_diagnosis_exact(const struct fpref_diagnosis *d);

#define FPREF_DIAGNOSE_COVER 3 /* the most bugs a cover names */

struct fpref_diagnosis_report {
	size_t lines, mismatches;
	size_t applicable;               /* mutants run: the catalogue's that apply to the job */
	struct fpref_diagnosis *rows;    /* those explaining a mismatch, best first: explains - contradicts,
					  * then explains, then the catalogue's order */
	size_t nrows;
	/* Greedy set cover of the mismatches, for a kernel with more than one
	 * bug: the best row, then the mutant explaining most of the mismatches
	 * still unexplained (less its contradictions), while one gains; each
	 * entry's explains counts the mismatches it adds.  Empty when no row
	 * explains a mismatch. */
	struct fpref_diagnosis cover[FPREF_DIAGNOSE_COVER];
	size_t ncover, covered;          /* covered: the mismatches the cover explains */
};

/* Run every applicable mutant of the catalogue on the golden file's inputs
 * (on `threads` threads: lines split among them) and rank the mutants by
 * how well they explain results r.  0, or -1 with a message (a line that
 * does not parse, no memory). */
int fpref_golden_diagnose(const struct fpref_golden_file *g, const struct fpref_golden_job *j,
			  const struct fpref_golden_results *r, unsigned threads, struct fpref_diagnosis_report *rep,
			  char *err, size_t errlen);
void fpref_golden_diagnosis_free(struct fpref_diagnosis_report *rep);

#ifdef __cplusplus
}
#endif
#endif
