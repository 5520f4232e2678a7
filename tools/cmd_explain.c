/* fpref explain: the teaching view of one rounding. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *rule_text(enum fpref_ref_rule r)
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

static const char *outcome_text(enum fpref_ref_outcome o)
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

static void put_bits_fields(const struct fpref_format *f, uint64_t bits)
{
	unsigned sign;
	uint64_t e, m;
	char hex[32];
	fpref_fields(f, bits, &sign, &e, &m);
	cli_hex(f, bits, hex, sizeof hex);
	if (f->integer) { /* the integer, not the float grid the rounding core sees */
		printf("%s [k %lld]", hex, (long long)fpref_format_int_k(f, bits));
		return;
	}
	printf("%s [", hex);
	if (f->is_signed)
		printf("%u ", sign);
	for (int i = f->exp_bits - 1; i >= 0; i--)
		putchar('0' + (int)((e >> i) & 1));
	putchar(' ');
	for (int i = f->man_bits - 1; i >= 0; i--)
		putchar('0' + (int)((m >> i) & 1));
	putchar(']');
}

/* Exact decimals longer than this are shown as m x 2^e and a short decimal. */
#define READABLE_DIGITS 24

/* A neighbour: its value, and its bits when the format holds it. */
static void put_neighbour(const struct fpref_format *f, mpfr_srcptr x, bool held, uint64_t bits)
{
	cli_put(stdout, fpref_ref_readable(x, READABLE_DIGITS));
	if (held) {
		fputs(" = ", stdout);
		put_bits_fields(f, bits);
	} else {
		fputs(" (not in the format: beyond max finite, or a zero it lacks)", stdout);
	}
}

/* The spellings people meet elsewhere: the shortest decimal that reads back
 * as these bits, and the shortest for the same value as a float64 (what
 * Python and NumPy print after a cast to double). */
static void put_shortest(const struct fpref_format *f, uint64_t bits, mpfr_srcptr value)
{
	struct fpref_format f64 = *fpref_format_get(FPREF_FORMAT_FLOAT64);
	char *exact = fpref_ref_decimal(value);
	char *mine = fpref_ref_shortest(f, bits);
	char *as_double = fpref_ref_shortest_value(&f64, value);
	bool integer = mpfr_integer_p(value) && strlen(exact) <= 17;
	if (!integer && mine && exact && strcmp(mine, exact) != 0)
		printf("  shortest   %s  (the shortest decimal that reads back as these bits)\n", mine);
	if (as_double && exact && strcmp(as_double, exact) != 0 && (!mine || strcmp(as_double, mine) != 0))
		printf("  as float64 %s  (shortest repr of the same value as a double, as Python prints it)\n", as_double);
	free(exact);
	free(mine);
	free(as_double);
}

static void put_number(mpfr_srcptr x)
{
	mpfr_printf("%+.6Rg", x); /* signed: the error's sign says which side of the exact value */
}

/* A number as a JSON string (exact decimal), or null. */
static void json_value(mpfr_srcptr x)
{
	if (mpfr_nan_p(x)) {
		printf("null");
		return;
	}
	char *d = fpref_ref_decimal(x);
	cli_json_string(d ? d : "");
	free(d);
}

static void json_bits(const struct fpref_format *f, bool held, uint64_t bits)
{
	char hex[32];
	cli_hex(f, bits, hex, sizeof hex);
	if (held)
		printf("\"%s\"", hex);
	else
		printf("null");
}

