/* Helpers shared by the Check suites. */
#ifndef FPREF_TESTUTIL_H
#define FPREF_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fpref.h"

/* Check's ck_assert_msg (and every ck_assert_* built on it) records the
 * place of each assertion that passes, a write to a temporary file, so
 * that a test that crashes can name the last one it reached.  The suites
 * compare millions of elements one assertion each, and those writes cost
 * more than the comparisons (most of check_formats' time; far more under
 * the sanitizers).  Here a passing assertion costs its comparison alone;
 * a failing one reports its place and message as before, and a crash is
 * placed by the test's name (and the sanitizers' stack trace). */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...) \
	((expr) ? (void)0 : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ##__VA_ARGS__))

static inline struct fpref_format test_format(const char *name)
{
	struct fpref_format f;
	char err[512];
	if (fpref_format_parse(name, &f, err, sizeof err) != 0)
		ck_abort_msg("format %s: %s", name, err);
	return f;
}

/* An environment under test, with the random word stochastic rounding uses. */
struct env_case {
	struct fpref_env env;
	uint64_t R;
};

/* Shards for the long sweeps of make check-exhaustive: FPREF_SHARD=i/N
 * runs the i-th of N disjoint slices (0 <= i < N); their union is the
 * whole sweep.  Unset: one shard holding everything. */
struct test_shard {
	unsigned long index, count;
};

static inline struct test_shard test_shard_from_env(void)
{
	struct test_shard s = { 0, 1 };
	const char *v = getenv("FPREF_SHARD");
	if (v && (sscanf(v, "%lu/%lu", &s.index, &s.count) != 2 || s.count == 0 || s.index >= s.count))
		ck_abort_msg("FPREF_SHARD must be i/N with 0 <= i < N, not '%s'", v);
	return s;
}

static inline bool test_shard_owns(struct test_shard s, unsigned long long k)
{
	return k % s.count == s.index;
}

/* FPREF_TEST_SAMPLE=reduced (set by tools/check for its sanitizer pass,
 * where a case costs some ten times what it costs at -O2): the long sweeps
 * compare a seeded sample of their cases, one in TEST_SAMPLE_STRIDE, picked
 * by a hash of the case's index so that the sample spreads over formats,
 * operands and environments alike and is the same on every run.  Unset (or
 * "full"), every case is compared: make check loses nothing. */
#define TEST_SAMPLE_STRIDE 16u

static inline unsigned test_sample_stride(void)
{
	const char *v = getenv("FPREF_TEST_SAMPLE");
	if (!v || strcmp(v, "full") == 0)
		return 1;
	if (strcmp(v, "reduced") != 0)
		ck_abort_msg("FPREF_TEST_SAMPLE must be reduced or full, not '%s'", v);
	return TEST_SAMPLE_STRIDE;
}

/* Whether case k is in the sample (always, with stride 1).  SplitMix64's
 * finaliser: neighbouring indices land far apart, so no stride-sized
 * pattern of the sweep (a format, a mode) is skipped as a whole. */
static inline bool test_sample_keep(unsigned stride, unsigned long long k)
{
	if (stride <= 1)
		return true;
	uint64_t z = (uint64_t)k + UINT64_C(0x9e3779b97f4a7c15);
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return (z ^ (z >> 31)) % stride == 0;
}

/* Run a suite and return the process exit status. */
static inline int test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
