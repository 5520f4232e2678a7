/* fpref bench --peers: CPFloat (Fasi and Mikaitis's C library that rounds
 * binary32 and binary64 arrays to a lower precision) beside libfpref, in
 * this process, on the very values libfpref converted (issue 20).
 *
 * CPFloat answers with a float that holds the lower-precision value, not a
 * code.  The agreement count encodes that float with libfpref's own
 * conversion and checks the code decodes back to the same float: a value
 * of the format encodes without rounding, and a float that is no value of
 * the format is a disagreement, never rounded into agreement.  (CPFloat
 * models IEEE-style formats, whose top binade is all finite: for
 * float8_e4m3fn it rounds to 480, where the OCP format keeps 0x7F for NaN
 * and stops at 448.) */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef HAVE_CPFLOAT
/* CPFloat's headers, not ours, under our warnings: -Wconversion and
 * -Wsign-conversion flag its integer masks by the hundred, -Wcomment a
 * commented-out block, and -Wcpp (clang: -W#warnings) its #warning that the
 * C library's rand() serves its stochastic modes, which round to nearest
 * never calls.  Silenced for this include only; the code below keeps them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wfloat-conversion"
#pragma GCC diagnostic ignored "-Wcomment"
#ifdef __clang__
#pragma GCC diagnostic ignored "-W#warnings"
#else
#pragma GCC diagnostic ignored "-Wcpp"
#endif
#include "cpfloat_binary32.h"
#pragma GCC diagnostic pop

const char *bench_cpfloat_where(void)
{
	return FPREF_CPFLOAT_WHERE;
}

/* CPFloat's options for `to` under env, from the format's row: precision
 * counts the implicit bit, emin is the exponent of the least normal and
 * emax that of the largest finite's binade (CPFloat's header), infinities
 * where the format has them (else CPFloat overflows to NaN).  What the
 * bench's profile does not ask (other modes, saturation, flushing) is
 * refused rather than half modelled. */
static int cpfloat_options(const struct fpref_format *to, const struct fpref_env *env, optstruct *o,
			   struct bench_cpfloat_row *row)
{
	if (env->rounding != FPREF_RNE || env->overflow != FPREF_OVERFLOW_IEEE || env->ftz || env->daz ||
	    !to->subnormals || !to->is_signed || !to->has_zero || to->integer || to->pad_bits) {
		snprintf(row->note, sizeof row->note,
			 "CPFloat not run on %s: the bench sets it for round to nearest even, IEEE overflow and "
			 "subnormals only",
			 to->name);
		return -1;
	}
	snprintf(o->format, sizeof o->format, "custom");
	o->precision = (cpfloat_precision_t)(to->man_bits + 1);
	o->emin = fpref_format_min_exponent(to);
	o->emax = fpref_format_max_exponent(to);
	o->explim = CPFLOAT_EXPRANGE_TARG;
	o->infinity = fpref_format_has_inf(to) ? CPFLOAT_INF_USE : CPFLOAT_INF_NO;
	o->round = CPFLOAT_RND_NE;
	o->saturation = CPFLOAT_SAT_NO;
	o->subnormal = CPFLOAT_SUBN_USE;
	o->flip = CPFLOAT_SOFTERR_NO;
	o->p = 0;
	if (cpfloat_validate_optstructf(o) > 0) { /* negative: warnings (an unknown format name, say) */
		snprintf(row->note, sizeof row->note, "CPFloat refused the options for %s (cpfloat_validate_optstructf %d)",
			 to->name, cpfloat_validate_optstructf(o));
		return -1;
	}
	return 0;
}

static bool fp32_is_nan(uint32_t x)
{
	return (x & 0x7FFFFFFFu) > 0x7F800000u;
}

/* The codes in `to` of the FP32 values y[0..n), and which of them are
 * values of `to`: y[i] is one where its code decodes to y[i] again (any
 * NaN to a NaN).  back (n FP32 values) is scratch.  The buffers are read
 * through memcpy, as CPFloat wrote floats into y.  Returns how many are
 * not values of `to`, or -1 where no converter could be made. */
