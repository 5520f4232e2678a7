/* Helpers shared by the Check suites. */
#ifndef FPREF_TESTUTIL_H
#define FPREF_TESTUTIL_H

#include <check.h>
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
