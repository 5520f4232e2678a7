/* fpref — mutants: realistic kernel bugs as named variants of a correct
 * conversion, operation or dot product, run by the emulator, so that a
 * golden suite can be judged by the bugs it exposes (the kill matrix).
 * docs/mutants.md describes each family. */
#ifndef FPREF_MUTANTS_H
#define FPREF_MUTANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_golden.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a mutant changes.  A mutant is a row: a mutation and its parameter. */
enum fpref_mutation {
	FPREF_MUT_ROUNDING,        /* another rounding mode (param) where the job rounds to nearest, or (replace_rtz) toward zero */
	FPREF_MUT_VIA,             /* rounded through the format `via` first (double rounding) */
	FPREF_MUT_VIA_WIDE_RANGE,  /* rounded at the target's precision with an unbounded exponent, then into the target */
	FPREF_MUT_FTZ,             /* subnormal results flushed to zero */
	FPREF_MUT_DAZ,             /* subnormal inputs read as zero */
	FPREF_MUT_SAT,             /* overflow clamps to max finite where the job says ieee */
	FPREF_MUT_IEEE,            /* overflow to inf/NaN where the job saturates */
	FPREF_MUT_OVERFLOW_ABOVE_MAX, /* every value above max finite overflows (no rounding down to max) */
	FPREF_MUT_OVERFLOW_PAST_TIE,  /* values from the overflow tie up to max + 1 ulp give max finite */
	FPREF_MUT_OVERFLOW_NAN,    /* an overflow gives NaN instead of inf */
	FPREF_MUT_NAN_SIGN,        /* a NaN result with its sign bit cleared (param 0) or set (param 1) */
	FPREF_MUT_NEG_ZERO,        /* a -0 result given as +0 */
	FPREF_MUT_BIAS,            /* the target's bias off by param */
	FPREF_MUT_SPECIALS,        /* the target encoded with FN and FNUZ swapped (bias adjusted as the pair's) */
	FPREF_MUT_FMA_UNFUSED,     /* fma as a rounded product, then a rounded sum */
	FPREF_MUT_FMA_VIA,         /* fma computed in `via`, then rounded to the format */
	FPREF_MUT_DIV_RECIPROCAL,  /* a / b as a * (1 / b), two roundings */
	FPREF_MUT_COMPARE_BITS,    /* lt, le, eq on the bit patterns as signed integers */
	FPREF_MUT_MINMAX_NUMBER,   /* min/max return the number when the other operand is a quiet NaN (minNum) */
	FPREF_MUT_MINMAX_ZERO,     /* min/max treat -0 and +0 as equal (the first operand wins) */
	FPREF_MUT_DOT_FRAC,        /* the block keeps param fraction bits (13 for 25-bit units, 25 for 13) */
	FPREF_MUT_DOT_BLOCK,       /* blocks of param/2 (param 1) or 2 n (param 2) products */
	FPREF_MUT_DOT_FINAL,       /* the block's rounding flipped: rne for rtz, rtz for rne */
	FPREF_MUT_DOT_C_LAST,      /* C added after the products by one rounded addition, not inside the first block */
	FPREF_MUT_DOT_ZERO_SIGN,   /* the sign of an exact zero flipped between IEEE's and +0 */
	FPREF_MUT_DOT_NO_FLOOR,    /* no floor under the alignment exponent */
	FPREF_MUT_DOT_EXACT,       /* no truncation in the block: the exact sum, rounded once */
	FPREF_MUT_DOT_INTERLEAVE,  /* the lowered path without the k mod 4 lane interleave of sm_90 */
	FPREF_MUT_DOT_NATIVE,      /* the lowered path taken as the native FP8 unit */
	FPREF_MUT_DOT_B_AS_A,      /* B's patterns read in A's format (A and B of two formats) */
};

struct fpref_mutant {
	const char *name;     /* "double-round-f16" */
	const char *family;   /* docs/mutants.md's section: "double rounding" ... */
	const char *bug;      /* the kernel bug in one line */
	enum fpref_mutation how;
	int param;
	const char *via;      /* FPREF_MUT_VIA, FPREF_MUT_FMA_VIA: the intermediate format */
};

size_t fpref_golden_mutant_count(void);
const struct fpref_mutant *fpref_golden_mutant_at(size_t i);
const struct fpref_mutant *fpref_golden_mutant_find(const char *name);

/* Whether the mutant is a bug of this job at all: it changes some result of
 * the job's input space (decided from the formats, op, environment and
 * model, not from any golden file). */
bool fpref_golden_mutant_applies(const struct fpref_mutant *m, const struct fpref_golden_job *j);

/* The result the mutated kernel gives for one input vector of the job (the
 * inputs as a golden line holds them: a [b [c]], or a_1..a_K b_1..b_K c).
 * Bits only: kernels raise no flags.  0, or -1 when it does not apply. */
int fpref_golden_mutant_result(const struct fpref_mutant *m, const struct fpref_golden_job *j, const uint64_t *in,
			uint64_t *result);

/* The bar a suite is held to: every applicable mutant exposed by this
 * many distinct input vectors of every file, or by every input of the whole space that
 * exposes it where fewer do. */
#define FPREF_MUTANT_BAR 8

/* One cell of the kill matrix: how many vectors of a file expose a
 * mutant (the mutated result differs from the golden one), and the first. */
struct fpref_kill {
	const struct fpref_mutant *mutant;
	unsigned long exposed;  /* vectors */
	unsigned long distinct; /* distinct inputs among them, counted up to FPREF_MUTANT_BAR */
	uint64_t seen[FPREF_MUTANT_BAR];
	size_t first_line; /* 1-based body line, 0 when none */
	/* How many inputs of the job's whole input space expose it, where that
	 * is known (the space swept: a source of up to 24 bits, pairs of formats
	 * of up to 12, triples of up to 8), else ULONG_MAX. */
	unsigned long possible;
};


/* Judge one job's vectors (a golden body, as fpref_golden_compute makes
 * it) against every applicable mutant: kills[0..*nkills) in catalogue
 * order, malloc'ed.  A mutant exposed by fewer than FPREF_MUTANT_BAR
 * vectors is run over the whole input space where that is small: one that
 * no input exposes is left out as equivalent (it changes no result of this
 * job).  0, or -1 with a message. */
int fpref_golden_mutants_judge(const struct fpref_golden_job *j, const char *body, struct fpref_kill **kills, size_t *nkills,
			char *err, size_t errlen);

/* The kill matrix of a whole suite: every job's vectors computed (both
 * engines, as fpref gen makes them) and judged, on `threads` threads.
 * files[0..s->njobs) in the suite's order.  0, or -1 with a message. */
struct fpref_kill_file {
	const struct fpref_golden_job *job;
	unsigned long vectors;
	struct fpref_kill *kills;
	size_t nkills;
};
int fpref_golden_mutants_suite(const struct fpref_golden_suite *s, unsigned threads, struct fpref_kill_file **files,
			char *err, size_t errlen);
void fpref_golden_kill_files_free(struct fpref_kill_file *files, size_t n);
/* Whether a cell meets the bar: exposed by FPREF_MUTANT_BAR vectors, or by
 * every input that can expose it. */
bool fpref_golden_kill_caught(const struct fpref_kill *k);

#ifdef __cplusplus
}
#endif
#endif
