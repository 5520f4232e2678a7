/* What the files of fpref bench share: the timer and the median that every
 * row reports, and the CPFloat half of --peers (tools/bench_cpfloat.c). */
#ifndef FPREF_TOOLS_BENCH_H
#define FPREF_TOOLS_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "fpref.h"

/* This thread's CPU time in seconds. */
double bench_now(void);
/* The median of v[0..n) (sorts v). */
double bench_median(double *v, int n);

/* Where this fpref's CPFloat headers came from (configure --with-cpfloat),
 * or NULL where it was built without CPFloat. */
const char *bench_cpfloat_where(void);

struct bench_cpfloat_row {
	double seconds;       /* the median of the timed runs */
	long same, n;         /* results that carry libfpref's code, of n */
	long unrepresentable; /* results that are no value of the format (counted in n - same) */
	char note[400];       /* what of the format CPFloat cannot model, or "" */
};

/* Times CPFloat's cpfloatf rounding the n FP32 values `in` to `to` under
 * env (thread CPU time, the median of `repeats` runs, as the libfpref rows)
 * and counts the results that carry the codes `fpref_out` libfpref gave.
 * 0; -1 where this fpref has no CPFloat, env asks what CPFloat does not
 * model (the reason in row->note), or memory ran out. */
int bench_cpfloat(const struct fpref_format *to, const struct fpref_env *env, const uint32_t *in,
		  const void *fpref_out, size_t n, long repeats, struct bench_cpfloat_row *row);

#endif
