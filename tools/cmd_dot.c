/* fpref dot: dot products, one case per line: "a_1 ... a_K b_1 ... b_K c"
 * in hex patterns of --in-format (a, b; or a of --a-format, b of --b-format) and --out-format (c), answered by the same line
 * with d appended.  The model is a GPU's tensor core, the generic block
 * model, a plain accumulation order rounded in --out-format under ENV, or exact. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "order_io.h"

#define MAX_TOKENS 1025
#define TREE_MAX_TOKENS (2 * 65536 + 1) /* --model tree: K up to 65536 */

struct dot_args {
	const char *in, *out, *scale_a, *scale_b, *scale_every, *scale_format, *in_a, *in_b, *tree;
};

static const struct cli_opt dot_opts[] = {
	{ "--in-format", CLI_VALUE, "FMT", NULL, "the format of a and b", offsetof(struct dot_args, in), 0 },
	{ "--a-format", CLI_VALUE, "FMT", NULL, "the format of a, with --b-format (instead of --in-format)", offsetof(struct dot_args, in_a),
	  0 },
	{ "--b-format", CLI_VALUE, "FMT", NULL, "the format of b, with --a-format", offsetof(struct dot_args, in_b), 0 },
	{ "--out-format", CLI_VALUE, "FMT", "float32", "the format of c and d", offsetof(struct dot_args, out), 0 },
	{ "--scale-a", CLI_VALUE, "S1,S2,...", NULL,
	  "block scales of a, one per --scale-every products: patterns (0x7F), 2^N or exact values (0.25); "
	  "without it, ones",
	  offsetof(struct dot_args, scale_a), 0 },
	{ "--scale-b", CLI_VALUE, "S1,S2,...", NULL, "block scales of b, as --scale-a", offsetof(struct dot_args, scale_b), 0 },
	{ "--scale-every", CLI_VALUE, "N", "32", "products per scale (the block-scaled kinds: 32, or 16 for NVFP4)",
	  offsetof(struct dot_args, scale_every), 0 },
	{ "--scale-format", CLI_VALUE, "FMT", "float8_e8m0fnu",
	  "the scales' format: float8_e8m0fnu, or float8_e4m3fn read as UE4M3 (tcgen05-mxf4nvf4)",
	  offsetof(struct dot_args, scale_format), 0 },
	{ "--tree", CLI_VALUE, "SPEC", NULL,
	  "with --model tree: the summation tree, as fpref probe order prints it (K a product, (x,y) one addition in "
	  "--out-format, MODEL[c,k,...] one block-model call, seq:float64[x,y,...] additions in float64 rounded once; "
	  "docs/order.md); c must be +0",
	  offsetof(struct dot_args, tree), 0 },
};

/* The block scales of --scale-a/--scale-b: parsed, checked against the
 * model; both lists NULL when neither option is given. */
struct dot_scales {
	struct fpref_format format;
	uint64_t *a, *b;
	size_t na, nb, every;
};

static int parse_scales(const struct dot_args *args, const struct fpref_accum_model *m, const struct fpref_format *in_a,
			const struct fpref_format *in_b, const struct fpref_format *out, struct dot_scales *s)
{
	const char *cmd = cli_cmd_dot.name;
	char err[256], *end;
	if (!args->scale_a && !args->scale_b)
		return 0;
	unsigned long every = strtoul(args->scale_every, &end, 10);
	if (!*args->scale_every || *end || every < 1 || every > 1u << 20) {
		cli_fail(cmd, "bad --scale-every '%s' (an integer 1..1048576)", args->scale_every);
		return CLI_EXIT_USAGE;
	}
	s->every = every;
	if (cli_parse_format(cmd, args->scale_format, &s->format) != 0)
		return CLI_EXIT_USAGE;
	uint64_t none = 0;
	struct fpref_tc_scales probe = { &s->format, &none, &none, s->every };
	if (!fpref_golden_model_scales_ok(m, in_a, in_b, out, &probe, err, sizeof err)) {
		cli_fail(cmd, "--scale-a/--scale-b: %s", err);
		return CLI_EXIT_USAGE;
	}
	const char *text[2] = { args->scale_a ? args->scale_a : "1", args->scale_b ? args->scale_b : "1" };
	const char *name[2] = { "--scale-a", "--scale-b" };
	uint64_t **codes[2] = { &s->a, &s->b };
	size_t *count[2] = { &s->na, &s->nb };
	for (int i = 0; i < 2; i++)
		if (fpref_golden_scales_parse(&s->format, text[i], codes[i], count[i], err, sizeof err) != 0) {
			cli_fail(cmd, "bad %s: %s", name[i], err);
			return CLI_EXIT_USAGE;
		}
	return 0;
}

/* The scales of one line of K products, or a message: a list of one
 * entry (a default of ones, or one given) serves every chunk. */
static bool line_scales(const struct dot_scales *s, size_t K, uint64_t *sa, uint64_t *sb, char *err, size_t errlen)
{
	size_t need = (K + s->every - 1) / s->every;
	const uint64_t *from[2] = { s->a, s->b };
	size_t have[2] = { s->na, s->nb };
	uint64_t *to[2] = { sa, sb };
	for (int i = 0; i < 2; i++) {
		if (have[i] != need && have[i] != 1) {
			snprintf(err, errlen, "K = %zu takes %zu scale(s), one per %zu products; --scale-%c gives %zu", K, need,
				 s->every, "ab"[i], have[i]);
			return false;
		}
		for (size_t j = 0; j < need; j++)
			to[i][j] = from[i][have[i] == 1 ? 0 : j];
	}
	return true;
}

