/* fpref op: one arithmetic operation for people, or a TestFloat-style
 * batch filter ("a b" or "a b c" in, "a b result flags" out). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int compute(const struct cli_options *o, enum fpref_op op, const uint64_t *in, uint64_t index, uint64_t *out,
		   unsigned *flags)
{
	*flags = 0;
	uint64_t R = fpref_env_sr_random(&o->env, index);
	return o->engine == CLI_ENGINE_REF ? fpref_ref_op(op, &o->to, in, &o->env, R, out, flags)
					   : fpref_emu_op(op, &o->to, in, &o->env, R, out, flags);
}

static void put_result(const struct cli_options *o, enum fpref_op op, uint64_t bits)
{
	char hex[32];
	if (fpref_op_is_compare(op)) {
		printf("%u", (unsigned)bits);
		return;
	}
	cli_hex(&o->to, bits, hex, sizeof hex);
	fputs(hex, stdout);
}

/* An operand for people: bits of FMT, or with --numbers a number rounded
 * into FMT under the environment first. */
static int read_operand(const struct cli_options *o, bool numbers, const char *text, uint64_t *bits, char *err,
			size_t errlen)
{
	if (!numbers)
		return cli_parse_bits(&o->to, text, bits, err, errlen);
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	int r = fpref_ref_parse(text, &v, err, errlen);
	if (r == 0) {
		unsigned flags = 0;
		fpref_ref_round(&v, &o->to, &o->env, fpref_env_sr_random(&o->env, 0), bits, &flags, NULL);
		if (flags && !o->json) {
			char words[96], hex[32];
			fpref_flags_describe(flags, words, sizeof words);
			cli_hex(&o->to, *bits, hex, sizeof hex);
			printf("# %s is not a %s: rounded to %s (%s)\n", text, o->to.name, hex, words);
		}
	}
	fpref_ref_value_clear(&v);
	return r;
}

static void put_operand(const struct cli_options *o, uint64_t bits)
{
	char hex[32];
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	cli_hex(&o->to, bits, hex, sizeof hex);
	fpref_ref_from_bits(&o->to, bits, false, &v);
	printf("%s (", hex);
	cli_put(stdout, fpref_ref_decimal(v.x));
	putchar(')');
	fpref_ref_value_clear(&v);
}

/* {"bits": "3C00", "decimal": "1"} */
static void put_operand_json(const struct cli_options *o, uint64_t bits)
{
	char hex[32];
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	cli_hex(&o->to, bits, hex, sizeof hex);
	fpref_ref_from_bits(&o->to, bits, false, &v);
	char *dec = fpref_ref_decimal(v.x);
	printf("{\"bits\": \"%s\", \"decimal\": ", hex);
	cli_json_string(dec ? dec : "");
	putchar('}');
	free(dec);
	fpref_ref_value_clear(&v);
}

static void put_json(const struct cli_options *o, enum fpref_op op, const uint64_t *in, int n, uint64_t out,
		     unsigned flags, bool detail)
{
	char words[96];
	fpref_flags_describe(flags, words, sizeof words);
	printf("{\"operands\": [");
	for (int i = 0; i < n; i++) {
		printf(i ? ", " : "");
		if (detail)
			put_operand_json(o, in[i]);
		else {
			char hex[32];
			cli_hex(&o->to, in[i], hex, sizeof hex);
			printf("\"%s\"", hex);
		}
	}
	printf("], \"result\": ");
	if (fpref_op_is_compare(op))
		printf("%s", out ? "true" : "false");
	else if (detail)
		put_operand_json(o, out);
	else {
		char hex[32];
		cli_hex(&o->to, out, hex, sizeof hex);
		printf("\"%s\"", hex);
	}
	printf(", \"flags\": %u, \"flag_words\": \"%s\"}", flags, words);
}

static int op_values(const struct cli_options *o, enum fpref_op op, bool numbers)
{
	uint64_t in[3] = { 0, 0, 0 };
	char err[512];
	for (int i = 0; i < o->npositional; i++)
		if (read_operand(o, numbers, o->positional[i], &in[i], err, sizeof err) != 0) {
			cli_fail(cli_cmd_op.name, "%s", err);
			return CLI_EXIT_USAGE;
		}
	uint64_t out;
	unsigned flags;
	compute(o, op, in, 0, &out, &flags);
	if (o->json) {
		printf("{\"op\": \"%s\", \"fmt\": \"%s\", \"case\": ", fpref_op_name(op), o->to.name);
		put_json(o, op, in, o->npositional, out, flags, true);
		printf("}\n");
		return CLI_EXIT_OK;
	}
	printf("%s %s", fpref_op_name(op), o->to.name);
	for (int i = 0; i < o->npositional; i++) {
		putchar(' ');
		put_operand(o, in[i]);
	}
	fputs(" = ", stdout);
	if (fpref_op_is_compare(op))
		printf("%s", out ? "true" : "false");
	else
		put_operand(o, out);
	char words[96];
	fpref_flags_describe(flags, words, sizeof words);
	printf("  flags %02X (%s)\n", flags, words);
	return CLI_EXIT_OK;
}