static void put_json(const struct cli_options *o, const struct fpref_ref_value *v, const struct fpref_ref_trace *t,
		     uint64_t bits, unsigned flags)
{
	/* the exact error values are decimals in strings: JSON numbers would round them */
	const struct fpref_format *f = &o->to;
	char envtext[160], words[96];
	fpref_env_describe(&o->env, envtext, sizeof envtext);
	fpref_flags_describe(flags, words, sizeof words);
	printf("{\"input\": ");
	cli_json_string(o->positional[0]);
	printf(", \"from\": %s%s%s, \"exact\": ", o->have_from ? "\"" : "", o->have_from ? o->from.name : "null",
	       o->have_from ? "\"" : "");
	if (v->inexact)
		printf("null");
	else
		json_value(v->x);
	printf(", \"to\": \"%s\", \"environment\": ", f->name);
	cli_json_string(envtext);
	if (t->bracketed) {
		printf(", \"nearer_zero\": {\"value\": ");
		json_value(t->lo);
		printf(", \"bits\": ");
		json_bits(f, t->lo_held, t->lo_bits);
		printf("}, \"farther_from_zero\": {\"value\": ");
		json_value(t->hi);
		printf(", \"bits\": ");
		json_bits(f, t->hi_held, t->hi_bits);
		printf("}, \"midpoint\": ");
		json_value(t->mid);
		printf(", \"exact_is_nearer\": \"%s\"", t->nearer < 0 ? "nearer_zero" : t->nearer > 0 ? "farther_from_zero" : "tie");
	}
	printf(", \"rule\": ");
	cli_json_string(rule_text(t->rule));
	if (t->rule == FPREF_RULE_STOCHASTIC) {
		gmp_printf(", \"sr\": {\"T\": \"%Zd\", \"R\": %llu, \"r\": %u}", t->sr_discarded,
			   (unsigned long long)t->sr_random, t->sr_width);
	}
	const char *out = outcome_text(t->outcome);
	printf(", \"outcome\": ");
	if (out)
		cli_json_string(out);
	else
		printf("null");
	char hex[32];
	cli_hex(f, bits, hex, sizeof hex);
	printf(", \"tiny\": %s, \"result\": {\"bits\": \"%s\", \"value\": ", t->tiny ? "true" : "false", hex);
	json_value(t->result);
	printf("}, \"flags\": %u, \"flag_words\": \"%s\", \"error\": {\"absolute\": ", flags, words);
	json_value(t->err_abs);
	printf(", \"relative\": ");
	json_value(t->err_rel);
	printf(", \"ulp\": ");
	json_value(t->err_ulp);
	printf("}, \"sign_convention\": \"result - exact, relative to |exact|: positive when the result is above\"}\n");
}

const struct cli_command cli_cmd_explain = {
	.name = "explain",
	.synopsis = "VALUE --to FMT [--from FMT] [ENV] [--json]",
	.summary = "How one value rounds to FMT: its exact value, the format's fields, the two neighbours, the rule\n"
		   "that picks one, the result, the flags and the error.",
	.details = "Errors are result - exact: absolute, relative to |exact|, and in ulps; positive means the result\n"
		   "lies above the exact value.  --round sr needs --sr-bits (the random bits, or a seed).\n",
	.groups = CLI_TO | CLI_FROM | CLI_ENV | CLI_SCALE | CLI_JSON,
	.max_positional = -1,
	.examples = { "fpref explain 464 --to e4m3", "fpref explain 3C01 --from f16 --to e4m3 --round rtz" },
	.run = cmd_explain,
};

