/* fpref dot: dot products, one case per line: "a_1 ... a_K b_1 ... b_K c"
 * in hex patterns of --in (a, b) and --out (c), answered by the same line
 * with d appended.  --model is a GPU's tensor-core model, a plain
 * accumulation order rounded in --out under ENV, or exact (the oracle). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_TOKENS 1025

int cmd_dot(int argc, char **argv)
{
	const char *gpu = NULL, *in_name = NULL, *out_name = "float32", *block_text = "32", *promote_text = NULL;
	char **rest = malloc((size_t)(argc + 1) * sizeof *rest);
	int nrest = 0;
	for (int i = 0; i < argc; i++) {
		const char **slot = strcmp(argv[i], "--model") == 0 ? &gpu
				    : strcmp(argv[i], "--in") == 0  ? &in_name
				    : strcmp(argv[i], "--out") == 0 ? &out_name
				    : strcmp(argv[i], "--block") == 0 ? &block_text
				    : strcmp(argv[i], "--promote") == 0 ? &promote_text
								    : NULL;
		if (slot && i + 1 < argc)
			*slot = argv[++i];
		else if (slot) {
			cli_error("option %s needs a value", argv[i]);
			free(rest);
			return CLI_EXIT_USAGE;
		} else
			rest[nrest++] = argv[i];
	}
	struct cli_options o;
	int r = cli_parse(nrest, rest, CLI_ENV, &o);
	free(rest);
	if (r)
		return r;
	if (!gpu || !in_name) {
		cli_error("dot needs --model (v100, a100, h100, ada; recursive, pairwise, blocked, fma-chain, kahan; "
			  "exact) and --in FMT");
		return CLI_EXIT_USAGE;
	}
	struct fpref_format in, out;
	if (cli_parse_format(in_name, &in) != 0 || cli_parse_format(out_name, &out) != 0)
		return CLI_EXIT_USAGE;
	o.env = cli_target_env(&o, &out);
	enum fpref_sum_order order;
	bool plain = fpref_sum_order_parse(gpu, &order) == 0, exact = strcmp(gpu, "exact") == 0;
	char *end;
	long block = strtol(block_text, &end, 10);
	if (*end || block < 1 || block > 1 << 20) {
		cli_error("bad --block '%s' (a count of products, 1..1048576)", block_text);
		return CLI_EXIT_USAGE;
	}
	const struct fpref_tc_model *m = plain || exact ? NULL : fpref_tc_model_find(gpu, &in);
	if (!plain && !exact && !m) {
		cli_error("no model '%s' for %s inputs (tensor cores: v100 float16; a100, h100, ada float16, bfloat16, "
			  "tf32; h100, ada float8_e4m3fn, float8_e5m2; plain: recursive, pairwise, blocked, fma-chain, "
			  "kahan; exact)", gpu, in.name);
		return CLI_EXIT_USAGE;
	}
	long promote = 0;
	if (promote_text) {
		promote = strtol(promote_text, &end, 10);
		if (*end || promote < 1 || promote > 1 << 20 || !m || strcmp(out.name, "float32") != 0) {
			cli_error("--promote N needs a tensor-core model, FP32 output and a count 1..1048576, not '%s'",
				  promote_text);
			return CLI_EXIT_USAGE;
		}
	}
	if (m && strcmp(out.name, "float32") != 0 && strcmp(out.name, "float16") != 0) {
		cli_error("--out must be float32 or float16 for a tensor-core model, not '%s'", out.name);
		return CLI_EXIT_USAGE;
	}
	if ((plain || exact) && out.man_bits > FPREF_OP_MAX_MAN_BITS) {
		cli_error("%s has %d fraction bits; accumulators of up to %d compute", out.name, out.man_bits,
			  FPREF_OP_MAX_MAN_BITS);
		return CLI_EXIT_USAGE;
	}
	struct cli_lines lines = { .in = stdin };
	char **tokens = malloc(MAX_TOKENS * sizeof *tokens);
	uint64_t *values = malloc(MAX_TOKENS * sizeof *values);
	int status = CLI_EXIT_OK, n;
	while ((n = cli_next_tokens(&lines, tokens, MAX_TOKENS, &status)) > 0) {
		if (n % 2 == 0 || n < 3) {
			cli_error("line %lu: expected a_1..a_K b_1..b_K c (an odd count, at least 3), found %d tokens",
				  lines.lineno, n);
			status = CLI_EXIT_USAGE;
			break;
		}
		int K = (n - 1) / 2;
		char err[512];
		int bad = 0;
		for (int i = 0; i < n && !bad; i++)
			bad = cli_parse_bits(i < n - 1 ? &in : &out, tokens[i], &values[i], err, sizeof err);
		if (bad) {
			cli_error("line %lu: %s", lines.lineno, err);
			status = CLI_EXIT_USAGE;
			break;
		}
		uint64_t d = 0;
		unsigned flags = 0;
		if (m && promote)
			fpref_tc_dot_promoted(m, &in, values, values + K, (size_t)K, (size_t)promote, NULL, NULL,
					      values[n - 1], &d);
		else if (m)
			fpref_tc_dot(m, &in, values, values + K, (size_t)K, values[n - 1], &out, &d);
		else if (exact)
			fpref_ref_dot_exact(&in, values, values + K, (size_t)K, values[n - 1], &out, &o.env, &d, &flags);
		else
			fpref_emu_dot(order, (size_t)block, &in, values, values + K, (size_t)K, values[n - 1], &out, &o.env,
				      &d, &flags);
		char hex[32];
		cli_hex(&out, d, hex, sizeof hex);
		for (int i = 0; i < n; i++)
			printf("%s ", tokens[i]);
		printf("%s\n", hex);
	}
	cli_lines_free(&lines);
	free(tokens);
	free(values);
	return status;
}