static int op_stream(const struct cli_options *o, enum fpref_op op, FILE *in)
{
	int arity = fpref_op_arity(op);
	struct cli_lines lines = { .in = in, .cmd = cli_cmd_op.name, .keep_going = true };
	uint64_t index = 0;
	int status = CLI_EXIT_OK;
	char *tokens[3];
	int n;
	if (o->json)
		printf("{\"op\": \"%s\", \"fmt\": \"%s\", \"results\": [\n", fpref_op_name(op), o->to.name);
	while ((n = cli_next_tokens(&lines, tokens, arity, &status)) > 0) {
		if (n < arity) {
			cli_line_reject(&lines, "%s needs %d operands, found %d", fpref_op_name(op), arity, n);
			continue;
		}
		uint64_t operands[3] = { 0, 0, 0 };
		char err[512];
		int bad = 0;
		for (int i = 0; i < arity && !bad; i++)
			bad = cli_parse_bits(&o->to, tokens[i], &operands[i], err, sizeof err);
		if (bad) {
			cli_line_reject(&lines, "%s", err);
			continue;
		}
		uint64_t out;
		unsigned flags;
		compute(o, op, operands, index++, &out, &flags);
		if (o->json) {
			printf(index > 1 ? ",\n  " : "  ");
			put_json(o, op, operands, arity, out, flags, false);
			continue;
		}
		for (int i = 0; i < arity; i++)
			printf("%s ", tokens[i]);
		put_result(o, op, out);
		printf(" %02X\n", flags);
	}
	if (o->json)
		printf("%s], \"lines\": %lu, \"rejected\": %lu}\n", index ? "\n" : "", lines.lines, lines.rejected);
	cli_lines_free(&lines);
	return cli_lines_finish(&lines, status);
}

struct op_args {
	bool numbers;
};

static const struct cli_opt op_opts[] = {
	{ "--numbers", CLI_FLAG, NULL, NULL, "operands are decimals, rounded into FMT under ENV first",
	  offsetof(struct op_args, numbers), 0 },
};

const struct cli_command cli_cmd_op = {
	.name = "op",
	.synopsis = "OP --format FMT [ENV] [--engine emu|ref] [--numbers] [--json] [A [B [C]]]",
	.summary = "One operation (add sub mul div sqrt fma min max eq lt le) on hex patterns of FMT.  With no\n"
		   "operands, read TestFloat lines 'a b' from stdin and write 'a b result flags'.",
	.groups = CLI_FMT | CLI_ENV | CLI_ENGINE | CLI_JSON,
	.opts = op_opts,
	.nopts = CLI_NOPTS(op_opts),
	.max_positional = -1,
	.examples = { "fpref op add --format f16 3C00 3C01", "printf '7E 01\\n' | fpref op mul --format e4m3 --sat" },
	.run = cmd_op,
};

int cmd_op(int argc, char **argv)
{
	struct op_args a = { false };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_op, argc, argv, &o, &a);
	if (r)
		return r;
	bool numbers = a.numbers;
	if (o.npositional < 1) {
		cli_fail(cli_cmd_op.name, "needs an operation (choices: %s)", fpref_op_choices());
		return CLI_EXIT_USAGE;
	}
	enum fpref_op op;
	if (fpref_op_parse(o.positional[0], &op) != 0) {
		cli_fail(cli_cmd_op.name, "unknown operation '%s' (choices: %s)", o.positional[0], fpref_op_choices());
		return CLI_EXIT_USAGE;
	}
	/* the operands follow the operation */
	for (int i = 1; i < o.npositional; i++)
		o.positional[i - 1] = o.positional[i];
	o.npositional--;
	if (!o.have_to) {
		cli_fail(cli_cmd_op.name, "needs --format FMT (see fpref formats)");
		return CLI_EXIT_USAGE;
	}
	if (numbers && o.npositional == 0) {
		cli_fail(cli_cmd_op.name, "--numbers reads operands given on the command line; batch lines are hex patterns");
		return CLI_EXIT_USAGE;
	}
	o.env = cli_target_env(&o, &o.to);
	if (o.to.man_bits > FPREF_OP_MAX_MAN_BITS) {
		cli_fail(cli_cmd_op.name, "%s has %d fraction bits; the arithmetic handles up to %d", o.to.name, o.to.man_bits,
			  FPREF_OP_MAX_MAN_BITS);
		return CLI_EXIT_USAGE;
	}
	int arity = fpref_op_arity(op);
	if (o.npositional == 0)
		return op_stream(&o, op, stdin);
	if (o.npositional != arity) {
		cli_fail(cli_cmd_op.name, "%s takes %d operand%s, given %d", fpref_op_name(op), arity, arity > 1 ? "s" : "", o.npositional);
		return CLI_EXIT_USAGE;
	}
	return op_values(&o, op, numbers);
}
