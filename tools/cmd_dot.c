/* fpref dot: dot products, one case per line: "a_1 ... a_K b_1 ... b_K c"
 * in hex patterns of --in (a, b) and --out (c), answered by the same line
 * with d appended.  The model is a GPU's tensor core, the generic block
 * model, a plain accumulation order rounded in --out under ENV, or exact. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_TOKENS 1025

struct dot_args {
	const char *in, *out;
};

static const struct cli_opt dot_opts[] = {
	{ "--in", CLI_VALUE, "FMT", NULL, "the format of a and b", offsetof(struct dot_args, in), 0 },
	{ "--out", CLI_VALUE, "FMT", "float32", "the format of c and d", offsetof(struct dot_args, out), 0 },
};

const struct cli_command cli_cmd_dot = {
	.name = "dot",
	.synopsis = "--model MODEL --in FMT [--out FMT] [MODEL OPTIONS] [ENV] [--json]",
	.summary = "Dot products through an accumulation model: lines 'a_1..a_K b_1..b_K c' (hex) on stdin,\n"
		   "answered with d appended.",
	.groups = CLI_ENV | CLI_MODEL | CLI_JSON,
	.opts = dot_opts,
	.nopts = CLI_NOPTS(dot_opts),
	.max_positional = 0,
	.examples = { "printf '3C00 3C00 3C00 3C00 0\\n' | fpref dot --model h100 --in f16",
		      "printf '3C00 3C00 0\\n' | fpref dot --model recursive --in f16 --out f16 --round rtz" },
	.run = cmd_dot,
};

int cmd_dot(int argc, char **argv)
{
	struct dot_args a = { NULL, "float32" };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_dot, argc, argv, &o, &a);
	if (r)
		return r;
	const char *in_name = a.in, *out_name = a.out;
	struct cli_model_text text = o.model;
	if (!in_name) {
		cli_fail(cli_cmd_dot.name, "needs --in FMT (the format of a and b)");
		return CLI_EXIT_USAGE;
	}
	struct fpref_format in, out;
	struct fpref_accum_model m;
	if (cli_parse_format(cli_cmd_dot.name, in_name, &in) != 0 || cli_parse_format(cli_cmd_dot.name, out_name, &out) != 0 ||
	    cli_model_resolve(cli_cmd_dot.name, &text, &in, &out, &m) != 0)
		return CLI_EXIT_USAGE;
	o.env = cli_target_env(&o, &out);
	struct cli_lines lines = { .in = stdin, .cmd = cli_cmd_dot.name, .keep_going = true };
	char **tokens = malloc(MAX_TOKENS * sizeof *tokens);
	uint64_t *values = malloc(MAX_TOKENS * sizeof *values);
	int status = CLI_EXIT_OK, n;
	unsigned long answered = 0;
	if (o.json) {
		char desc[256];
		printf("{\"in\": \"%s\", \"out\": \"%s\", \"model\": ", in.name, out.name);
		cli_json_string(cli_model_describe(&m, out.name, desc, sizeof desc));
		printf(", \"results\": [\n");
	}
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
		if (o.json) {
			printf("%s{\"K\": %d, \"inputs\": [", answered++ ? ",\n  " : "  ", K);
			for (int i = 0; i < n; i++) {
				printf(i ? ", " : "");
				cli_json_string(tokens[i]);
			}
			printf("], \"d\": \"%s\"}", hex);
			continue;
		}
		for (int i = 0; i < n; i++)
			printf("%s ", tokens[i]);
		printf("%s\n", hex);
	}
	if (o.json)
		printf("%s], \"lines\": %lu, \"rejected\": %lu}\n", answered ? "\n" : "", lines.lines, lines.rejected);
	cli_lines_free(&lines);
	free(tokens);
	free(values);
	return cli_lines_finish(&lines, status);
}
