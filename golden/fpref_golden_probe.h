/* fpref — probing a tensor core: dot-product inputs built to reveal a
 * unit's numerics (block size, fraction bits kept, rounding of the block
 * sum, the alignment floor, where C enters), in the way of Fasi, Higham,
 * Mikaitis and Pranesh (PeerJ Comput. Sci. 7:e330, 2021) and of the
 * Hopper FP8 studies; and the inverse: the models of
 * formats/fpref_formats_tc_model.h that reproduce measured outputs, found by
 * running the emulator over the model space. */
#ifndef FPREF_PROBE_H
#define FPREF_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_formats.h"
#include "fpref_formats_env.h"
#include "fpref_formats_tc_model.h"
#include "fpref_golden.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The probe inputs for K products of A of `in_a` and B of `in_b`
 * (patterns) and c of `out`: *count rows of 2K+1 patterns, a_1..a_K (in_a)
 * b_1..b_K (in_b) c, in a malloc'ed array.  Each product is split between
 * the two formats' ranges; one format twice gives the same rows as ever.
 * The families are deterministic; `seed` drives the random tail.  0, or
 * -1 (K out of 1..512, inputs the models cannot take, no memory). */
int fpref_golden_probe_inputs_pair(const struct fpref_format *in_a, const struct fpref_format *in_b,
				   const struct fpref_format *out, size_t K, uint64_t seed, uint64_t **rows, size_t *count);
/* The same with A and B of one format. */
int fpref_golden_probe_inputs(const struct fpref_format *in, const struct fpref_format *out, size_t K, uint64_t seed,
		       uint64_t **rows, size_t *count);

/* Measured cases: rows as above (K products each) and the results d. */
struct fpref_probe_data {
	struct fpref_format in, in_b, out; /* A's, B's (the same as in for one format: set it), c's and d's */
	size_t K, count;
	const uint64_t *rows; /* count x (2K+1) */
	const uint64_t *d;    /* count */
	/* Parameters already known (from results with the other output, which
	 * share the block and the fraction count): 0 to search them. */
	int block, frac;
	fpref_progress_fn progress; /* NULL: none; called as the search moves on */
	void *progress_ctx;
};

/* One class of generic models that reproduce every case: one fraction
 * count and rounding, a range of block sizes and of floors.  Blocks of K
 * or more products cannot be told apart by K-product cases (block_open);
 * floors below the least exponent any term can have act as no floor
 * (floor_none: "none, or any floor up to floor_lo - 1"). */
struct fpref_probe_class {
	int frac;
	enum fpref_rounding rounding;
	int block_lo, block_hi;
	bool block_open;
	bool floor_none;      /* no floor fits, and so does every floor up to none_up_to */
	int none_up_to;       /* the least term exponent: no floor at or below it ever acts */
	bool has_floor_range; /* floors floor_lo..floor_hi fit */
	int floor_lo, floor_hi;
	const struct fpref_tc_model *preset; /* a preset outside the generic space (a lowered path, or +0 zeros where no generic model fits), else NULL; rows that compute alike make one class */
};

/* A model that misses: its parameters and how many cases it gets wrong. */
struct fpref_probe_near {
	struct fpref_tc_model model;
	size_t misses;
};

#define FPREF_PROBE_NEAR 5

struct fpref_probe_report {
	struct fpref_probe_class *classes;
	size_t nclasses;
	size_t consistent;            /* generic models (and presets) that reproduce every case */
	size_t tried;                 /* models run */
	int floor_min, floor_max;     /* the floors searched (below floor_min: the same as none) */
	const struct fpref_tc_model *presets[16]; /* the preset rows that reproduce every case */
	size_t npresets;
	struct fpref_probe_near near[FPREF_PROBE_NEAR]; /* when no model fits: the nearest */
	size_t nnear;
	/* When no model fits: the classes that fit the cases with c = 0 alone
	 * (c_zero_cases of them).  A class here, and none above, says that C
	 * enters otherwise than aligned with the first block's products. */
	struct fpref_probe_class *c_zero_classes;
	size_t c_zero_nclasses, c_zero_cases;
};

/* Search blocks 1..min(K, 64), fractions 1..36, rtz and rne, floors from
 * the least term exponent the formats allow up to the largest in the data,
 * and the preset rows that take this (A, B) pair and output.  0 (see the report), or -1 with a
 * message.  Exactly one class: the unit's model is found. */
int fpref_golden_probe_infer(const struct fpref_probe_data *data, struct fpref_probe_report *r, char *err, size_t errlen);
void fpref_golden_probe_report_free(struct fpref_probe_report *r);

/* Measured cases read back (the data of fpref_probe_data): rows of 2K+1
 * patterns a_1..a_K b_1..b_K c and the results d, malloc'ed. */
struct fpref_probe_cases {
	struct fpref_format in, in_b, out;
	size_t K, count;
	uint64_t *rows, *d;
};
/* The cases of a golden dot file (a probe file, or any dot file) with the
 * results judged against it (a results file, as fpref verify reads it).
 * given, when not NULL, are the formats the caller was told (A's, B's,
 * c's and d's), which must be the file's.  0; -1 with a message (the
 * files or the formats); -2 (no memory). */
int fpref_golden_probe_read_golden(const char *golden, const char *results, const struct fpref_format *given,
				   struct fpref_probe_cases *c, char *err, size_t errlen);
void fpref_golden_probe_cases_free(struct fpref_probe_cases *c);

/* The report as fpref probe infer prints it (results: the name its first
 * line gives the cases, the results file's): malloc'ed text, or NULL (no
 * memory). */
char *fpref_golden_probe_report_text(const struct fpref_probe_report *r, const struct fpref_probe_data *d,
				     const char *results);
/* The input formats as golden headers name them: "A", or "A*B" for two. */
const char *fpref_golden_probe_inputs_name(const struct fpref_format *a, const struct fpref_format *b, char *buf,
					   size_t len);

/* Whether a model lies in a class (block and floor in its ranges, the
 * same fraction count and rounding, or the same preset). */
bool fpref_golden_probe_class_holds(const struct fpref_probe_class *c, const struct fpref_tc_model *m,
			     const struct fpref_format *out, size_t K);

/* The least exponent a term of a block can have for these formats (a
 * product of A's and B's least subnormals, each held at its format's least
 * exponent; c as FP32 holds it): a floor below it never acts. */
int fpref_golden_probe_term_floor(const struct fpref_format *in_a, const struct fpref_format *in_b,
				  const struct fpref_format *out);

#ifdef __cplusplus
}
#endif
#endif
