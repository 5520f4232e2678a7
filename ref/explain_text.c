/* The text of `fpref explain`: one rounding's trace from the oracle laid
 * out for a reader, written here so that the command and the Python
 * package's str() of an explanation print the same words. */
#include <stdlib.h>
#include <string.h>

#include "fpref_ref.h"

static void put_owned(FILE *out, char *s)
{
	fputs(s ? s : "?", out);
	free(s);
}

static void put_code_value(FILE *out, const struct fpref_format *f, uint64_t code)
{
	struct fpref_unpacked u;
	fpref_decode(f, code, &u);
	put_owned(out, fpref_ref_unpacked_decimal(&u));
}

void fpref_ref_put_int_range(FILE *out, const struct fpref_format *f)
{
	struct fpref_int_range r;
	if (fpref_format_int_range(f, &r) != 0)
		return;
	uint64_t mask = (UINT64_C(1) << r.bits) - 1;
	fprintf(out, "%s integer of %d bits, k %lld..%lld, value k", r.is_signed ? "two's complement" : "unsigned",
		r.bits, (long long)r.k_min, (long long)r.k_max);
	if (r.frac)
		fprintf(out, " * 2^-%d", r.frac);
	fputs(" (step ", out);
	put_code_value(out, f, 1);
	fputs("), range ", out);
	put_code_value(out, f, (uint64_t)r.k_min & mask);
	fputs("..", out);
	put_code_value(out, f, (uint64_t)r.k_max & mask);
	if (r.symmetric)
		fprintf(out, ", symmetric (the code of k = %lld is never produced)", (long long)(r.k_min - 1));
	else if (r.is_signed)
		fputs(", not symmetric", out);
}

const char *fpref_ref_rule_text(enum fpref_ref_rule r)
{
	switch (r) {
	case FPREF_RULE_EXACT: return "exact: the value is representable, nothing to choose";
	case FPREF_RULE_NEAREST: return "nearest: one neighbour is closer";
	case FPREF_RULE_TIE_EVEN: return "tie: exactly halfway, so the neighbour with the even last bit wins (rne)";
	case FPREF_RULE_TIE_AWAY: return "tie: exactly halfway, so the neighbour away from zero wins (rna)";
	case FPREF_RULE_TOWARD_ZERO: return "toward zero (rtz): the neighbour nearer zero";
	case FPREF_RULE_TOWARD_POS: return "toward +inf (rup): the upper neighbour";
	case FPREF_RULE_TOWARD_NEG: return "toward -inf (rdn): the lower neighbour";
	case FPREF_RULE_ODD: return "round to odd (rod): the neighbour whose last bit is 1";
	case FPREF_RULE_STOCHASTIC: return "stochastic (sr): away from zero iff T + R >= 2^r";
	case FPREF_RULE_SPECIAL: return "special input: no neighbours";
	}
	return "?";
}

const char *fpref_ref_outcome_text(enum fpref_ref_outcome o)
{
	switch (o) {
	case FPREF_OUTCOME_PLAIN: return NULL;
	case FPREF_OUTCOME_OVERFLOW_INF: return "overflow: the rounded value exceeds max finite, the mode goes to inf";
	case FPREF_OUTCOME_OVERFLOW_MAX: return "overflow: the mode rounds toward zero here, so max finite";
	case FPREF_OUTCOME_OVERFLOW_NAN: return "overflow: the mode goes to inf, the format has no inf, so NaN (use --sat to clamp)";
	case FPREF_OUTCOME_SATURATED: return "saturated: overflow=sat clamps to max finite";
	case FPREF_OUTCOME_OVERFLOW_NO_SPECIALS: return "overflow: no inf and no NaN in this format, so max finite";
	case FPREF_OUTCOME_FLUSHED: return "flushed: ftz turns a tiny result into zero";
	case FPREF_OUTCOME_ZERO_UNSIGNED: return "zero: the format has no -0, so +0";
	case FPREF_OUTCOME_NO_ZERO_NAN: return "the format has no zero: NaN, invalid (use --sat for the least value)";
	case FPREF_OUTCOME_NO_ZERO_MIN: return "the format has no zero: saturated to the least value";
	case FPREF_OUTCOME_NEGATIVE_UNSIGNED: return "negative value, unsigned format: invalid";
	case FPREF_OUTCOME_NEGATIVE_CLAMPED: return "negative value, unsigned format: saturated to the least value";
	case FPREF_OUTCOME_NAN: return "NaN stays NaN (the format's canonical NaN)";
	case FPREF_OUTCOME_NAN_NO_NAN: return "NaN, but the format has no NaN: +max finite, invalid";
	case FPREF_OUTCOME_INF: return "inf stays inf";
	case FPREF_OUTCOME_INF_NAN: return "inf, but the format has no inf: NaN, invalid (use --sat to clamp)";
	case FPREF_OUTCOME_INF_MAX: return "inf, but the format has neither inf nor NaN: max finite, invalid";
	case FPREF_OUTCOME_INF_SATURATED: return "inf saturated to max finite (overflow=sat)";
	case FPREF_OUTCOME_ZERO: return "zero stays zero";
	}
	return "?";
}

