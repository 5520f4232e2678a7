/* fpref — diagnosis: which bug of the mutant catalogue
 * (fpref_golden_mutants.h) a kernel's wrong results are, found by running
 * every applicable mutant on the golden file's inputs and asking which
 * reproduces the kernel's results: every mismatch and nothing else, or
 * how many of them; for a GEMM, which variant of its accumulation model
 * gives the kernel's D (docs/diagnose.md). */
#ifndef FPREF_GOLDEN_DIAGNOSE_H
#define FPREF_GOLDEN_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fpref_golden.h"
#include "fpref_golden_gemm.h"
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

/* ---- GEMMs (golden/gemm_diagnose.c) ----
 * The model verify-gemm was given, varied one parameter at a time (more or
 * fewer fraction bits, another block size, the block's other rounding, no
 * floor, promotion missing or at another interval, C added last), and the
 * other instruction shapes' rows, the plain orders and the exact product,
 * each re-run on up to `sample` elements where the kernel's D differs from
 * the model's and up to `sample` where it agrees. */
struct fpref_gemm_candidate {
	char what[128];  /* "more fraction bits: 25 where the model keeps 13" */
	size_t explains; /* sampled differing elements where it gives the kernel's bits */
	size_t keeps;    /* sampled agreeing elements where it still does */
};
struct fpref_gemm_diagnosis {
	size_t mismatches, matches;                 /* in the whole of D */
	size_t sampled_mismatches, sampled_matches;
	struct fpref_gemm_candidate *rows;          /* those explaining one, the best fit first */
	size_t nrows;
};
/* A candidate fits when it explains every sampled mismatch and keeps every
 * sampled match.  0, or -1 with a message (block scales or quantised
 * inputs are not varied). */
int fpref_golden_gemm_diagnose(const struct fpref_gemm_problem *p, const uint64_t *kernel_D, size_t sample,
			       struct fpref_gemm_diagnosis *d, char *err, size_t errlen);
void fpref_golden_gemm_diagnosis_free(struct fpref_gemm_diagnosis *d);

/* golden/verify_text.c: the words of fpref verify, shared with the Python
 * package's str().  The names of fpref_golden_ulps_bucket's buckets. */
extern const char *const fpref_golden_ulps_bucket_labels[FPREF_VERIFY_BUCKETS];
/* One golden file's report (results NULL: the oracle; d NULL: no diagnosis). */
void fpref_golden_verify_print(FILE *out, const char *golden, const struct fpref_golden_file *g,
			       const struct fpref_format *f, const char *results, const struct fpref_verify_report *r,
			       const struct fpref_verify_options *o, const struct fpref_diagnosis_report *d);
/* A diagnosis in one line (a folder's): the exact mutant, or the best and
 * how far it goes; empty when nothing is to be said. */
void fpref_golden_diagnosis_headline(const struct fpref_diagnosis_report *d, char *buf, size_t len);
/* A folder's line for a file outside the tolerance (headline NULL or empty: none). */
void fpref_golden_verify_problem_print(FILE *out, const char *path, size_t cases, size_t outside, const char *headline);
/* A folder's first line when it has no MANIFEST, and its last line. */
void fpref_golden_verify_no_manifest_print(FILE *out, const char *golden);
void fpref_golden_verify_folder_print(FILE *out, const char *golden, size_t files, size_t vectors, size_t outside,
				      size_t failed_files, size_t bad_files, bool manifest, bool pass);

#ifdef __cplusplus
}
#endif
#endif
