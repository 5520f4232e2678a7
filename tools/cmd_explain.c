/* fpref explain: the teaching view of one rounding. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
	cli_json_string(fpref_ref_rule_text(t->rule));
	if (t->rule == FPREF_RULE_STOCHASTIC) {
		gmp_printf(", \"sr\": {\"T\": \"%Zd\", \"R\": %llu, \"r\": %u}", t->sr_discarded,
			   (unsigned long long)t->sr_random, t->sr_width);
	}
	const char *out = fpref_ref_outcome_text(t->outcome);
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
	fpref_ref_explain_print(stdout, o.positional[0], o.have_from ? &o.from : NULL, &v, f, &o.env, &t, bits, flags);
	fpref_ref_trace_clear(&t);
	fpref_ref_value_clear(&v);
	return status;
}