static void put_bits_fields(FILE *out, const struct fpref_format *f, uint64_t bits)
{
	unsigned sign;
	uint64_t e, m;
	char hex[32];
	fpref_fields(f, bits, &sign, &e, &m);
	fpref_format_hex(f, bits, hex, sizeof hex);
	if (f->integer) { /* the integer, not the float grid the rounding core sees */
		fprintf(out, "%s [k %lld]", hex, (long long)fpref_format_int_k(f, bits));
		return;
	}
	fprintf(out, "%s [", hex);
	if (f->is_signed)
		fprintf(out, "%u ", sign);
	for (int i = f->exp_bits - 1; i >= 0; i--)
		fputc('0' + (int)((e >> i) & 1), out);
	fputc(' ', out);
	for (int i = f->man_bits - 1; i >= 0; i--)
		fputc('0' + (int)((m >> i) & 1), out);
	fputc(']', out);
}

/* Exact decimals longer than this are shown as m x 2^e and a short decimal. */
#define READABLE_DIGITS 24

/* A neighbour: its value, and its bits when the format holds it. */
static void put_neighbour(FILE *out, const struct fpref_format *f, mpfr_srcptr x, bool held, uint64_t bits)
{
	put_owned(out, fpref_ref_readable(x, READABLE_DIGITS));
	if (held) {
		fputs(" = ", out);
		put_bits_fields(out, f, bits);
	} else {
		fputs(" (not in the format: beyond max finite, or a zero it lacks)", out);
	}
}

/* The spellings people meet elsewhere: the shortest decimal that reads back
 * as these bits, and the shortest for the same value as a float64 (what
 * Python and NumPy print after a cast to double). */
static void put_shortest(FILE *out, const struct fpref_format *f, uint64_t bits, mpfr_srcptr value)
{
	struct fpref_format f64 = *fpref_format_get(FPREF_FORMAT_FLOAT64);
	char *exact = fpref_ref_decimal(value);
	char *mine = fpref_ref_shortest(f, bits);
	char *as_double = fpref_ref_shortest_value(&f64, value);
	bool integer = mpfr_integer_p(value) && strlen(exact) <= 17;
	if (!integer && mine && exact && strcmp(mine, exact) != 0)
		fprintf(out, "  shortest   %s  (the shortest decimal that reads back as these bits)\n", mine);
	if (as_double && exact && strcmp(as_double, exact) != 0 && (!mine || strcmp(as_double, mine) != 0))
		fprintf(out, "  as float64 %s  (shortest repr of the same value as a double, as Python prints it)\n", as_double);
	free(exact);
	free(mine);
	free(as_double);
}

static void put_number(FILE *out, mpfr_srcptr x)
{
	mpfr_fprintf(out, "%+.6Rg", x); /* signed: the error's sign says which side of the exact value */
}