int cmd_explain(int argc, char **argv)
{
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_explain, argc, argv, &o, NULL);
	if (r)
		return r;
	if (o.npositional != 1 || !o.have_to) {
		cli_fail(cli_cmd_explain.name, "needs one VALUE and --to FMT, e.g. fpref explain 464 --to e4m3");
		return CLI_EXIT_USAGE;
	}
	o.env = cli_target_env(&o, &o.to);
	if (o.env.rounding == FPREF_SR && !o.text.sr_bits) {
		cli_fail(cli_cmd_explain.name, "--round sr needs --sr-bits HEX, W:HEX or seed=N: the random bits R decide "
			 "the rounding, and explain shows how");
		return CLI_EXIT_USAGE;
	}
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	char err[512];
	int status = CLI_EXIT_OK;
	if (o.have_from) {
		uint64_t in;
		if (cli_parse_bits(&o.from, o.positional[0], &in, err, sizeof err) != 0)
			status = CLI_EXIT_USAGE;
		else
			fpref_ref_from_bits(&o.from, in, o.env.daz, &v);
	} else if (fpref_ref_parse(o.positional[0], &v, err, sizeof err) != 0) {
		status = CLI_EXIT_USAGE;
	}
	if (status != CLI_EXIT_OK) {
		cli_fail(cli_cmd_explain.name, "%s", err);
		fpref_ref_value_clear(&v);
		return status;
	}

	const struct fpref_format *f = &o.to;
	struct fpref_ref_trace t;
	fpref_ref_trace_init(&t);
	uint64_t bits;
	unsigned flags = 0;
	uint64_t R = fpref_env_sr_random(&o.env, 0);
	fpref_ref_convert_value(&v, f, &o.env, R, &bits, &flags, &t);

	if (o.json) {
		put_json(&o, &v, &t, bits, flags);
		fpref_ref_trace_clear(&t);
		fpref_ref_value_clear(&v);
		return status;
	}
	char envtext[160], words[96];
	fpref_env_describe(&o.env, envtext, sizeof envtext);
	fpref_flags_describe(flags, words, sizeof words);

	printf("input        %s%s%s\n", o.positional[0], o.have_from ? " as " : "", o.have_from ? o.from.name : "");
	if (v.inexact) {
		printf("  exact      %s as written: no finite binary form, so the oracle holds it to %d bits,\n"
		       "             rounded to odd, which keeps every later rounding correct\n",
		       o.positional[0], FPREF_REF_WORK_PREC);
	} else {
		printf("  exact      ");
		cli_put(stdout, fpref_ref_readable(v.x, READABLE_DIGITS));
		putchar('\n');
	}
	if (f->integer) {
		printf("format       %s: ", f->name);
		cli_put_int_range(stdout, f);
		printf("; saturating, no NaN or inf\n");
	} else
		printf("format       %s: %s%d exponent bits, %d mantissa bits, bias %d, specials %s%s\n", f->name,
		       f->is_signed ? "sign, " : "unsigned, ", f->exp_bits, f->man_bits, f->bias,
		       fpref_specials_name(f->specials), f->subnormals ? ", subnormals" : ", no subnormals");
	printf("environment  %s\n", envtext);
	if (o.env.pre_scale && o.env.pre_scale_code == 255)
		printf("  scale      E8M0 code 255 is NaN: the result is NaN whatever the value\n");
	else if (o.env.pre_scale)
		printf("  scale      the value divided by 2^%d (E8M0 code %u) before rounding: the neighbours, the\n"
		       "             rule and the error below are the quotient's\n",
		       (int)o.env.pre_scale_code - 127, o.env.pre_scale_code);
	if (t.bracketed) {
		printf("neighbours   ");
		put_neighbour(f, t.lo, t.lo_held, t.lo_bits);
		printf("\n         and ");
		put_neighbour(f, t.hi, t.hi_held, t.hi_bits);
		putchar('\n');
	}
	printf("rule         %s\n", rule_text(t.rule));
	bool nearest = t.rule == FPREF_RULE_NEAREST || t.rule == FPREF_RULE_TIE_EVEN || t.rule == FPREF_RULE_TIE_AWAY;
	if (t.bracketed && nearest) {
		printf("             midpoint ");
		cli_put(stdout, fpref_ref_readable(t.mid, READABLE_DIGITS));
		if (t.nearer)
			printf(": the exact value lies %s it in magnitude, nearer %s\n", t.nearer < 0 ? "below" : "above",
			       t.nearer < 0 ? "the neighbour nearer zero (the first)" : "the neighbour farther from zero (the second)");
		else
			printf(": the exact value is the midpoint itself\n");
	}
	if (t.rule == FPREF_RULE_STOCHASTIC) {
		gmp_printf("             T = %Zd (first %u discarded bits), R = %llu, 2^r = 2^%u\n", t.sr_discarded,
			   t.sr_width, (unsigned long long)t.sr_random, t.sr_width);
		gmp_printf("             P(away from zero) = T/2^r = %Zd/2^%u over uniform R; this R goes %s\n",
			   t.sr_discarded, t.sr_width, t.hi_held && bits == t.hi_bits ? "away from zero" : "toward zero");
	}
	const char *out = outcome_text(t.outcome);
	if (out)
		printf("             %s\n", out);
	if (t.tiny)
		printf("             tiny: below the least normal (tininess %s rounding)\n",
		       o.env.tininess == FPREF_TININESS_BEFORE ? "before" : "after");
	printf("result       ");
	put_bits_fields(f, bits);
	fputs(" = ", stdout);
	cli_put(stdout, fpref_ref_readable(t.result, READABLE_DIGITS));
	putchar('\n');
	if (mpfr_regular_p(t.result))
		put_shortest(f, bits, t.result);
	printf("flags        %02X (%s)\n", flags, words);
	if (!mpfr_nan_p(t.err_abs)) {
		printf("error        ");
		put_number(t.err_abs);
		fputs(" absolute", stdout);
		if (!mpfr_nan_p(t.err_rel)) {
			fputs(", ", stdout);
			put_number(t.err_rel);
			fputs(" relative", stdout);
		}
		if (!mpfr_nan_p(t.err_ulp)) {
			fputs(", ", stdout);
			put_number(t.err_ulp);
			fputs(" ulp", stdout);
		}
		fputs("  (result - exact; relative to |exact|)", stdout);
		putchar('\n');
	}
	fpref_ref_trace_clear(&t);
	fpref_ref_value_clear(&v);
	return status;
}
