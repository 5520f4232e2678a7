/* fpref dot: dot products, one case per line: "a_1 ... a_K b_1 ... b_K c"
 * in hex patterns of --in (a, b) and --out (c), answered by the same line
 * with d appended.  The model is a GPU's tensor core, the generic block
 * model, a plain accumulation order rounded in --out under ENV, or exact. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_TOKENS 1025

int cmd_dot(int argc, char **argv)
{
	const char *in_name = NULL, *out_name = "float32";
	struct cli_model_text text = { 0 };
	char **rest = malloc((size_t)(argc + 1) * sizeof *rest), **rest2 = malloc((size_t)(argc + 1) * sizeof *rest2);
	int nrest = 0, nrest2 = 0;
	struct cli_options o;
	int r = !rest || !rest2 ? CLI_EXIT_FAIL : cli_model_options(argc, argv, &text, rest, &nrest);
	static const char *const names[] = { "--in", "--out" };
	const char **slots[] = { &in_name, &out_name };
	if (!r)
		r = cli_take_options(nrest, rest, names, slots, 2, rest2, &nrest2);
	if (!r)
		r = cli_parse(nrest2, rest2, CLI_ENV, &o);
	free(rest);
	free(rest2);
	if (r)
		return r;
	if (!in_name) {
		cli_error("dot needs --in FMT (the format of a and b)");
		return CLI_EXIT_USAGE;
	}
	struct fpref_format in, out;
	struct fpref_accum_model m;
	if (cli_parse_format(in_name, &in) != 0 || cli_parse_format(out_name, &out) != 0 ||
	    cli_model_resolve(&text, &in, &out, &m) != 0)
		return CLI_EXIT_USAGE;
	o.env = cli_target_env(&o, &out);
	struct cli_lines lines = { .in = stdin, .keep_going = true };
	char **tokens = malloc(MAX_TOKENS * sizeof *tokens);
	uint64_t *values = malloc(MAX_TOKENS * sizeof *values);
	int status = CLI_EXIT_OK, n;
	while ((n = cli_next_tokens(&lines, tokens, MAX_TOKENS, &status)) > 0) {
		if (n % 2 == 0 || n < 3) {
			cli_line_reject(&lines, "expected a_1..a_K b_1..b_K c (an odd count, at least 3), found %d tokens", n);
			continue;
		}
		int K = (n - 1) / 2;
		char err[512];
		int bad = 0;
		for (int i = 0; i < n && !bad; i++)
			bad = cli_parse_bits(i < n - 1 ? &in : &out, tokens[i], &values[i], err, sizeof err);
		if (bad) {
			cli_line_reject(&lines, "%s", err);
			continue;
		}
		uint64_t d = 0;
		fpref_golden_model_dot(&m, &in, values, values + K, (size_t)K, values[n - 1], &out, &o.env, &d);
		char hex[32];
		cli_hex(&out, d, hex, sizeof hex);
		for (int i = 0; i < n; i++)
			printf("%s ", tokens[i]);
		printf("%s\n", hex);
	}
	cli_lines_free(&lines);
	free(tokens);
	free(values);
	return cli_lines_finish(&lines, status);
}