void fpref_ref_explain_print(FILE *out, const char *input, const struct fpref_format *from,
			     const struct fpref_ref_value *v, const struct fpref_format *f, const struct fpref_env *env,
			     const struct fpref_ref_trace *t, uint64_t bits, unsigned flags)
{
	char envtext[160], words[96];
	fpref_env_describe(env, envtext, sizeof envtext);
	fpref_flags_describe(flags, words, sizeof words);

	fprintf(out, "input        %s%s%s\n", input, from ? " as " : "", from ? from->name : "");
	if (v->inexact) {
		fprintf(out, "  exact      %s as written: no finite binary form, so the oracle holds it to %d bits,\n"
		       "             rounded to odd, which keeps every later rounding correct\n",
		       input, FPREF_REF_WORK_PREC);
	} else {
		fprintf(out, "  exact      ");
		put_owned(out, fpref_ref_readable(v->x, READABLE_DIGITS));
		fputc('\n', out);
	}
	if (f->integer) {
		fprintf(out, "format       %s: ", f->name);
		fpref_ref_put_int_range(out, f);
		fprintf(out, "; saturating, no NaN or inf\n");
	} else
		fprintf(out, "format       %s: %s%d exponent bits, %d mantissa bits, bias %d, specials %s%s\n", f->name,
		       f->is_signed ? "sign, " : "unsigned, ", f->exp_bits, f->man_bits, f->bias,
		       fpref_specials_name(f->specials), f->subnormals ? ", subnormals" : ", no subnormals");
	fprintf(out, "environment  %s\n", envtext);
	if (env->pre_scale && env->pre_scale_code == 255)
		fprintf(out, "  scale      E8M0 code 255 is NaN: the result is NaN whatever the value\n");
	else if (env->pre_scale)
		fprintf(out, "  scale      the value divided by 2^%d (E8M0 code %u) before rounding: the neighbours, the\n"
		       "             rule and the error below are the quotient's\n",
		       (int)env->pre_scale_code - 127, env->pre_scale_code);
	if (t->bracketed) {
		fprintf(out, "neighbours   ");
		put_neighbour(out, f, t->lo, t->lo_held, t->lo_bits);
		fprintf(out, "\n         and ");
		put_neighbour(out, f, t->hi, t->hi_held, t->hi_bits);
		fputc('\n', out);
	}
	fprintf(out, "rule         %s\n", fpref_ref_rule_text(t->rule));
	bool nearest = t->rule == FPREF_RULE_NEAREST || t->rule == FPREF_RULE_TIE_EVEN || t->rule == FPREF_RULE_TIE_AWAY;
	if (t->bracketed && nearest) {
		fprintf(out, "             midpoint ");
		put_owned(out, fpref_ref_readable(t->mid, READABLE_DIGITS));
		if (t->nearer)
			fprintf(out, ": the exact value lies %s it in magnitude, nearer %s\n", t->nearer < 0 ? "below" : "above",
			       t->nearer < 0 ? "the neighbour nearer zero (the first)" : "the neighbour farther from zero (the second)");
		else
			fprintf(out, ": the exact value is the midpoint itself\n");
	}
	if (t->rule == FPREF_RULE_STOCHASTIC) {
		gmp_fprintf(out, "             T = %Zd (first %u discarded bits), R = %llu, 2^r = 2^%u\n", t->sr_discarded,
			   t->sr_width, (unsigned long long)t->sr_random, t->sr_width);
		gmp_fprintf(out, "             P(away from zero) = T/2^r = %Zd/2^%u over uniform R; this R goes %s\n",
			   t->sr_discarded, t->sr_width, t->hi_held && bits == t->hi_bits ? "away from zero" : "toward zero");
	}
	const char *outcome = fpref_ref_outcome_text(t->outcome);
	if (outcome)
		fprintf(out, "             %s\n", outcome);
	if (t->tiny)
		fprintf(out, "             tiny: below the least normal (tininess %s rounding)\n",
		       env->tininess == FPREF_TININESS_BEFORE ? "before" : "after");
	fprintf(out, "result       ");
	put_bits_fields(out, f, bits);
	fputs(" = ", out);
	put_owned(out, fpref_ref_readable(t->result, READABLE_DIGITS));
	fputc('\n', out);
	if (mpfr_regular_p(t->result))
		put_shortest(out, f, bits, t->result);
	fprintf(out, "flags        %02X (%s)\n", flags, words);
	if (!mpfr_nan_p(t->err_abs)) {
		fprintf(out, "error        ");
		put_number(out, t->err_abs);
		fputs(" absolute", out);
		if (!mpfr_nan_p(t->err_rel)) {
			fputs(", ", out);
			put_number(out, t->err_rel);
			fputs(" relative", out);
		}
		if (!mpfr_nan_p(t->err_ulp)) {
			fputs(", ", out);
			put_number(out, t->err_ulp);
			fputs(" ulp", out);
		}
		fputs("  (result - exact; relative to |exact|)", out);
		fputc('\n', out);
	}
}
