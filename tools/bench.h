/* What the files of fpref bench share: the timer and the median that every
 * row reports, the rows themselves (printed as they come, or gathered for
 * --json), the element rows (tools/bench_elements.c) and the CPFloat half
 * of --peers (tools/bench_cpfloat.c). */
#ifndef FPREF_TOOLS_BENCH_H
#define FPREF_TOOLS_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref.h"

/* This thread's CPU time in seconds. */
double bench_now(void);
/* The median of v[0..n) (sorts v). */
double bench_median(double *v, int n);

/* One row: a section ("elements", "gemm", "scaled gemm"), what was timed,
 * the emulator's rate (elements/s, MAC/s for the GEMM sections), the
 * oracle's or, in "scaled gemm", the unscaled GEMM's, bytes read and
 * written per element ("elements" only), and the code path that ran (the
 * GEMM sections: the model's blocks or the scales). */
struct bench_row {
	char section[16];
	char what[96];
	double rate, ref, bytes;
	char path[160];
};

/* The rows of one run: copy_rate is memcpy's bytes read and written per
 * second; the reference row is the first "elements" row (FP32 -> E4M3 rne),
 * every element row's ratio is to it. */
struct bench_report {
	bool json;
	const char *isa;  /* the element rows' instruction set (bench --isa), or NULL: the widest */
	const char *only; /* bench --only: the rows whose name holds it (and the reference row), or NULL: all */
	double copy_rate, reference;
	struct bench_row *rows;
	size_t n, cap;
	size_t chosen;      /* rows added that --only chose (the reference row not counted) */
	char header[160];   /* a GEMM section's header, printed before its first row ("" once printed) */
};

/* Whether the row named `what` of section is timed: every row without
 * --only; with it, the reference row (the first element row, before any is
 * added) and the rows whose name holds the text.  A caller names its row
 * before it times it. */
bool bench_wanted(const struct bench_report *r, const char *section, const char *what);

/* A GEMM section's header (text mode), printed with its first row: a
 * section --only leaves empty prints nothing. */
void bench_section(struct bench_report *r, const char *header);

/* Adds a row (text mode: prints it at once, in its section's columns).
 * 0, or -1 when memory ran out. */
int bench_report_add(struct bench_report *r, const struct bench_row *row);

/* FP32 values spread over target's range (mostly in it, some beyond max,
 * some tiny), the same on every run. */
void bench_fill_fp32(uint32_t *x, size_t n, const struct fpref_format *target);

/* The element rows (conversions, arithmetic) on n elements; 0 or -1. */
int bench_elements(size_t n, long repeats, struct bench_report *r);

/* The quantisation rows (tools/bench_quantize.c) on about n elements; 0 or -1. */
int bench_quantize(size_t n, long repeats, struct bench_report *r);

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