const struct cli_command cli_cmd_dot = {
	.name = "dot",
	.synopsis = "--model MODEL (--in-format FMT | --a-format FMT --b-format FMT) [--out-format FMT]\n"
		    "       [--scale-a S,... --scale-b S,... [--scale-every N] [--scale-format FMT]] [MODEL OPTIONS] [ENV] [--json]",
	.summary = "Dot products through an accumulation model: lines 'a_1..a_K b_1..b_K c' (hex) on stdin,\n"
		   "answered with d appended.",
	.groups = CLI_ENV | CLI_MODEL | CLI_JSON,
	.opts = dot_opts,
	.nopts = CLI_NOPTS(dot_opts),
	.max_positional = 0,
	.examples = { "printf '3C00 3C00 3C00 3C00 0\\n' | fpref dot --model h100 --in-format f16",
		      "printf '3C 40 0\\n' | fpref dot --model h100-wgmma --a-format e5m2 --b-format e4m3" },
	.run = cmd_dot,
};

int cmd_dot(int argc, char **argv)
{
	struct dot_args a = { NULL, "float32", NULL, NULL, "32", "float8_e8m0fnu", NULL, NULL, NULL };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_dot, argc, argv, &o, &a);
	if (r)
		return r;
	struct cli_model_text text = o.model;
	struct fpref_format in_a, in_b, out;
	struct fpref_accum_model m;
	struct fpref_tree *tree = NULL;
	if (cli_parse_operands(cli_cmd_dot.name, a.in, a.in_a, a.in_b, &in_a, &in_b) != 0 ||
	    cli_parse_format(cli_cmd_dot.name, a.out, &out) != 0)
		return CLI_EXIT_USAGE;
	if (text.model && strcmp(text.model, "tree") == 0) {
		if ((r = dot_tree_open(a.tree, a.scale_a || a.scale_b, &text, &in_a, &in_b, &out, &tree)) != 0)
			return r;
		memset(&m, 0, sizeof m);
	} else if (a.tree) {
		cli_fail(cli_cmd_dot.name, "--tree SPEC goes with --model tree");
		return CLI_EXIT_USAGE;
	} else if (cli_model_resolve(cli_cmd_dot.name, &text, &in_a, &in_b, &out, &m) != 0)
		return CLI_EXIT_USAGE;
	struct dot_scales sc = { .a = NULL };
	if ((r = parse_scales(&a, &m, &in_a, &in_b, &out, &sc)) != 0) {
		free(sc.a);
		free(sc.b);
		return r;
	}
	o.env = cli_target_env(&o, &out);
	struct cli_lines lines = { .in = stdin, .cmd = cli_cmd_dot.name, .keep_going = true,
				   .max_bytes = tree ? (size_t)TREE_MAX_TOKENS * 20 : 0 };
	int max_tokens = tree ? TREE_MAX_TOKENS : MAX_TOKENS;
	char **tokens = malloc((size_t)max_tokens * sizeof *tokens);
	uint64_t *values = malloc((size_t)max_tokens * sizeof *values), *line_sa = malloc(MAX_TOKENS * sizeof *line_sa),
		 *line_sb = malloc(MAX_TOKENS * sizeof *line_sb);
	int status = CLI_EXIT_OK, n;
	unsigned long answered = 0;
	if (o.json) {
		char desc[256];
		/* "in": the one format of a and b, null when they differ */
		printf("{\"in\": ");
		if (fpref_format_same(&in_a, &in_b))
			printf("\"%s\"", in_a.name);
		else
			printf("null");
		printf(", \"in_a\": \"%s\", \"in_b\": \"%s\", \"out\": \"%s\", \"model\": ", in_a.name, in_b.name, out.name);
		cli_json_string(tree ? "tree" : fpref_golden_model_describe(&m, out.name, desc, sizeof desc));
		printf(", \"results\": [\n");
	}
	while ((n = cli_next_tokens(&lines, tokens, max_tokens, &status)) > 0) {
		if (n % 2 == 0 || n < 3) {
			cli_line_reject(&lines, "expected a_1..a_K b_1..b_K c (an odd count, at least 3), found %d tokens", n);
			continue;
		}
		int K = (n - 1) / 2;
		char err[512];
		int bad = 0;
		for (int i = 0; i < n && !bad; i++)
			bad = cli_parse_bits(i < K ? &in_a : i < n - 1 ? &in_b : &out, tokens[i], &values[i], err, sizeof err);
		if (bad) {
			cli_line_reject(&lines, "%s", err);
			continue;
		}
		uint64_t d = 0;
		struct fpref_tc_scales scales = { &sc.format, line_sa, line_sb, sc.every };
		if (sc.a && !line_scales(&sc, (size_t)K, line_sa, line_sb, err, sizeof err)) {
			cli_line_reject(&lines, "%s", err);
			continue;
		}
		if (tree) {
			if (dot_tree_line(tree, &out, values, (size_t)K, &o.env, &d, err, sizeof err) != 0) {
				cli_line_reject(&lines, "%s", err);
				continue;
			}
		} else if (fpref_golden_model_dot_scaled(&m, &in_a, &in_b, values, values + K, (size_t)K, sc.a ? &scales : NULL,
						  values[n - 1], &out, &o.env, &d) != 0) {
			cli_line_reject(&lines, "the model cannot compute this line (a of %s, b of %s)", in_a.name, in_b.name);
			continue;
		}
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
	free(line_sa);
	free(line_sb);
	free(sc.a);
	free(sc.b);
	fpref_emu_tree_free(tree);
	return cli_lines_finish(&lines, status);
}
