/* fpref convert: round values to a format, for people or as a
 * TestFloat-style batch filter.  Bit patterns go through the emulator by
 * default (--engine ref: the oracle); decimal numbers through the oracle. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Read one operand: bits of --from, or a number. */
static int read_operand(const struct cli_options *o, const char *text, struct fpref_ref_value *v, uint64_t *raw,
			char *err, size_t errlen)
{
	if (!o->have_from)
		return fpref_ref_parse(text, v, err, errlen);
	if (cli_parse_bits(&o->from, text, raw, err, errlen) != 0)
		return -1;
	fpref_ref_from_bits(&o->from, *raw, o->env.daz, v);
	return 0;
}

/* The emulator takes bit patterns; numbers written in decimal are the
 * oracle's to round (the emulator has no decimal reader). */
static void convert_one(const struct cli_options *o, const struct fpref_ref_value *v, uint64_t raw, uint64_t index,
			uint64_t *bits, unsigned *flags)
{
	*flags = 0;
	uint64_t R = fpref_env_sr_random(&o->env, index);
	if (o->have_from && o->engine == CLI_ENGINE_EMU)
		fpref_emu_convert(&o->from, raw, &o->to, &o->env, R, bits, flags);
	else
		fpref_ref_round(v, &o->to, &o->env, R, bits, flags, NULL);
}

static int convert_values(const struct cli_options *o)
{
	struct fpref_ref_value v, result;
	fpref_ref_value_init(&v);
	fpref_ref_value_init(&result);
	int status = CLI_EXIT_OK;
	for (int i = 0; i < o->npositional; i++) {
		char err[512];
		uint64_t raw = 0;
		if (read_operand(o, o->positional[i], &v, &raw, err, sizeof err) != 0) {
			cli_fail(cli_cmd_convert.name, "%s", err);
			status = CLI_EXIT_USAGE;
			break;
		}
		uint64_t bits;
		unsigned flags;
		convert_one(o, &v, raw, (uint64_t)i, &bits, &flags);
		char hex[32], words[96];
		cli_hex(&o->to, bits, hex, sizeof hex);
		fpref_flags_describe(flags, words, sizeof words);
		fpref_ref_from_bits(&o->to, bits, false, &result);
		printf("%s -> %s %s = ", o->positional[i], o->to.name, hex);
		cli_put(stdout, fpref_ref_decimal(result.x));
		printf("  flags %02X (%s)\n", flags, words);
	}
	fpref_ref_value_clear(&v);
	fpref_ref_value_clear(&result);
	return status;
}

static int convert_stream(const struct cli_options *o, FILE *in)
{
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	struct cli_lines lines = { .in = in, .cmd = cli_cmd_convert.name, .keep_going = true };
	uint64_t index = 0;
	int status = CLI_EXIT_OK;
	char *token;
	while (cli_next_tokens(&lines, &token, 1, &status) > 0) {
		char err[512];
		uint64_t raw = 0;
		if (read_operand(o, token, &v, &raw, err, sizeof err) != 0) {
			cli_line_reject(&lines, "%s", err);
			continue;
		}
		uint64_t bits;
		unsigned flags;
		convert_one(o, &v, raw, index++, &bits, &flags);
		char hex[32];
		cli_hex(&o->to, bits, hex, sizeof hex);
		printf("%s %s %02X\n", token, hex, flags);
	}
	cli_lines_free(&lines);
	fpref_ref_value_clear(&v);
	return cli_lines_finish(&lines, status);
}

const struct cli_command cli_cmd_convert = {
	.name = "convert",
	.synopsis = "--to FMT [--from FMT] [ENV] [--engine emu|ref] [VALUE...]",
	.summary = "Round values to FMT.  With no VALUE, read TestFloat lines (the operand first) from stdin and\n"
		   "write 'operand result flags'.",
	.details = "VALUEs are decimals or hex floats, rounded by the MPFR oracle; with --from FMT they are hex bit\n"
		   "patterns of FMT, converted by the emulator unless --engine ref.\n",
	.groups = CLI_TO | CLI_FROM | CLI_ENV | CLI_ENGINE,
	.max_positional = -1,
	.examples = { "fpref convert --to e4m3 464 465", "printf '3C00\\n7BFF\\n' | fpref convert --from f16 --to e5m2" },
	.run = cmd_convert,
};

int cmd_convert(int argc, char **argv)
{
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_convert, argc, argv, &o, NULL);
	if (r)
		return r;
	if (!o.have_to) {
		cli_fail(cli_cmd_convert.name, "needs --to FMT (see fpref formats)");
		return CLI_EXIT_USAGE;
	}
	if (o.text.engine && !o.have_from) {
		/* decimals have no bit pattern for the emulator: the oracle rounds them either way */
		cli_fail(cli_cmd_convert.name, "--engine %s needs --from FMT (decimal values are always rounded by the oracle)",
			 o.text.engine);
		return CLI_EXIT_USAGE;
	}
	o.env = cli_target_env(&o, &o.to);
	return o.npositional > 0 ? convert_values(&o) : convert_stream(&o, stdin);
}
