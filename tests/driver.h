/* The test driver of the exactness suites (in the manner of MPFR's
 * tests/tgeneric.c): one list of formats, one list of environments, one
 * source of special operands, one compare-and-report routine, one way to
 * sample and shard.  check_emu (conversions), check_ops and check_ops_wide
 * (arithmetic) and check_ref (decimals) all sweep what this file lists, so
 * that a format or an environment added here is swept everywhere. */
#ifndef FPREF_TEST_DRIVER_H
#define FPREF_TEST_DRIVER_H

#include "testutil.h"

/* ---- formats: the catalogue, then custom rows exercising each option ---- */
size_t drv_format_count(void);
struct fpref_format drv_format(size_t i);

/* ---- environments ---- */
#define DRV_MAX_ENVS 288

/* Subsets of the one list (drv_envs), each a sweep's choice:
 * ALL: every mode (stochastic with eight random words of widths 4, 13 and
 *   64), every combination of overflow policy, ftz, daz and tininess, and
 *   the profiles' knobs;
 * OPS: ALL without the five stochastic words that aim at the thresholds
 *   of conversions (r = 4 with R = 0, 1, 8, 15; r = 64 with R = 2^63);
 * LIGHT: every mode under the default policies, each policy alone under
 *   rne and rup, all four together under rdn, and the knobs;
 * MODES: every mode of OPS under the default policies, no knobs;
 * ALL_MODES: every mode of ALL under the default policies, no knobs;
 * OPS_POLICIES: the rest of OPS that the structured sweeps add every 32nd
 *   case: every policy combination under rne and rup, and the knobs;
 * DECIMAL: check_ref's, the rows its model of rounding knows: every mode
 *   (stochastic with the words of width 4, which aim at the thresholds of
 *   its quarter points), every policy but daz (decimals have no
 *   subnormal input), no knobs.
 * The P3109 rows (StochasticB and C with every word of the operations and
 * of width 4; SatPropagate and SatNone under rne, rtz, rup, rdn, rod and
 * sr) are in ALL, OPS, LIGHT, OPS_POLICIES and DECIMAL, not in the two
 * MODES sets (the default policies); the sweeps keep a case under them
 * one time in DRV_P3109_STRIDE (drv_keep), so that they cost little. */
enum drv_envset {
	DRV_ENVS_ALL,
	DRV_ENVS_OPS,
	DRV_ENVS_LIGHT,
	DRV_ENVS_MODES,
	DRV_ENVS_ALL_MODES,
	DRV_ENVS_OPS_POLICIES,
	DRV_ENVS_DECIMAL,
};
size_t drv_envs(enum drv_envset set, struct env_case *out);

/* ---- operands ---- */
/* The special operands of f: golden/'s edge values (both zeros, both
 * infinities, the subnormal and normal extremes, one and its neighbours,
 * max finite) and its NaNs of eleven payloads, quiet and signaling, both
 * signs; DRV_MAX_SPECIALS at most. */
#define DRV_MAX_SPECIALS 128
size_t drv_specials(const struct fpref_format *f, uint64_t *out);

/* A seeded structured operand of f (zeros, infinities, NaNs, extremes,
 * subnormals, powers of two, runs of ones, random) and a partner tied to
 * a (equal, negated, a unit apart, scaled) to reach cancellation and ties. */
uint64_t drv_random(uint64_t *state);
uint64_t drv_structured(const struct fpref_format *f, uint64_t *state);
uint64_t drv_partner(const struct fpref_format *f, uint64_t a, uint64_t *state);

/* ---- sampling and sharding ---- */
/* FPREF_TEST_SAMPLE=reduced keeps one case in TEST_SAMPLE_STRIDE (a seeded
 * hash of the case's index); FPREF_SHARD=i/N keeps the chunks k with
 * k % N == i.  Every sweep of the driver's suites is split so: make check
 * runs the long suites as shards side by side (tests/check_*.shardN.sh), and
 * make check-exhaustive SHARD=i/N splits their sweeps the same way (check_emu,
 * check_ops, check_ops_wide; check_ref runs whole).  Sampling
 * and sharding are independent: a case is compared in shard i when its
 * chunk is i's and its index is in the sample. */
struct drv_sweep {
	unsigned stride;
	struct test_shard shard;
	bool exhaustive; /* FPREF_EXHAUSTIVE: make check-exhaustive */
};
struct drv_sweep drv_sweep_from_env(void);
bool drv_sampled(const struct drv_sweep *s, unsigned long long case_index);
/* drv_sampled for case_index under environment c: the P3109 rows keep one
 * case in DRV_P3109_STRIDE of those the sample keeps. */
#define DRV_P3109_STRIDE 4u
bool drv_keep(const struct drv_sweep *s, unsigned long long case_index, const struct env_case *c);
bool drv_owns(const struct drv_sweep *s, unsigned long long chunk);
/* Whether the shard owns case `index` of the part of a sweep that `key`
 * names (a test's format, operation, ...): the part's cases go to the
 * shards in turn by blocks of DRV_BLOCK, so that each shard gets its share
 * of every part, and a case's owner depends on nothing but the case. */
#define DRV_BLOCK 1024
bool drv_owns_case(const struct drv_sweep *s, unsigned long long key, unsigned long long index);

/* ---- compare and report ---- */
struct drv_stats {
	unsigned long long compared, mismatches;
	char first[512]; /* the first mismatch: inputs, format, environment, both answers */
};

/* One conversion of bits (from) to `to` under envs[0..n): the oracle reads
 * the source once per daz setting and rounds it under each environment. */
void drv_compare_convert(struct drv_stats *st, const struct fpref_format *from, uint64_t bits,
			 const struct fpref_format *to, const struct env_case *envs, size_t n);

/* One operation under envs[0..n): the oracle computes the unrounded result
 * once per (daz, rdn) class and rounds it under each environment.  Where
 * the answer is a NaN or the operation is invalid, the result is also
 * checked against the special-value rules of docs/rounding.md ("Arithmetic"),
 * written here apart from both engines: an invalid operation gives the
 * positive NaN, fma(0, inf, c) whatever c is; otherwise the first NaN
 * operand's sign. */
void drv_compare_op(struct drv_stats *st, enum fpref_op op, const struct fpref_format *f, const uint64_t *in,
		    const struct env_case *envs, size_t n);

/* Print the count on stdout (the suite's log) and fail with the first
 * mismatch when there was one. */
void drv_report(const struct drv_stats *st, const char *what, const char *format_name);

#endif