static long encode_exact(const struct fpref_format *to, const struct fpref_env *env, const void *y, void *codes,
			 void *back, bool *exact, size_t n)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_env plain;
	fpref_env_default(&plain);
	struct fpref_emu_converter *enc = fpref_emu_converter_new(f32, to, env);
	struct fpref_emu_converter *dec = fpref_emu_converter_new(to, f32, &plain);
	long not_values = -1;
	if (enc && dec) {
		fpref_emu_convert_array(enc, y, codes, n, NULL, 0);
		fpref_emu_convert_array(dec, codes, back, n, NULL, 0);
		not_values = 0;
		for (size_t i = 0; i < n; i++) {
			uint32_t a, b;
			memcpy(&a, (const unsigned char *)y + 4 * i, 4);
			memcpy(&b, (const unsigned char *)back + 4 * i, 4);
			exact[i] = a == b || (fp32_is_nan(a) && fp32_is_nan(b));
			not_values += !exact[i];
		}
	}
	fpref_emu_converter_free(enc);
	fpref_emu_converter_free(dec);
	return not_values;
}

/* CPFloat's largest finite under o, where it is no value of `to`: said in
 * row->note (the format stops below the top of its top binade). */
static void note_largest(const struct fpref_format *to, const struct fpref_env *env, optstruct *o,
			 struct bench_cpfloat_row *row)
{
	float big = 0x1.fffffep127f, top = 0;
	o->saturation = CPFLOAT_SAT_USE; /* clamps to CPFloat's largest finite */
	cpfloatf(&top, &big, 1, o);
	o->saturation = CPFLOAT_SAT_NO;
	uint32_t back;
	uint64_t code = 0;
	bool exact = true;
	if (encode_exact(to, env, &top, &code, &back, &exact, 1) == 1)
		snprintf(row->note, sizeof row->note,
			 "CPFloat models IEEE-style formats: its largest finite, %g, is no %s value (the format's top "
			 "code is NaN); %ld results are no %s value",
			 (double)top, to->name, row->unrepresentable, to->name);
}

int bench_cpfloat(const struct fpref_format *to, const struct fpref_env *env, const uint32_t *in,
		  const void *fpref_out, size_t n, long repeats, struct bench_cpfloat_row *row)
{
	memset(row, 0, sizeof *row);
	size_t width = fpref_emu_element_bytes(to);
	float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
	unsigned char *codes = malloc(n * width);
	bool *exact = malloc(n * sizeof *exact);
	optstruct *o = init_optstruct();
	int rc = -1;
	if (!x || !y || !codes || !exact || !o)
		snprintf(row->note, sizeof row->note, "CPFloat not run: cannot allocate %zu elements", n);
	else if (cpfloat_options(to, env, o, row) == 0) {
		memcpy(x, in, n * sizeof *x); /* CPFloat reads floats; in holds their bits */
		double t[100] = { 0 };
		for (long k = 0; k < repeats; k++) {
			double t0 = bench_now();
			cpfloatf(y, x, n, o);
			t[k] = bench_now() - t0;
		}
		row->seconds = bench_median(t, (int)repeats);
		/* x is no longer needed: it takes the decoded values */
		row->unrepresentable = encode_exact(to, env, y, codes, x, exact, n);
		if (row->unrepresentable >= 0) {
			const unsigned char *want = fpref_out;
			row->n = (long)n;
			for (size_t i = 0; i < n; i++)
				row->same += exact[i] && memcmp(codes + i * width, want + i * width, width) == 0;
			if (row->unrepresentable)
				note_largest(to, env, o, row);
			rc = 0;
		} else
			snprintf(row->note, sizeof row->note, "CPFloat's results not compared: no converter for %s", to->name);
	}
	free_optstruct(o);
	free(x);
	free(y);
	free(codes);
	free(exact);
	return rc;
}
#else
const char *bench_cpfloat_where(void)
{
	return NULL;
}

int bench_cpfloat(const struct fpref_format *to, const struct fpref_env *env, const uint32_t *in,
		  const void *fpref_out, size_t n, long repeats, struct bench_cpfloat_row *row)
{
	(void)to, (void)env, (void)in, (void)fpref_out, (void)n, (void)repeats;
	memset(row, 0, sizeof *row);
	snprintf(row->note, sizeof row->note, "this fpref was built without CPFloat");
	return -1;
}
#endif
