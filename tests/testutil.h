/* Helpers shared by the Check suites. */
#ifndef FPREF_TESTUTIL_H
#define FPREF_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include "fpref.h"

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
